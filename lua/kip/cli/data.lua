--- kip.cli.data — the commands that move a memory in and out (docs/extending.md
--- "CLI commands"): import, export, dump, restore, backup, reindex.
local kip = require "kip"
local core = kip.core

local commands = {}

-- progress on a terminal: "\r<label> 45% 12000/26000 statements 3100/s ETA 5s"
local function progress_reporter(cli, total_bytes)
  local tty = cli:isatty(2)
  local t0, last = os.time(), -1
  return tty, function(done_bytes, statements, elements, final)
    if not tty then return end
    local now = os.time()
    if not final and now == last then return end
    last = now
    local dt = math.max(now - t0, 1)
    -- a stream of unknown size (stdin) shows no share and no ETA
    local pct = total_bytes > 0 and ("%3d%%"):format(done_bytes * 100 // total_bytes) or "   -"
    local eta = (total_bytes > 0 and done_bytes > 0) and ("ETA %ds"):format((total_bytes - done_bytes) * dt // done_bytes) or ""
    io.stderr:write(("\r  %s  %d statements  %d elements  %d elements/s  %s   "):format(
      pct, statements, elements, elements // dt, eta))
    if final then io.stderr:write("\n") end
  end
end

-- progress and errors of a bulk apply, reported on stderr. source: capsule
-- text, or { file = handle, size = bytes } read as a stream
local function apply_reporting(cli, nx, source, label, from, batch_bytes, quiet)
  local transfer = require "kip.transfer"
  local size = type(source) == "string" and #source or source.size
  local tty, report = progress_reporter(cli, size)
  if quiet then tty, report = false, function() end end
  local opts = {
    from = from, batch_bytes = batch_bytes,
    on_error = function(line, e)
      if tty then io.stderr:write("\r\27[K") end
      cli:stderr("%s:%d: %s %s", label, line, e.code, e.message)
      if e.hint and e.hint ~= "" then cli:stderr("  hint: %s", e.hint) end
    end,
    on_progress = function(done, applied, elements) report(done, applied, elements, false) end,
    on_index = function(done, total)
      if tty then io.stderr:write(("\r  indexing for SEARCH %d/%d elements   "):format(done, total), done >= total and "\n" or "") end
    end,
  }
  local st
  if type(source) == "string" then st = transfer.apply(nx, source, opts)
  else st = transfer.apply_stream(nx, source.file, opts) end
  report(size, st.applied, st.elements, true)
  if st.index_error then cli:stderr("%s: indexing for SEARCH failed: %s (it resumes at the next write)", label, st.index_error) end
  return st
end

commands.import = {
  usage = "import [--from N] [--batch-kb K] [-q] [governance options] FILE.kip...",
  summary = "apply capsules in batched transactions, with progress\n(the policies' content checks apply: secrets are refused)",
  help = [[
usage: kip [--db PATH] import [--from N] [--batch-kb K] [-q|--quiet] [governance options] FILE.kip...

Applies capsule files (- reads stdin). A file is read 16 MiB at a time and
split into its statements, so memory stays flat whatever its size;
statements are applied in batches (about K KiB of text, default 4096) of
one transaction each. A batch that fails is replayed statement by statement, so every bad
statement is reported as FILE:LINE and the good ones are applied. Importing
again is idempotent (UPSERT matches what exists); --from N starts at
statement N to resume a long import. On a terminal a progress line shows the
share done, statements, elements written, rate and ETA; the SEARCH index is
built once at the end. The policies' content checks apply (the default
policy refuses statements carrying secrets, reported like any bad statement)
but not their scopes: the importer is the operator (--no-policies skips the
policies). Exit status 1 when a statement failed.
]],
  run = function(cli, args)
    local o, files = cli:parse(args, { { "--from", value = "a statement number", check = "number" },
      { "--batch-kb", value = "a number", check = "number" }, { "--quiet", "-q" } }, { governance = true })
    if #files == 0 then cli:die("import needs at least one .kip file") end
    local nx = cli:open_operator_nexus()
    local failed = 0
    for _, file in ipairs(files) do
      -- a capsule file (or - for stdin) opened for streaming, with its size when known
      local f = cli:open_input(file)
      local size = 0
      if f ~= io.stdin then
        size = f:seek("end") or 0
        f:seek("set", 0)
      end
      local st = apply_reporting(cli, nx, { file = f, size = size }, file, o.from or 1, o.batch_kb and o.batch_kb * 1024,
        o.quiet)
      if f ~= io.stdin then f:close() end
      cli:stderr("%s: %d statements applied, %d failed, %d elements written (statements %d..%d of %d)", file, st.applied,
        st.failed, st.elements, st.from, st.statements, st.statements)
      if st.failed > 0 then failed = failed + 1 end
    end
    nx:close()
    return failed > 0 and 1 or 0
  end,
}

-- the selection options of export and dump
local SELECTION = { { "--where", value = "a pattern binding ?x" }, { "--domain", value = "a name" },
  { "--page", value = "a number", check = "number" }, { "-o", key = "out", value = "a file" } }

local function export_to(cli, kind, args)
  local transfer = require "kip.transfer"
  local o, extra = cli:parse(args, SELECTION)
  if #extra > 0 then cli:die("%s: unexpected argument %s (kip %s --help)", kind, extra[1], kind) end
  local sel = { where = o.where, domain = o.domain }
  local nx = cli:open_nexus()
  if sel.domain then -- a domain that does not exist exports nothing: say so rather than write an empty file
    local r = nx:execute('FIND(COUNT(?d)) WHERE { ?d {type: "Domain", name: :n} }', { n = sel.domain })
    local n = type(r.result) == "table" and r.result[1] or r.result
    if n == 0 then
      nx:close()
      cli:die("%s --domain %s: no such domain (kip exec 'DESCRIBE DOMAINS' lists them; names are case-sensitive)", kind, sel.domain)
    end
  end
  local sink = o.out and (io.open(o.out, "w") or cli:die("cannot write %s", o.out)) or io.stdout
  local stamp = os.date("!%Y-%m-%dT%H:%M:%SZ")
  if kind == "dump" then
    sink:write(core.json_encode { kipnexus_dump = 1, version = core.version, protocol = "KIP v1.0-RC11", created_at = stamp }, "\n")
  else
    sink:write(("// kipnexus export %s\n"):format(stamp))
  end
  local totals, err = transfer.export(nx, sel, o.page or 5000, function(r)
    if kind == "dump" then
      sink:write(core.json_encode { capsule = r.capsule, concepts = r.concepts, propositions = r.propositions }, "\n")
    else
      sink:write(("// page: %d concepts, %d propositions\n"):format(r.concepts, r.propositions), r.capsule, "\n")
    end
  end)
  if o.out then sink:close() end
  nx:close()
  if not totals then cli:print_error(err) return 1 end
  cli:stderr("%s %d concepts, %d propositions", kind == "dump" and "dumped" or "exported", totals.concepts, totals.propositions)
  return 0
end

commands.export = {
  usage = "export [--domain NAME | --where 'PATTERN binding ?x'] [--page N] [-o FILE]",
  summary = "write the memory (or a part) as capsules",
  help = [[
usage: kip [--db PATH] export [--domain NAME | --where 'PATTERN'] [--page N] [-o FILE]

Writes capsules (UPSERT statements that re-import anywhere) to stdout or FILE,
paged with EXPORT ... LIMIT N CURSOR (default 5000 elements per page):
  --domain NAME     the domain's members, the links among them, their
                    memberships and the Domain node (RC11 §5.3), preceded
                    by the type and predicate definitions they use
  --where 'PATTERN' a WHERE pattern binding ?x, e.g. '?x {type: "Person"}'
  (neither)         every concept (definitions first) and every link
]],
  run = function(cli, args) return export_to(cli, "export", args) end,
}

commands.dump = {
  usage = "dump [selection] [-o FILE.jsonl]", summary = "logical backup as JSON lines (one capsule page per line)",
  help = [[
usage: kip [--db PATH] dump [--domain NAME | --where 'PATTERN'] [--page N] [-o FILE.jsonl]

A logical backup: a header line {"kipnexus_dump": 1, ...}, then one JSON line
per EXPORT page {"capsule": "<UPSERT text>", "concepts": n, "propositions": m}
(the selection options are those of kip export; default: everything).
Restore it into any nexus with kip restore. Ids and _version are not kept
(they are the engine's bookkeeping); kip backup makes an exact copy.
]],
  run = function(cli, args) return export_to(cli, "dump", args) end,
}

commands.restore = {
  usage = "restore FILE.jsonl", summary = "apply a dump",
  help = "usage: kip [--db PATH] restore FILE.jsonl\n\nApplies a kip dump, page by page (idempotent: restoring twice changes nothing).\n",
  run = function(cli, args)
    local _, files = cli:parse(args, {}, { governance = true })
    local file = files[1] or cli:die("restore needs a dump file (kip dump)")
    local nx = cli:open_operator_nexus()
    local n, failed, applied, elements = 0, 0, 0, 0
    for line in io.lines(file) do
      n = n + 1
      local rec, err = core.json_decode(line)
      if type(rec) ~= "table" then
        cli:stderr("%s:%d: not a JSON line: %s", file, n, tostring(err))
        failed = failed + 1
      elseif n == 1 then
        if not rec.kipnexus_dump then cli:die("%s is not a kip dump (no header line)", file) end
      elseif type(rec.capsule) == "string" then
        local st = apply_reporting(cli, nx, rec.capsule, file .. " record " .. n, 1, nil, true)
        failed, applied, elements = failed + st.failed, applied + st.applied, elements + st.elements
      end
    end
    nx:close()
    cli:stderr("%s: %d records, %d statements applied, %d failed, %d elements written", file, n - 1, applied, failed, elements)
    return failed > 0 and 1 or 0
  end,
}

-- the elements of a whole export of nx, ids aside: each CONCEPT or
-- PROPOSITION block of its capsules, a link to a link of the same page
-- (written as its handle, ?p1234, named after an id) written as that link's
-- own (subject, predicate, object) — as the export writes a link of another
-- page —, the remaining handles made neutral, sorted (ids, and so the
-- export's order and pages, are each nexus's own)
local function export_blocks(nx, page)
  local out = {}
  local totals, err = require("kip.transfer").export(nx, {}, page, function(r)
    local blocks, triple, handle = {}, {}, nil
    for line in (r.capsule .. "\n"):gmatch("([^\n]*)\n") do
      local h = line:match("^  PROPOSITION (%?p%d+) {")
      if h or line:match("^  CONCEPT ") then
        blocks[#blocks + 1] = {}
        handle = h
      elseif handle and line:match("^    %(") then
        triple[handle] = line:match("^    (.*)$")
        handle = nil
      end
      if #blocks > 0 and line ~= "}" and line ~= "" then table.insert(blocks[#blocks], line) end
    end
    for _, b in ipairs(blocks) do
      local text = table.concat(b, "\n")
      local head, rest = text:match("^([^\n]*)(.*)$")
      for _ = 1, 64 do -- links about links about links ...
        local replaced = 0
        rest = rest:gsub("%?p%d+", function(ref)
          if triple[ref] then replaced = replaced + 1 end
          return triple[ref]
        end)
        if replaced == 0 then break end
      end
      out[#out + 1] = ((head .. rest):gsub("%?([cp])%d+", "?%1"))
    end
  end)
  if not totals then return nil, err end
  table.sort(out)
  return out
end

commands.migrate = {
  usage = "migrate SOURCE TARGET [--page N]", summary = "move a memory between nexuses (SQLite file <-> PostgreSQL), verified",
  help = [[
usage: kip migrate SOURCE TARGET [--page N]

Copies the memory of nexus SOURCE into nexus TARGET — an SQLite file or a
PostgreSQL URL (postgresql://USER@HOST:PORT/DB?nexus=NAME) on either side —
page by page (N elements per page, default 5000; one transaction each), with
a progress line, then verifies it: both are exported and compared, ids
aside (ids and _version are each nexus's own bookkeeping, as in kip dump).
Run into an empty TARGET. Interrupted, run it again: pages already copied
change nothing (the copy is idempotent), the rest are copied, and the
verification decides. Exit status 1 when the verification finds a difference.
]],
  run = function(cli, args)
    local o, pos = cli:parse(args, { { "--page", value = "a number", check = "number" } }, { governance = true })
    local from, to = pos[1], pos[2]
    if not from or not to then cli:die("migrate needs a SOURCE and a TARGET nexus (kip migrate --help)") end
    if from == to then cli:die("migrate: SOURCE and TARGET are the same nexus") end
    local page = o.page or 5000
    cli.global.db = from
    local src = cli:open_nexus()
    cli.global.db = to
    local dst = cli:open_operator_nexus()
    local tty = cli:isatty(2)
    local n, failed, done = 0, 0, 0
    local totals, err = require("kip.transfer").export(src, {}, page, function(r)
      n = n + 1
      local st = apply_reporting(cli, dst, r.capsule, "page " .. n, 1, nil, true)
      failed = failed + st.failed
      done = done + r.concepts + r.propositions
      if tty then io.stderr:write(("\r  page %d: %d elements copied"):format(n, done)) end
    end)
    if tty then io.stderr:write("\n") end
    if not totals then
      src:close() dst:close()
      cli:print_error(err)
      return 1
    end
    -- verification: both exported again, element by element, ids aside
    local a, aerr = export_blocks(src, page)
    local b, berr = export_blocks(dst, page)
    src:close()
    dst:close()
    if not a or not b then cli:print_error(aerr or berr) return 1 end
    local same = #a == #b
    for i = 1, math.min(#a, #b) do
      if a[i] ~= b[i] then
        same = false
        cli:stderr("migrate: SOURCE and TARGET differ (the target was not empty, or a write landed meanwhile); first:\n%s",
          a[i] < b[i] and a[i] or b[i])
        break
      end
    end
    if same then
      cli:stderr("verified: %d elements, identical apart from ids", #a)
    elseif #a ~= #b then
      cli:stderr("migrate: SOURCE exports %d elements, TARGET %d", #a, #b)
    end
    cli:stderr("migrated %d concepts, %d propositions in %d page(s), %d statement(s) failed%s", totals.concepts,
      totals.propositions, n, failed, same and "" or "; NOT verified")
    return (same and failed == 0) and 0 or 1
  end,
}

commands.backup = {
  usage = "backup FILE", summary = "online copy of the nexus file (writers keep going)",
  help = "usage: kip [--db PATH] backup FILE\n\nCopies the nexus to FILE with SQLite's online backup API; other connections may keep writing.\n",
  run = function(cli, args)
    local _, pos = cli:parse(args, {})
    local file = pos[1] or cli:die("backup needs a destination file")
    local dir = file:match("^(.*)/[^/]*$")
    if dir and dir ~= "" and not io.open(dir .. "/.", "r") and os.execute("test -d '" .. dir:gsub("'", "'\\''") .. "'") ~= true then
      cli:die("backup: the directory %s does not exist; create it first (mkdir -p %s)", dir, dir)
    end
    local nx = cli:open_nexus()
    local tty = cli:isatty(2)
    local ok, err = nx.handle:backup(file, function(done, total)
      if tty then io.stderr:write(("\r  %d/%d pages"):format(done, total)) end
    end)
    if tty then io.stderr:write("\n") end
    nx:close()
    if not ok then cli:stderr("kip: %s", err) return 1 end
    cli:stderr("backed up to %s", file)
    return 0
  end,
}

commands.reindex = {
  usage = "reindex [--vectors] [--all] [--batch N] [-q]",
  summary = "bring the SEARCH index up to date; --vectors builds the\nvectors of semantic/hybrid SEARCH (resumable, with progress)",
  help = [[
usage: kip [--db PATH] [--embedder SPEC] reindex [--vectors] [--all] [--switch-model] [--yes] [--batch N] [-q]

Indexes for SEARCH what bulk loads left unindexed. With --vectors, also
embeds every element waiting for a vector (every element with --all), in
transactions of N elements (default 256), with a progress line on a
terminal. Interrupted, it resumes where it stopped when run again. Prints
the vector status at the end.

  --switch-model  the nexus's vectors were made by another model than the
                  configured embedder's: drop them all and embed every element
                  with the configured one. Asks for confirmation on a terminal
                  (--yes does not ask); never happens without this option
  --batch N       elements per transaction (default 256)
  -q, --quiet     no progress and no status line
]],
  run = function(cli, args)
    local o, extra = cli:parse(args, { { "--vectors" }, { "--all" }, { "--switch-model" }, { "--yes", "-y" }, { "--quiet", "-q" },
      { "--batch", value = "a positive number of elements", check = function(v)
        local n = math.tointeger(tonumber(v))
        if not n or n < 1 then return nil, "a positive number of elements" end
        return n
      end } })
    if #extra > 0 then cli:die("reindex: unexpected argument %s (kip reindex --help)", extra[1]) end
    local nx = cli:open_nexus()
    if nx:readonly() then cli:die("%s is read-only: nothing can be indexed", nx.path) end
    local tty = cli:isatty(2) and not o.quiet
    local function progress(what)
      local t0, last = os.time(), -1
      return function(done, total)
        if not tty then return end
        local now = os.time()
        if now == last and done < total then return end
        last = now
        local dt = math.max(now - t0, 1)
        io.stderr:write(("\r  %s %3d%%  %d/%d elements  %d elements/s   "):format(
          what, total > 0 and done * 100 // total or 100, done, total, done // dt))
        if done >= total then io.stderr:write("\n") end
      end
    end
    local ok, err = nx.handle:sync_index(50000, progress("keyword index"))
    if not ok then nx:close() cli:die("reindex: %s", err) end
    if o.vectors then
      if not nx.embedder then
        local why = nx.embedder_unreachable or "no embedder is configured (--embedder, docs/search.md)"
        nx:close()
        cli:die("reindex --vectors: %s", why)
      end
      local st = o.switch_model and not o.yes and nx:vector_status() -- only a question needs the counts
      if st and st.model ~= "" and not st.embedder_matches then
        local question = ("Drop the %d vectors made by %q and embed every element with the configured embedder? [y/N] "):format(
          st.vectors, st.model)
        if not (cli:isatty(0) and cli:isatty(2)) then
          nx:close()
          cli:die("reindex --switch-model replaces the %d vectors made by %q: confirm with --yes", st.vectors, st.model)
        end
        io.stderr:write(question)
        local answer = io.read("l") or ""
        if not answer:match("^[yY]") then nx:close() cli:stderr("kip: nothing changed") return 1 end
      end
      ok, err = nx:reindex_vectors { all = o.all, switch_model = o.switch_model, batch = o.batch or 256,
        progress = progress("vectors") }
      if not ok then
        nx:close()
        cli:die("reindex --vectors: %s%s", err, tostring(err):find("were made by", 1, true) and "" or " (run it again to resume)")
      end
    end
    local st = nx:vector_status()
    nx:close()
    if not o.quiet then
      if st.model == "" then cli:stderr("vectors: none (kip reindex --vectors builds them)")
      else
        cli:stderr("vectors: %d (model %s, %d dimensions), %d waiting%s", st.vectors, st.model, st.dim, st.pending,
          st.embedder_matches and "" or "; the configured embedder makes another model's vectors")
      end
    end
    return 0
  end,
}

return commands
