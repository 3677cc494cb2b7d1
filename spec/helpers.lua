-- Shared helpers of the busted specs (loaded with dofile; not a spec itself).
local H = {}

--- A fresh database path in the temp directory.
function H.tmpdb(ext)
  local p = os.tmpname()
  os.remove(p)
  return p .. (ext or ".db")
end

--- Remove a database file and its WAL/SHM companions.
function H.cleanup(p)
  for _, s in ipairs { "", "-wal", "-shm" } do os.remove(p .. s) end
end

--- The source tree (holding capsules/, policies/).
function H.home()
  local src = debug.getinfo(1, "S").source:sub(2)
  return src:match("^(.*)/spec/[^/]+$") or "."
end

return H
