-- Shared helpers of the busted specs (loaded with dofile; not a spec itself).
local H = {}

--- A fresh database path in the temp directory; with $KIP_TEST_PG (a
--- server's URL: tests/pg_specs.py) a fresh nexus on that server instead.
function H.tmpdb(ext)
  local p = os.tmpname()
  os.remove(p)
  local server = os.getenv("KIP_TEST_PG")
  if server and server ~= "" and not ext then
    return server .. "?nexus=s" .. p:gsub("[^%w]", ""):lower()
  end
  return p .. (ext or ".db")
end

--- Whether the specs run on a PostgreSQL server ($KIP_TEST_PG).
function H.postgresql() return (os.getenv("KIP_TEST_PG") or "") ~= "" end

--- Remove a database file and its companions (WAL, SHM, the policy decision
--- log); a nexus on a server goes with the server.
function H.cleanup(p)
  if p:match("^postgres") then return end
  for _, s in ipairs { "", "-wal", "-shm", "-policy.log", "-policy.log.1" } do os.remove(p .. s) end
end

--- The source tree (holding capsules/, policies/).
function H.home()
  local src = debug.getinfo(1, "S").source:sub(2)
  return src:match("^(.*)/spec/[^/]+$") or "."
end

--- Register (with busted's before_each / after_each, passed in: they live in
--- the spec's environment) hooks that open a fresh nexus (kip.open with opts,
--- path added) and close and remove it; returns a function that gives the
--- current nexus.
function H.fresh_nexus(before_each, after_each, opts)
  local kip = require "kip"
  local path, nx
  before_each(function()
    path = H.tmpdb()
    local o = { path = path }
    for k, v in pairs(opts or {}) do o[k] = v end
    nx = assert(kip.open(o))
  end)
  after_each(function()
    nx:close()
    H.cleanup(path)
  end)
  return function() return nx end
end

--- A nexus at a fresh path (the default policy, no embedder) with the ARG
--- ontology of `file` published as version 1; returns it and a function that
--- closes it and removes its files.
function H.arg_nexus(file)
  local path = H.tmpdb()
  local nx = assert(require("kip").open { path = path, policies = { "default" }, embedder = false })
  assert(require("kip.arg").init(nx, { ontology = file }))
  return nx, function()
    nx:close()
    H.cleanup(path)
  end
end

return H
