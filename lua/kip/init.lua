-- kip — the Lua host module of kipnexus: the nexus (kip.nexus) with the
-- methods the subsystems register (kip.subsystems: nx:arg, nx:arg_feedback, …).
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

for name, fn in pairs(require("kip.subsystems").methods()) do
  if Nexus[name] == nil then Nexus[name] = fn end
end

return M
