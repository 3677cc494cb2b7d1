-- kip — the Lua host module of kipnexus: the nexus (kip.nexus) with the
-- subsystems' methods on it.
--
--   local kip = require "kip"
--   local nx = assert(kip.open{ path = "memory.db" })
--   local resp = nx:execute('FIND(?t.name) WHERE { ?t {type: "$ConceptType"} }')
--   print(resp.result[1])
--   nx:close()
--
-- Works under lua5.4, LuaJIT/OpenResty and inside the `kip` executable.
local M = require "kip.nexus"
local Nexus = M.Nexus

--- The ARG online loop (docs/arg.md): nx:arg{prompt=, context={role=, …}} →
--- ArgResult (outcome, route, bundle, episode_id), or nil, error.
function Nexus:arg(request, opts) return require("kip.arg").run(self, request, opts) end

--- A verification signal for an ARG episode: {verified = true|false, note = …}.
function Nexus:arg_feedback(episode_id, feedback, opts) return require("kip.arg").feedback(self, episode_id, feedback, opts) end

return M
