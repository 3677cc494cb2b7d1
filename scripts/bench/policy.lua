-- Pipeline overhead benchmark: the same FIND and UPSERT through a Nexus with
-- no policies, with one no-op policy and with five, reporting medians and the
-- overhead per request per policy. Run: scripts/bench/policy [ITERATIONS]
local kip = require "kip"
local N = tonumber(arg and arg[1]) or 3000
local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p " .. dir)
for i = 1, 5 do
  local f = assert(io.open(dir .. "/noop" .. i .. ".lua", "w"))
  f:write(("return kip.policy { name = 'noop%d', pre_check = function(req, ctx) return { state = 'ALLOW' } end,"
    .. " post_check = function(req, resp, ctx) end }"):format(i))
  f:close()
end
local path = dir .. "/bench.db"

local function median(t)
  table.sort(t)
  return t[math.floor((#t + 1) / 2)]
end

local now = os.clock
local FIND = '{"command":"FIND(?p.name) WHERE { ?p {type: \\"Person\\", name: \\"$self\\"} }"}'
local function upsert(i)
  return ('{"command":"UPSERT { CONCEPT ?p { {type: \\"Person\\", name: \\"bench-%d\\"} SET ATTRIBUTES { n: %d } } } '
    .. 'WITH METADATA { source: \\"bench\\", author: \\"bench\\" }"}'):format(i % 50, i)
end

local function run(policies)
  local nx = assert(kip.open { path = path, policies = policies, policy_dirs = { dir } })
  local tf, tu = {}, {}
  for i = 1, N do
    local a = now()
    nx:call_json(FIND)
    tf[i] = now() - a
    a = now()
    nx:call_json(upsert(i))
    tu[i] = now() - a
  end
  nx:close()
  return median(tf) * 1e6, median(tu) * 1e6
end

local f0, u0 = run(nil)
local f1, u1 = run { "noop1" }
local f5, u5 = run { "noop1", "noop2", "noop3", "noop4", "noop5" }
print(("pipeline overhead (%s, %d requests each, median µs per request)"):format(jit and jit.version or _VERSION, N))
print(("%-10s %10s %10s %10s %16s"):format("request", "none", "1 policy", "5 policies", "per policy"))
print(("%-10s %10.1f %10.1f %10.1f %16.1f"):format("FIND", f0, f1, f5, (f5 - f0) / 5))
print(("%-10s %10.1f %10.1f %10.1f %16.1f"):format("UPSERT", u0, u1, u5, (u5 - u0) / 5))
os.execute("rm -rf " .. dir)
