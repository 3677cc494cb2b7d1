-- Driver of tests/e2e_arg_route_llm.py: one ARG request whose route is close
-- enough to ask the route hook (the weaver's thresholds are raised so every
-- request is a low margin, as spec/arg_spec.lua does), with the hook the
-- environment configures (KIP_ARG_ROUTE_URL ...). Prints the result as JSON.
-- Usage: kip --db DB run route_llm_driver.lua ask PROMPT | replay EPISODE_ID
local kip = require "kip"
local arg = require "kip.arg"
local core = require "kip.core"
local weaver = require "kip.arg.steps.weaver"
weaver.WEAK, weaver.LOW_MARGIN = 1000, 1
local nx = assert(kip.open { path = KIP_DB })
local what, text = ...
local ctx = { roles = { "pet_owner" }, tenant = "rivera", user = "ana@rivera.example" } -- tests/arg/clinic
local r, err
if what == "replay" then r, err = arg.replay(nx, text, { ctx = ctx })
else r, err = arg.run(nx, { prompt = text }, { ctx = ctx }) end
local w = r and r.weaver or {}
print(core.json_encode({ outcome = r and r.outcome, error = err, errors = r and r.errors, hook = w.hook, flags = w.flags,
  primary = w.primary_label, episode = r and r.episode_id, reproduced = r and r.reproduced,
  hook_ms = r and r.timings and r.timings.route_hook }))
