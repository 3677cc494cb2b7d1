-- prints the ARG ontology state of a nexus as JSON: the current version, the
-- content hash of what the online loop reads, and the hash recorded for
-- that version (tests/e2e_arg_offline.py). Usage: kip run state.lua DB
local kip = require "kip"
local core = require "kip.core"
local nx = assert(kip.open { path = (...), embedder = false })
local snap = require "kip.arg.snapshot"
local m = assert(snap.get(nx))
local rec = require("kip.arg.offline.publish").version_record(nx, m.version)
local pending = require("kip.arg.offline").candidates(nx, { status = "approved" })
print(core.json_encode { version = m.version, content_hash = m.content_hash, recorded_hash = rec and rec.content_hash or core.null,
  approved = #pending })
nx:close()
