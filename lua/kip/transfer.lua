-- kip.transfer — moving knowledge in and out of a Nexus in bulk: applying
-- capsule text in batched transactions (kip import, kip restore) and reading
-- a selection out as paged EXPORT capsules (kip export, kip dump).
local core = require "kip.core"
local capsule = require "kip.capsule"

local M = {}

M.BIG_COMMAND = 256 * 1024 * 1024 -- bulk loads may send statements larger than the 256 KiB default

local function count(r)
  return #r.upsert_concept_nodes + #r.upsert_proposition_links
end

M.BATCH_BYTES = 4 * 1024 * 1024 -- bytes of statements per transaction (docs/decisions.md "Import")

-- statements first..last of text (starts/lines from capsule.statements) in
-- batches of about batch_bytes, one transaction each; a failing batch is
-- replayed statement by statement. base: { line = line of text's first
-- line - 1, bytes = bytes before text } (a file read in chunks)
local function apply_statements(nx, text, starts, lines, first, last, st, opts, base)
  local batch_bytes = opts.batch_bytes or M.BATCH_BYTES
  -- the SEARCH index is built once at the end (kip_sync_index), not per batch
  local limit = { max_command_bytes = M.BIG_COMMAND, defer_index = true, ctx = opts.ctx, capabilities = opts.capabilities,
    maintenance = opts.maintenance }
  local function stop(k) return (starts[k + 1] or #text + 1) - 1 end
  -- statements a..b as one command (one transaction)
  local function run(a, b)
    return core.json_decode(nx:call_command(text:sub(starts[a], stop(b)), nil, limit))
  end
  local k = first
  while k <= last do
    local a, b = k, k
    while b < last and stop(b + 1) - starts[a] + 1 <= batch_bytes do b = b + 1 end
    k = b + 1
    local resp = run(a, b)
    if resp.error then
      for i = a, b do
        local r = run(i, i)
        if r.error then
          st.failed = st.failed + 1
          if opts.on_error then opts.on_error(base.line + lines[i] + (r.error.line or 1) - 1, r.error) end
        else
          st.applied, st.elements = st.applied + 1, st.elements + count(r.result)
        end
      end
    else
      st.applied, st.elements = st.applied + (b - a + 1), st.elements + count(resp.result)
    end
    if opts.on_progress then opts.on_progress(base.bytes + stop(b), st.applied, st.elements) end
  end
end

-- one indexing pass over everything the batches wrote, in transactions of
-- 50 000 elements (an interrupted pass resumes at the next open or write)
local function index_written(nx, st, opts)
  local ok, err = nx.handle:sync_index(50000, opts.on_index)
  if not ok then st.index_error = err end
  return st
end

--- Apply capsule text. Its statements go in batches of about batch_bytes,
--- one transaction each; a failing batch is replayed statement by statement
--- so every error is reported (on_error(line, err)) and the good statements
--- are applied. opts: from (first statement, 1-based), batch_bytes, ctx,
--- capabilities and maintenance (the host's grants for guards: kip.h),
--- on_error(line, err), on_progress(done_bytes, applied, elements),
--- on_index(done, total) (the SEARCH index is built once, at the end).
--- Returns { applied=, failed=, elements=, statements= [, index_error=] }.
function M.apply(nx, text, opts)
  opts = opts or {}
  local starts, lines = capsule.statements(text)
  local from = opts.from or 1
  local st = { applied = 0, failed = 0, elements = 0, statements = #starts, from = math.min(from, #starts) }
  apply_statements(nx, text, starts, lines, from, #starts, st, opts, { line = 0, bytes = 0 })
  return index_written(nx, st, opts)
end

M.CHUNK_BYTES = 16 * 1024 * 1024

--- Apply a capsule read from file handle f (e.g. io.open(path, "rb"))
--- without holding it in memory: it is read CHUNK_BYTES at a time; the
--- complete statements read so far are applied like M.apply's (the same
--- batches, error reports with file lines, --from numbering) and the last,
--- possibly cut, statement waits for the next chunk. Memory stays near a
--- chunk plus the longest statement, whatever the file's size.
function M.apply_stream(nx, f, opts)
  opts = opts or {}
  local from = opts.from or 1
  local st = { applied = 0, failed = 0, elements = 0 }
  local carry, base, seen = "", { line = 0, bytes = 0 }, 0
  while true do
    local chunk = f:read(M.CHUNK_BYTES)
    local text = chunk and carry .. chunk or carry
    local starts, lines = capsule.statements(text)
    -- all but the last statement are complete; at the end of the file, all
    local last = chunk and #starts - 1 or #starts
    if last >= 1 then
      local first = math.max(1, from - seen)
      if first <= last then apply_statements(nx, text, starts, lines, first, last, st, opts, base) end
      seen = seen + last
      if chunk then
        -- the rest starts at statement last + 1: its line and byte offset
        base = { line = base.line + lines[last + 1] - 1, bytes = base.bytes + starts[last + 1] - 1 }
        carry = text:sub(starts[last + 1])
      end
    elseif chunk then
      carry = text
    end
    if not chunk then break end
  end
  st.statements = seen
  st.from = math.min(from, seen)
  return index_written(nx, st, opts)
end

--- Export a selection as EXPORT pages; emit(result) gets each non-empty
--- page ({capsule, concepts, propositions}). selection: { where = 'PATTERN
--- binding ?x' } | { domain = NAME } | {} (everything). Returns the totals
--- or nil, error.
function M.export(nx, selection, page, emit)
  page = page or 5000
  local totals = { concepts = 0, propositions = 0 }
  local function pages(pattern, params)
    local cursor
    repeat
      local p = { c = cursor or core.null }
      for k, v in pairs(params or {}) do p[k] = v end
      local r = nx:execute("EXPORT ?x WHERE { " .. pattern .. " } LIMIT " .. page .. " CURSOR :c", p)
      if r.error then error(r.error, 0) end
      if r.result.capsule ~= "" then emit(r.result) end
      totals.concepts = totals.concepts + r.result.concepts
      totals.propositions = totals.propositions + r.result.propositions
      cursor = r.next_cursor
    until not cursor
  end
  local function distinct(cmd, params)
    local r = nx:execute(cmd, params)
    if r.error then error(r.error, 0) end
    local seen, out = {}, {}
    for _, v in ipairs(r.result) do
      if not seen[v] then seen[v] = true; out[#out + 1] = v end
    end
    return out
  end
  local ok, err = pcall(function()
    if selection.where then
      pages(selection.where)
    elseif selection.domain then
      -- the definitions the domain's content uses first, so the capsule
      -- imports into a fresh nexus (RC11 §5.3: schema is not implied)
      local D, d = '{type: "Domain", name: :d}', { d = selection.domain }
      for _, t in ipairs(distinct('FIND(?m.type) WHERE { (?m, "belongs_to_domain", ' .. D .. ') }', d)) do
        pages('?x {type: "$ConceptType", name: :t}', { t = t })
      end
      for _, p in ipairs(distinct('FIND(?p) WHERE { (?s, "belongs_to_domain", ' .. D .. ') (?o, "belongs_to_domain", '
        .. D .. ') (?s, ?p, ?o) }', d)) do
        pages('?x {type: "$PropositionType", name: :p}', { p = p })
      end
      -- RC11 §5.3: members, the links among them, their memberships, the domain node
      pages([[(?x, "belongs_to_domain", {type: "Domain", name: :d})
        UNION { (?s, "belongs_to_domain", {type: "Domain", name: :d}) (?o, "belongs_to_domain", {type: "Domain", name: :d}) ?x (?s, ?p, ?o) }
        UNION { ?x (?m, "belongs_to_domain", {type: "Domain", name: :d}) }
        UNION { ?x {type: "Domain", name: :d} }]], d)
    else
      -- everything: the concepts of each type (definitions first), then every link
      local types, cursor = {}, nil
      repeat
        local r = nx:execute("DESCRIBE CONCEPT TYPES LIMIT 500 CURSOR :c", { c = cursor or core.null })
        if r.error then error(r.error, 0) end
        for _, t in ipairs(r.result) do types[#types + 1] = t end
        cursor = r.next_cursor
      until not cursor
      local function key(t) return (t:sub(1, 1) == "$" and "0" or "1") .. t end
      table.sort(types, function(a, b) return key(a) < key(b) end)
      for _, t in ipairs(types) do pages("?x {type: :t}", { t = t }) end
      pages("?x (?s, ?p, ?o)")
    end
  end)
  if not ok then return nil, err end
  return totals
end

return M
