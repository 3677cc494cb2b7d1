-- Retrieval evaluation (docs/search.md, docs/performance.md): the requests of
-- an ARG prompts file as SEARCH queries against the ontology's ArgNode
-- chunks; recall@K of each request's must_include_nodes, for keyword,
-- semantic and hybrid modes side by side.
-- Run: scripts/bench/search [--prompts FILE] [--ontology FILE] [--k 5] [--show]
local kip = require "kip"
local core = require "kip.core"

local opts = { prompts = "../shared/arg/prompts.jsonl", ontology = "../shared/arg/ontology.kip", k = 5 }
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
local f = assert(io.open(opts.ontology))
local text = f:read("a")
f:close()
local ok, err = require("kip.transfer").apply(nx, text)
assert(ok, err)

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
nx:close()
os.execute("rm -rf " .. dir)
print(("requests: %d (those listing must_include_nodes), recall@%d"):format(#requests, opts.k))
for _, m in ipairs(modes) do print(("  %-9s %.3f"):format(m, sums[m] / #requests)) end
