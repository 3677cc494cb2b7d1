-- docs/examples/hello.lua — a first script for `kip run` (README "The CLI"):
-- `require "kip"` needs no path; the global KIP_DB holds the --db path.
local kip = require "kip"
local nx = assert(kip.open { path = KIP_DB or os.getenv("KIP_DB") or "hello.db" })
local r = nx:execute('FIND(?t.name) WHERE { ?t {type: "$ConceptType"} } ORDER BY ?t.name LIMIT 5')
for _, name in ipairs(r.result) do print(name) end
nx:close()
