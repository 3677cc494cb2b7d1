-- kip.nexus — the nexus handle of the Lua host (kip.open, the Nexus
-- methods every subsystem uses) and the host's paths (home, policy
-- directories). Subsystem modules require this one, never the facade
-- `kip` (lua/kip/init.lua), which adds the subsystems' methods on top: no
-- module below the facade requires it back (tests/check_lua_requires.py).
--
-- Works under lua5.4, LuaJIT/OpenResty and inside the `kip` executable.
local core = require "kip.core"
local policy = require "kip.policy"
local pipeline = require "kip.pipeline"
local embedder = require "kip.search.embedder"
local text = require "kip.text"

local M = { core = core, version = core.version, null = core.null, array_mt = core.array_mt,
  pretty = text.pretty, result_text = text.result_text, cap_response = text.cap_response }

--- The constructor policy files return: kip.policy{ name=, priority=, pre_check=, post_check= }.
M.policy = policy.new

-- directory of this file: <home>/lua/kip/
local function here()
  local src = debug.getinfo(1, "S").source
  return (src:sub(1, 1) == "@" and src:sub(2):match("^(.*)/[^/]*$")) or "."
end

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() return true end
  return false
end

-- The kipnexus home (holding lua/, policies/, capsules/).
function M.home()
  if KIP_HOME then return KIP_HOME end
  local h = here():gsub("/?lua/kip$", "")
  return h ~= "" and h or "."
end

local function default_capsule_dir()
  local d = M.home() .. "/capsules/bootstrap"
  if exists(d .. "/MANIFEST") then return d end
  return nil -- the copies embedded in the core
end

local Nexus = {}
Nexus.__index = Nexus

