-- Retrieval evaluation (docs/search.md, docs/performance.md): the requests of
-- an ARG prompts file as SEARCH queries against the ontology's ArgNode
-- chunks; recall@K of each request's must_include_nodes, for keyword,
-- semantic and hybrid modes side by side.
-- Run: scripts/bench/search [--prompts FILE] [--ontology FILE] [--k 5] [--show]
local kip = require "kip"
local core = require "kip.core"

local shared = os.getenv("KIP_SHARED") or "../shared"
local opts = { prompts = shared .. "/arg/prompts.jsonl", ontology = shared .. "/arg/ontology.kip", k = 5 }
local i = 1
while arg and arg[i] do
  local a = arg[i]
  if a == "--show" then opts.show = true
  elseif a:match("^%-%-") then opts[a:sub(3)] = arg[i + 1]; i = i + 1
  else error("unknown argument " .. a) end
  i = i + 1
end
opts.k = tonumber(opts.k)

local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p " .. dir)
local path = dir .. "/eval.db"
local nx = assert(kip.open { path = path })
-- the ARG schema and the ontology, as `kip arg init --ontology` applies them
assert(require("kip.arg").init(nx, { ontology = opts.ontology }))

local requests = {}
for line in io.lines(opts.prompts) do
  local p = core.json_decode(line)
  if p.expect and p.expect.must_include_nodes and #p.expect.must_include_nodes > 0 then requests[#requests + 1] = p end
end

local modes = { "keyword", "semantic", "hybrid" }
local sums, warned = {}, {}
for _, m in ipairs(modes) do sums[m] = 0 end
for _, p in ipairs(requests) do
  local line = {}
  for _, m in ipairs(modes) do
    local res = nx:execute(('SEARCH CONCEPT :q WITH TYPE "ArgNode" MODE "%s" LIMIT %d'):format(m, opts.k), { q = p.prompt })
    if res.error then error(m .. ": " .. res.error.message) end
    if res.warnings and not warned[m] then
      warned[m] = true
      io.stderr:write(m, ": ", tostring(res.warnings[1]), "\n")
    end
    local got = {}
    for _, e in ipairs(res.result or {}) do got[e.name] = true end
    local hit = 0
    for _, n in ipairs(p.expect.must_include_nodes) do hit = hit + (got[n] and 1 or 0) end
    local rec = hit / #p.expect.must_include_nodes
    sums[m] = sums[m] + rec
    line[#line + 1] = ("%s %.2f"):format(m:sub(1, 3), rec)
  end
  if opts.show then print(p.id, table.concat(line, "  "), table.concat(p.tags or {}, ","), p.prompt) end
end
-- what THRESHOLD t keeps in each mode (the shared score scale, docs/search.md
-- "Scores"): of the top 10 without a threshold, the share of relevant hits
-- whose score is >= t and the share of other hits whose score is >= t
local TS = { 0.1, 0.2, 0.3, 0.5 }
local kept = {}
for _, m in ipairs(modes) do
  kept[m] = {}
  for _, t in ipairs(TS) do kept[m][t] = { rel = 0, rel_n = 0, other = 0, other_n = 0 } end
  for _, p in ipairs(requests) do
    local res = nx:execute(('SEARCH CONCEPT :q WITH TYPE "ArgNode" MODE "%s" LIMIT 10'):format(m), { q = p.prompt })
    local want = {}
    for _, n in ipairs(p.expect.must_include_nodes) do want[n] = true end
    for _, e in ipairs(res.result or {}) do
      local sc = e.metadata._score
      for _, t in ipairs(TS) do
        local k = kept[m][t]
        if want[e.name] then k.rel_n = k.rel_n + 1; if sc >= t then k.rel = k.rel + 1 end
        else k.other_n = k.other_n + 1; if sc >= t then k.other = k.other + 1 end end
      end
    end
  end
end
nx:close()
os.execute("rm -rf " .. dir)
print(("requests: %d (those listing must_include_nodes), recall@%d"):format(#requests, opts.k))
for _, m in ipairs(modes) do print(("  %-9s %.3f"):format(m, sums[m] / #requests)) end
print("THRESHOLD t keeps, of the top 10: relevant hits / other hits")
local head = { "  t    " }
for _, m in ipairs(modes) do head[#head + 1] = ("%-18s"):format(m) end
print(table.concat(head))
for _, t in ipairs(TS) do
  local row = { ("  %.1f  "):format(t) }
  for _, m in ipairs(modes) do
    local k = kept[m][t]
    row[#row + 1] = ("%.2f / %.2f       "):format(k.rel / math.max(k.rel_n, 1), k.other / math.max(k.other_n, 1))
  end
  print(table.concat(row))
end
