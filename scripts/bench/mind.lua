-- Mind-context benchmark (docs/performance.md "Mind context"): a nexus of N
-- Knowledge items (tiers qi 40% / shu 30% / dao_ren 20% / dao_tian 10%;
-- statuses promoted 40%, canonical 10%, candidate 40%, demoted 5%,
-- retired 5%; 100 worktrees in 20 repos, dao_tian global; 50 fields) with
-- one Evidence each, indexed by kip.mind.ops.reindex, then `kip mind
-- context` for one worktree, without and with a query, R times each:
-- median, mean, p95 and max. Prints the nexus path for the raw-SQL side
-- (scripts/bench/mind runs it on the same file).
-- Run: scripts/bench/mind [N] [R]   (default 10000 items, 50 runs)
local kip = require "kip"
local mind = require "kip.mind"
local ops = require "kip.mind.ops"
local guards = require "kip.mind.guards"
local context = require "kip.mind.context"

local N = tonumber(arg and arg[1]) or 10000
local R = tonumber(arg and arg[2]) or 50
local path = (arg and arg[3]) or (os.tmpname() .. ".db")
local nx = assert(kip.open { path = path, embedder = false, policies = false })
local ctx = { user = "bench", roles = { "operator" } }
nx.ctx = ctx
assert(mind.init(nx))

local TIERS = { "qi", "qi", "qi", "qi", "shu", "shu", "shu", "dao_ren", "dao_ren", "dao_tian" }
local STATUS = { "promoted", "promoted", "promoted", "promoted", "canonical", "candidate", "candidate", "candidate", "candidate" }
local function worktree(i) return ("worktree:/src/repo%d/wt%d"):format(i % 20, i % 100) end
local function repo(i) return ("repo:/src/repo%d"):format(i % 20) end

-- statements of 6 words drawn from a vocabulary of 5 000 made-up words
-- (a query names a few of them, as an agent's question names its topic)
local SYL = { "ka", "lo", "mi", "ne", "su", "ta", "ri", "vo", "pe", "du", "zi", "ha" }
local function word(n)
  local w = ""
  repeat w = w .. SYL[n % #SYL + 1] n = n // #SYL until n == 0
  return w .. "x"
end
local rng = 42
local function rand(n)
  rng = (rng * 1103515245 + 12345) % 2147483648
  return rng % n
end
local function sentence()
  local ws = {}
  for j = 1, 6 do ws[j] = word(rand(5000)) end
  return table.concat(ws, " ")
end

local t0 = os.clock()
local batch = {}
local function flush()
  if #batch == 0 then return end
  local r = nx:execute(table.concat(batch, "\n"), nil, guards.as(nx, ctx))
  assert(not r.error, r.error and r.error.message)
  batch = {}
end
for i = 1, N do
  local tier = TIERS[i % #TIERS + 1]
  local status = i % 20 == 0 and "demoted" or i % 20 == 1 and "retired" or STATUS[i % #STATUS + 1]
  local ak, ai, domain = "worktree", worktree(i), "project"
  if tier == "dao_tian" then ak, ai, domain = "global", "global", "global"
  elseif i % 3 == 0 then ak, ai = "repo", repo(i) end
  local field = "field" .. (i % 50)
  batch[#batch + 1] = ([[UPSERT {
  CONCEPT ?e { {type: "Evidence", name: "ev:%d"} SET ATTRIBUTES { content: "observation %d about %s", domain: "%s", field: "%s",
    provenance: "runtime", anchor_kind: "%s", anchor_id: "%s", recorded_at: "2026-11-01T00:00:00Z", recorded_by: "bench", recorder_kind: "agent" }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } }
  CONCEPT ?k { {type: "Knowledge", name: "kn:%d"} SET ATTRIBUTES { statement: "rule %d of %s: %s", content: "",
    tier: "%s", status: "%s", domain: "%s", field: "%s", anchor_kind: "%s", anchor_id: "%s" }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } }
  PROPOSITION ?s { (?e, "supports", ?k) }
} WITH METADATA { source: "bench", author: "bench" }]]):format(i, i, field, domain, field, ak, ai, i, i, field, sentence(), tier, status, domain, field, ak, ai)
  if #batch >= 200 then flush() end
end
flush()
local loaded = os.clock() - t0
t0 = os.clock()
local st, rerr = ops.reindex(nx, { ctx = ctx })
if not st then error(rerr.code .. " " .. rerr.message, 0) end
io.write(("loaded %d Knowledge + %d Evidence in %.1fs; reindex (%d shelved, %d fields) %.1fs\n"):format(N, N, loaded,
  st.shelved, st.fields, os.clock() - t0))

local here = { worktree = worktree(7), repo = repo(7), global = "global" }
local clock = os.clock -- CPU time of this process (the engine runs in it; no I/O waits on a warm file)
local function measure(label, o)
  local times = {}
  local items = 0
  for r = 1, R do
    local t = clock()
    local out = assert(context.assemble(nx, o))
    times[r] = (clock() - t) * 1000
    if r == 1 then for _, s in ipairs(out.sections) do items = items + #s.items end end
  end
  table.sort(times)
  local sum = 0
  for _, t in ipairs(times) do sum = sum + t end
  io.write(("%-32s items %2d  median %7.2f ms  mean %7.2f  p95 %7.2f  max %7.2f\n"):format(label, items,
    times[math.floor(R / 2) + 1], sum / R, times[math.max(1, math.ceil(R * 0.95))], times[R]))
end
measure("context (no query)", { here = here, ctx = ctx })
measure("context (query, 2 topic words)", { here = here, ctx = ctx, query = word(17) .. " " .. word(4242) })
measure("context (query, every item)", { here = here, ctx = ctx, query = "rule of field7" })
measure("context (inactive too)", { here = here, ctx = ctx, include_inactive = true })
io.write("nexus " .. path .. "\n")
nx:close()
