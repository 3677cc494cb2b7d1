--- kip.sleep.timer — scheduled sleep cycles (SystemInstructions.md "Sleep
--- Cycle Triggers"; docs/sleep.md "Scheduling").
---
--- A lease in the nexus makes sure only one process or nginx worker runs a
--- cycle at a time: the concept {type: "SleepCycle", name: "SleepCycle:lock"}
--- holds {holder, until}; taking it is a compare-and-set under EXPECT VERSION
--- (KIP_3005 for everyone but the winner), and a lease that outlived its
--- `until` (a crashed holder) can be taken over. The lease also records when
--- the last cycle started (`started_s`): a scheduled tick that comes less
--- than `every` seconds after it does not run, so N workers whose timers
--- tick at slightly different moments run one cycle per period, not N.
---
---   -- nginx.conf (OpenResty): one worker wins each tick
---   init_worker_by_lua_block {
---     require("kip.sleep.timer").start { db = "/var/lib/kip/nexus.db", every = 3600, if_needed = true }
---   }
---
---   -- any Lua host
---   local timer = require "kip.sleep.timer"
---   local report, why = timer.run_once(nx, { if_needed = true })
local sleep = require "kip.sleep"
local cycle = require "kip.sleep.cycle"
local finalize = require "kip.sleep.phases.finalize"

local M = {}

M.LOCK = "SleepCycle:lock"
M.LEASE_SECONDS = 3600

local function holder_id()
  local pid = ngx and ngx.worker and ngx.worker.pid and ngx.worker.pid() or nil
  return ("%s:%s:%d"):format(pid and "nginx" or "lua", tostring(pid or tostring({}):match("0x%x+") or "?"), os.time())
end

--- Take the lease; returns the holder id and the second it started (the
--- `started_s` it recorded), or nil, why. With `every` (seconds), also
--- refuses while the last cycle started less than `every` seconds ago.
function M.acquire(nx, holder, seconds, every)
  local c = cycle.new(nx, {})
  finalize.ensure_type(c)
  c:write([[UPSERT { CONCEPT ?l { {type: "SleepCycle", name: :n} SET ATTRIBUTES { lease: true }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) } } }
WITH METADATA { source: "SleepCycle", author: "$system" }]], { n = M.LOCK }, "lease")
  local rows = c:read("FIND(?l.attributes, ?l.metadata._version) WHERE { ?l {type: \"SleepCycle\", name: :n} }", { n = M.LOCK })
  local attrs, version = rows[1] and rows[1][1] or {}, rows[2] and rows[2][1]
  local now = os.time()
  if type(attrs.until_s) == "number" and attrs.until_s > now and attrs.holder and attrs.holder ~= "" then
    return nil, "another cycle holds the lease (" .. tostring(attrs.holder) .. ")"
  end
  local since = type(attrs.started_s) == "number" and now - attrs.started_s
  if every and since and since >= 0 and since < every then
    return nil, ("the last cycle started %d s ago, less than every = %s s (lease)"):format(since, tostring(every))
  end
  holder = holder or holder_id()
  local r = nx:execute([[UPSERT { CONCEPT ?l { {type: "SleepCycle", name: :n} EXPECT VERSION :v
  SET ATTRIBUTES { holder: :h, until_s: :u, until: :ui, started_s: :s } } }]],
    { n = M.LOCK, v = version, h = holder, s = now,
      u = now + (seconds or M.LEASE_SECONDS), ui = cycle.iso(now + (seconds or M.LEASE_SECONDS)) },
    { ctx = { actor = "$system", channel = "sleep" } })
  if r.error then return nil, r.error.code == "KIP_3005" and "another process took the lease first" or r.error.message end
  return holder, now
end

--- Give the lease back (only its holder can).
function M.release(nx, holder)
  local r = nx:execute("FIND(?l.attributes.holder, ?l.metadata._version) WHERE { ?l {type: \"SleepCycle\", name: :n} }",
    { n = M.LOCK }, { ctx = { actor = "$system" } })
  if r.error or not r.result[1] or r.result[1][1] ~= holder then return false end
  r = nx:execute([[UPSERT { CONCEPT ?l { {type: "SleepCycle", name: :n} EXPECT VERSION :v
  SET ATTRIBUTES { holder: "", until_s: 0, until: "" } } }]], { n = M.LOCK, v = r.result[2][1] },
    { ctx = { actor = "$system", channel = "sleep" } })
  return not r.error
end

--- One scheduled tick: take the lease, run a cycle (only when a health
--- threshold is crossed if opts.if_needed), give the lease back. Returns the
--- report, or nil and why nothing ran. opts.every (seconds): skip the tick
--- when the last cycle started less than that long ago.
function M.run_once(nx, opts)
  opts = opts or {}
  local holder, why = M.acquire(nx, nil, opts.lease_seconds, opts.every)
  if not holder then return nil, why end
  local started = why
  local ok, report = pcall(function()
    local o = {}
    for k, v in pairs(opts) do o[k] = v end
    o.trigger = o.trigger or "scheduled"
    -- the cycle's clock is the lease's: `every` counts from the second the
    -- log records (a cycle made a moment later, in the next second, and
    -- the next tick's, both recorded that second)
    o.now = o.now or cycle.iso(started)
    if o.if_needed then
      local needed, reasons = sleep.check(nx, o)
      if not needed then return nil end
      o.trigger = "threshold: " .. table.concat(reasons, ", ")
    end
    return sleep.run(nx, o)
  end)
  M.release(nx, holder)
  if not ok then return nil, tostring(report) end
  if not report then return nil, "not needed (no health threshold crossed)" end
  return report
end

--- OpenResty: a timer in every worker; the lease lets one of them run each
--- tick. opts: db (path), every (seconds, default 3600), if_needed,
--- policies, log (function(message); default ngx.log).
function M.start(opts)
  assert(ngx and ngx.timer, "kip.sleep.timer.start runs inside OpenResty (init_worker_by_lua)")
  local given = opts
  opts = { every = 3600 }
  for k, v in pairs(given) do opts[k] = v end
  local kip = require "kip.nexus"
  local log = opts.log or function(msg) ngx.log(ngx.NOTICE, msg) end
  local function tick(premature)
    if premature then return end
    local nx, err = kip.open { path = opts.db, policies = opts.policies }
    if not nx then return log("kip sleep: cannot open " .. tostring(opts.db) .. ": " .. tostring(err)) end
    local report, why = M.run_once(nx, opts)
    nx:close()
    if report then
      log(("kip sleep: cycle %s: %d writes, %d flagged"):format(report.now, report.writes or 0, #(report.flagged or {})))
    elseif why and not why:find("lease") and not why:find("not needed") then
      log("kip sleep: " .. why)
    end
  end
  return ngx.timer.every(opts.every, tick)
end

return M
