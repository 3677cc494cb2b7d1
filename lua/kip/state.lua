--- kip.state — each subsystem's state of a nexus in its own object, not in
--- fields of the Nexus (DESIGN.md §7): state.of(nx, "arg") is the ARG
--- subsystem's table for nx (configuration, caches), created on first use
--- and dropped with the nexus.
---
---   local st = require("kip.state").of(nx, "sleep")
---   st.epochs = st.epochs or {}
local M = {}

local by_nexus = setmetatable({}, { __mode = "k" })

function M.of(nx, subsystem)
  nx = rawget(nx, "__proxy_of") or nx -- a view of a nexus (sleep's governed one) shares its state
  local t = by_nexus[nx]
  if not t then
    t = {}
    by_nexus[nx] = t
  end
  local s = t[subsystem]
  if not s then
    s = {}
    t[subsystem] = s
  end
  return s
end

--- forget every subsystem's state of nx (the nexus closed or was reopened)
function M.drop(nx) by_nexus[nx] = nil end

return M
