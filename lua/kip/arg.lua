--- kip.arg — the ARG subsystem's entry (seed 003 ARG Core; docs/arg.md):
--- the online loop (kip.arg.loop: run, decide, configure, result …), and
--- init, feedback and replay over it. Modules inside the subsystem require
--- the part they use, never this one, so none requires it back.
---
---   local arg = require "kip.arg"
---   arg.init(nx, { ontology = "ontology.kip" })          -- once (kip arg init)
---   local r = arg.run(nx, { prompt = "how do I get a copy of an old invoice?", context = { channel = "email" } },
---                     { ctx = { roles = { "ROLE" }, tenant = "acme", user = "dana@acme.example" } })
---   r.outcome, r.weaver.primary, r.bundle, r.episode_id
local loop = require "kip.arg.loop"
local registry = require "kip.arg.registry"
local replay = require "kip.arg.replay"

-- the loop's fields are this module's (an assignment reaches the loop: an
-- operator's M.STEPS change is the loop's)
local M = setmetatable({}, { __index = loop, __newindex = loop })

--- record a verification signal for an episode later (step 9: the only way
--- to INFO_CONFIRMED_SUCCESS); see kip.arg.registry
function M.feedback(nx, episode_id, fb, opts) return registry.feedback(nx, episode_id, fb, opts) end
function M.init(nx, opts) return registry.init(nx, opts) end
function M.replay(nx, episode_id, opts) return replay.episode(nx, episode_id, opts) end

return M
