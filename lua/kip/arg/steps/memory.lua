--- kip.arg.steps.memory — step 10 of seed 003, MemoryWrite: the episode and
--- its Info Registry entry, written by kip.arg.registry in one transaction
--- after the post-check (docs/arg.md "Episodic registry").
local registry = require "kip.arg.registry"

local M = {}

function M.run(st) registry.record(st) end

return M