--- Directories searched for policy files: dirs given, then $KIP_POLICY_PATH
--- (colon-separated), then the policies/ folder of each operator extension
--- folder (kip.subsystems), then the built-in <home>/policies.
function M.policy_dirs(dirs)
  local out = {}
  for _, d in ipairs(dirs or {}) do out[#out + 1] = d end
  for d in (os.getenv("KIP_POLICY_PATH") or ""):gmatch("[^:]+") do out[#out + 1] = d end
  for _, d in ipairs(require("kip.subsystems").policy_dirs()) do out[#out + 1] = d end
  out[#out + 1] = M.home() .. "/policies"
  return out
end

--- Open a nexus. opts: path (required), capsule_dir, readonly_file (open the
--- file read-only), busy_timeout_ms, synchronous_full, cache_mb (this
--- connection's page cache in MiB, default 32; bulk loads run faster with
--- more: kip import uses 256), call (default call
--- options: readonly, deadline_ms, max_rows, max_hops), ctx (default caller
--- identity for policies: actor, counterparty, roles, access_scope, channel),
--- policies (list of policy names or paths; none by default in the Lua API —
--- the CLI defaults to {"default"}), policy_dirs (searched first), on_policy_error
--- (function(message) for load errors; default: stderr), embedder (for
--- SEARCH semantic/hybrid: default the local word vectors when installed;
--- false for none; see kip.search.embedder and docs/search.md), extensions
--- (operator extension folders, docs/extending.md; also $KIP_EXTENSIONS).
--- Returns the Nexus, or nil, message, code.
function M.open(opts)
  if type(opts) == "string" then opts = { path = opts } end
  assert(type(opts) == "table" and type(opts.path) == "string", "kip.open{path=...} needs a path")
  require("kip.subsystems").add_dirs(opts.extensions)
  local o = {
    capsule_dir = opts.capsule_dir or default_capsule_dir(),
    readonly = opts.readonly_file or false,
    busy_timeout_ms = opts.busy_timeout_ms,
    synchronous_full = opts.synchronous_full,
    cache_mb = opts.cache_mb,
  }
  local h, err, code = core.open(opts.path, o)
  if not h then return nil, err, code end
  local nx = setmetatable({ handle = h, path = opts.path, defaults = opts.call or {}, ctx = opts.ctx or {},
    policy_log = opts.policy_log }, Nexus) -- false: no decision log beside the file (kip.policy_log)
  local kind, eerr, note = embedder.attach(core, h, opts.embedder)
  if eerr then
    h:close()
    return nil, "embedder: " .. eerr
  end
  nx.embedder = kind
  if note then -- a remote embedder that cannot be reached now: tried again after requests
    nx.embedder_unreachable, nx.embedder_spec = note, opts.embedder or embedder.from_options()
    nx.embed_retry_at = os.time() + embedder.RETRY_SECONDS
  end
  if opts.policies and #opts.policies > 0 then
    -- the subsystems' policies are part of every governed nexus (the mind
    -- model's gates, docs/mind.md; the ARG loop's rules, docs/arg.md); what
    -- the subsystems own is guarded by the core, with or without policies
    nx.policies = M.policy_set(opts.policies, opts)
  end
  return nx
end

--- The policy set of a governed nexus: `names` and the subsystems' own
--- (kip.subsystems; unless opts.mind_policies == false); opts.policy_dirs,
--- opts.on_policy_error as for kip.open.
function M.policy_set(names, opts)
  opts = opts or {}
  local list, have = {}, {}
  for _, n in ipairs(names) do
    list[#list + 1] = n
    have[n] = true
  end
  for _, n in ipairs(require("kip.subsystems").policies()) do
    if not have[n] and opts.mind_policies ~= false then list[#list + 1] = n end
  end
  return policy.set { names = list, dirs = M.policy_dirs(opts.policy_dirs), log = opts.on_policy_error }
end

--- Reload policy files now (they also reload on change, checked at most
--- once per second). Returns a table of load errors by policy name.
function Nexus:reload_policies()
  if not self.policies then return {} end
  self.policies:reload(true)
  return self.policies.errors
end

local function call_opts(self, extra)
  local o = {}
  for k, v in pairs(self.defaults) do o[k] = v end
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

-- the core call options for one call: the nexus defaults, opts, and the
-- policy pipeline's hooks for the caller (ctx merged over the nexus's)
local function governed_opts(self, opts)
  local o = call_opts(self, opts)
  if self.policies then
    local ctx = {}
    for k, v in pairs(self.ctx) do ctx[k] = v end
    for k, v in pairs(o.ctx or {}) do ctx[k] = v end
    o = pipeline.call_options(self, self.policies, ctx, o)
  end
  o.ctx, o.unordered = nil, nil
  return o
end

local NO_EMBEDDER = "no embedder is configured for this nexus; keyword search was used (docs/search.md)"

local function after_call(self, resp)
  local unreachable = self.embedder_unreachable
  if unreachable and resp:find(NO_EMBEDDER, 1, true) then -- say why there is none
    resp = resp:gsub(NO_EMBEDDER:gsub("%p", "%%%0"), (core.json_encode(unreachable):sub(2, -2):gsub("%%", "%%%%")))
  end
  if (self.embedder and self.embedder ~= "local") or unreachable then embedder.drain(self) end
  return resp
end

--- JSON in, JSON out (the fast path for servers). opts: call options and
--- ctx (the caller identity for policies, merged over the nexus default).
function Nexus:call_json(request_text, opts)
  return after_call(self, self.handle:call_json(request_text, governed_opts(self, opts)))
end

--- One command text (and optional parameters as JSON text) without the
--- request envelope: the same response and governance as call_json of
--- {"command": text}, without encoding the text as JSON (bulk loads).
function Nexus:call_command(command_text, params_json, opts)
  return after_call(self, self.handle:call_command(command_text, params_json, governed_opts(self, opts)))
end

--- Request table in, response table out (ids and counters stay exact).
--- opts.unordered: the response's objects do not remember their key order
--- (faster for bulk reads that are never encoded again).
function Nexus:call(request, opts)
  return core.json_decode(self:call_json(core.json_encode(request), opts), opts and opts.unordered)
end

--- Execute one command with optional parameters.
function Nexus:execute(command, params, opts)
  local req = { command = command }
  if params and next(params) ~= nil then req.parameters = params end
  return self:call(req, opts)
end

--- Parse a command; returns the AST table or nil, error table.
--- Run one command; its result, or nil and the error {code, message, hint}
--- (options as for execute). The one way subsystems read and write: a KIP
--- error is a value to handle, never an exception.
function Nexus:query(command, params, opts)
  local r = self:execute(command, params, opts)
  if r.error then return nil, { code = r.error.code, message = r.error.message, hint = r.error.hint } end
  return r.result
end

function Nexus:parse(command, params)
  return M.parse(command, params)
end

function M.parse(command, params)
  local r = core.json_decode(core.parse(command, params and core.json_encode(params) or nil))
  if r.error then return nil, r.error end
  return r.result
end

function Nexus:explain(command, params)
  local r = core.json_decode(core.explain(self.handle, command, params and core.json_encode(params) or nil))
  if r.error then return nil, r.error end
  return r.result
end

--- nil when writable; "requested" (readonly_file) or "not writable" (the
--- file or its directory is not writable: reads work, writes are refused)
--- Vectors: {model=, dim=, vectors=, pending=, embedder_matches=} and the
--- embedder kind ("local", "http", "hook" or nil).
function Nexus:vector_status()
  local st, err = self.handle:vector_status()
  if st then st.embedder = self.embedder end
  return st, err
end

--- Build the vectors SEARCH semantic/hybrid need: embeds every queued
--- element (every element with all = true), in transactions of `batch`;
--- progress(done, total). Resumable: a second call continues with what is
--- left. When the nexus's vectors were made by another model, nothing
--- happens without switch_model = true (the explicit model change: every
--- vector is dropped and remade by the configured embedder).
function Nexus:reindex_vectors(opts)
  opts = opts or {}
  if not self.embedder then
    return nil, self.embedder_unreachable or "no embedder is configured (docs/search.md)"
  end
  local st = self.handle:vector_status()
  local other_model = st and st.model ~= "" and not st.embedder_matches
  -- another model's vectors without switch_model: embed_pending refuses, naming both
  if (other_model and opts.switch_model) or (opts.all and not other_model) then
    local ok, err = self.handle:reset_vectors()
    if not ok then return nil, err end
  end
  return self.handle:embed_pending(opts.batch or 256, opts.progress)
end

--- Vectors of texts from the nexus's embedder (unit length).
function Nexus:embed(texts) return self.handle:embed(texts) end

--- Check the vector index against the graph (re-embeds every element):
--- {checked=, problems=, first=}.
function Nexus:verify_vectors() return self.handle:verify_vectors() end

function Nexus:readonly() return self.handle:readonly() end

function Nexus:close() self.handle:close() end
Nexus.__close = Nexus.close
Nexus.__gc = Nexus.close
function Nexus:__tostring() return "kip.Nexus(" .. self.path .. ")" end

M.Nexus = Nexus
return M
