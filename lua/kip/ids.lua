--- kip.ids — unique names for records the host writes (mind evidence and
--- knowledge, ARG episodes): the time of recording and a suffix in the
--- letters a-p only (a run of digits in a name could look like a card
--- number to the secret filter): a process-wide random part from
--- /dev/urandom, then a sequence — unique across processes that start in
--- the same second, ordered within one.
local M = {}

local seq = 0
local nonce

local function letters(hex) return (hex:gsub("%x", function(h) return string.char(97 + tonumber(h, 16)) end)) end

--- hex text in the letters a-p (for names built from hashes)
M.letters = letters

local function process_nonce()
  if nonce then return nonce end
  local f = io.open("/dev/urandom", "rb")
  local bytes = f and f:read(5) or tostring({}) .. tostring(os.clock())
  if f then f:close() end
  nonce = letters((bytes:gsub(".", function(c) return ("%02x"):format(c:byte()) end)):sub(1, 10))
  return nonce
end

--- the current UTC time (ISO-8601) and a fresh unique suffix
function M.stamp()
  seq = seq + 1
  return os.date("!%Y-%m-%dT%H:%M:%SZ"), process_nonce() .. letters(("%04x"):format(seq % 0x10000))
end

return M
