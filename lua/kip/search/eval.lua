--- kip.search.eval — how well SEARCH finds what an operator expects on
--- their own nexus (docs/search.md "Measure it on your memory"): queries
--- with the names of the elements they should find in, recall@k out for
--- every mode, and which mode to use. `kip search eval FILE` prints it;
--- --apply records the better of keyword and semantic as hybrid's primary
--- list (the one hybrid keeps whole).
---
--- A query file has one JSON object per line:
---   {"query": "which services are written in rust", "expect": ["Auth", "Ledger"],
---    "type": "Service", "propositions": false}
--- expect: element names (a concept's name; a proposition's predicate);
--- type (optional): WITH TYPE; propositions: SEARCH PROPOSITION;
--- category (optional): a label the figures are also given per (e.g. the
--- kind of question: single-hop, temporal, …).

local M = {}

M.MODES = { "keyword", "semantic", "hybrid" }

--- the queries of a file; nil, message naming the file and line
function M.read(path)
  local out, err = require("kip.text").read_jsonl(path, function(q)
    return type(q.query) ~= "string" and "no \"query\" string"
      or (type(q.expect) ~= "table" or #q.expect == 0) and "no \"expect\" list of element names"
      or (q.type ~= nil and type(q.type) ~= "string") and "\"type\" must be a string"
      or (q.category ~= nil and type(q.category) ~= "string") and "\"category\" must be a string" or nil
  end)
  if out and #out == 0 then return nil, path .. ": no queries" end
  return out, err
end

-- the names a query's SEARCH returns in `mode`, at most k; nil, error
local function search(nx, q, mode, k, ctx)
  local text = ('SEARCH %s :q%s MODE "%s" LIMIT %d'):format(q.propositions and "PROPOSITION" or "CONCEPT",
    q.type and " WITH TYPE :t" or "", mode, k)
  local r = nx:execute(text, { q = q.query, t = q.type }, { readonly = true, ctx = ctx })
  if r.error then return nil, r.error end
  local names = {}
  for _, e in ipairs(r.result or {}) do names[#names + 1] = e.name or e.predicate end
  return names, r.warnings
end

--- recall@k of every mode over queries. opts: ks (default {5, 10}), ctx
--- (the caller). Returns {queries, ks, modes = {mode = {[k] = recall}},
--- categories = {{name, queries, modes = {mode = {[k] = recall}}}} (in the
--- order first seen; empty when no query has one), per_query = {{query,
--- line, category, [mode] = {[k] = recall}}}, warnings, best, primary}: best
--- is the mode of the highest mean recall over ks (ties: keyword, then
--- hybrid), primary the better of keyword and semantic.
function M.run(nx, queries, opts)
  opts = opts or {}
  local ks = opts.ks or { 5, 10 }
  local kmax = math.max(table.unpack(ks))
  local out = { queries = #queries, ks = ks, modes = {}, categories = {}, per_query = {}, warnings = {} }
  local seen_warning, category = {}, {}
  local function zeros()
    local t = {}
    for _, m in ipairs(M.MODES) do
      t[m] = {}
      for _, k in ipairs(ks) do t[m][k] = 0 end
    end
    return t
  end
  out.modes = zeros()
  for _, q in ipairs(queries) do
    if q.category and not category[q.category] then
      category[q.category] = { name = q.category, queries = 0, modes = zeros() }
      out.categories[#out.categories + 1] = category[q.category]
    end
    local cat = category[q.category]
    if cat then cat.queries = cat.queries + 1 end
  end
  for _, q in ipairs(queries) do
    local cat = category[q.category]
    local row = { query = q.query, line = q.line, category = q.category }
    for _, m in ipairs(M.MODES) do
      local names, warn = search(nx, q, m, kmax, opts.ctx)
      if not names then return nil, warn end
      for _, w in ipairs(warn or {}) do
        if not seen_warning[w] then seen_warning[w] = true; out.warnings[#out.warnings + 1] = m .. ": " .. w end
      end
      row[m] = {}
      for _, k in ipairs(ks) do
        local got = {}
        for i = 1, math.min(k, #names) do got[names[i]] = true end
        local hit = 0
        for _, n in ipairs(q.expect) do if got[n] then hit = hit + 1 end end
        local r = hit / #q.expect
        row[m][k] = r
        out.modes[m][k] = out.modes[m][k] + r / #queries
        if cat then cat.modes[m][k] = cat.modes[m][k] + r / cat.queries end
      end
    end
    out.per_query[#out.per_query + 1] = row
  end
  local function mean(m)
    local s = 0
    for _, k in ipairs(ks) do s = s + out.modes[m][k] end
    return s / #ks
  end
  out.best = "keyword"
  for _, m in ipairs { "hybrid", "semantic" } do if mean(m) > mean(out.best) + 1e-9 then out.best = m end end
  out.primary = mean("semantic") > mean("keyword") + 1e-9 and "semantic" or "keyword"
  return out
end

return M
