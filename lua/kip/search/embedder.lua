--- Embedders for SEARCH MODE "semantic" | "hybrid" (docs/search.md): turns
--- the `embedder` option of kip.open (or the CLI's --embedder) into the
--- nexus's embedder, and keeps a remote embedder's queue moving.
---
---   nil            $KIP_EMBEDDER (and friends, see from_options) when set, else "auto"
---   "auto"         the local embedder when its word vectors are installed, else none
---   "local"        the local embedder (word vectors, no network); an error when missing
---   false | "none" no embedder: semantic and hybrid answer by keyword, with a warning
---   { url=, model=, key_env=, dim=, timeout_ms= }   an OpenAI-compatible /v1/embeddings endpoint
---   { model=, dim=, embed=function(texts) -> vectors | nil, message }   any other (a hook)
---   "FILE.lua"     a Lua file returning either table
---   "FILE.kvec"    the local embedder with these word vectors
---
--- Elements changed while a remote embedder or a hook is configured are
--- queued in the nexus and embedded after each request (drain); after a
--- failure the queue waits RETRY_SECONDS before trying again, so a service
--- that is down never slows every write.
local M = {}

M.RETRY_SECONDS = 30
M.DRAIN_BATCH = 256

local function exists(path)
  local f = path and io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

--- The word vectors file of the local embedder: KIP_EMBEDDINGS, the build
--- tree's, or the installed copy beside the kipnexus home; nil when there
--- is none.
function M.local_path(core)
  local env = os.getenv("KIP_EMBEDDINGS")
  if env and env ~= "" then return env end
  if exists(core.default_embeddings) then return core.default_embeddings end
  local ok, kip = pcall(require, "kip")
  local installed = ok and type(kip) == "table" and kip.home and (kip.home() .. "/models/wink-sg-100d.kvec")
  if installed and exists(installed) then return installed end
end

-- An embedder file (or a table with embed) is an extension of kind
-- "embedder" (kip.extension): loaded sandboxed; its embed(texts) runs under
-- the embedder budget. A file may also return a service's settings ({url=,
-- model=, …}) for the OpenAI-compatible client.
local extension = require "kip.extension"
extension.kind("embedder", {
  check = function(spec)
    if type(spec) ~= "table" then return nil, "an embedder file must return an embedder table" end
    if spec.embed ~= nil and type(spec.embed) ~= "function" then return nil, "embed must be a function" end
    return spec
  end,
})

local function from_file(path)
  local ext, err = extension.load("embedder", path)
  if not ext then return nil, err end
  local spec = {}
  for k, v in pairs(ext) do
    if k ~= "embed" and k ~= "__extension" and k ~= "kind" and k ~= "path" and k ~= "source" and k ~= "checked" then spec[k] = v end
  end
  if ext.embed then spec.embed = extension.bind(ext, "embed") end
  return spec
end

--- The embedder spec of front ends (CLI, MCP, nginx) from options
--- {spec=, model=, key_env=, dim=} over the environment: KIP_EMBEDDER (local |
--- none | URL | FILE.lua), KIP_EMBEDDER_MODEL, KIP_EMBEDDER_KEY_ENV,
--- KIP_EMBEDDER_DIM. nil means the default (auto).
function M.from_options(o)
  o = o or {}
  local function env(k)
    local v = os.getenv(k)
    return v ~= "" and v or nil
  end
  local spec = o.spec or env("KIP_EMBEDDER")
  if not spec then return nil end
  if spec:match("^https?://") then
    return { url = spec, model = o.model or env("KIP_EMBEDDER_MODEL"), key_env = o.key_env or env("KIP_EMBEDDER_KEY_ENV"),
             dim = tonumber(o.dim or env("KIP_EMBEDDER_DIM") or "") }
  end
  return spec
end

--- Attach the embedder `spec` to a core handle. Returns the attached kind
--- ("local", "http", "hook" or nil for none), or nil, message; or nil, nil,
--- note when a remote embedder whose dimension the nexus does not know yet
--- cannot be reached (the nexus opens without it; M.drain tries again).
function M.attach(core, handle, spec)
  if spec == nil then spec = M.from_options() end -- the environment (KIP_EMBEDDER...)
  if spec == nil or spec == "auto" then
    local path = M.local_path(core)
    if not path then return nil end
    local ok, err = handle:set_embedder("local", path)
    if not ok then return nil, err end
    return "local"
  end
  if spec == false or spec == "none" then return nil end
  if spec == "local" then
    local ok, err = handle:set_embedder("local", M.local_path(core) or core.default_embeddings)
    if not ok then return nil, err end
    return "local"
  end
  if type(spec) == "string" and spec:match("%.kvec$") then -- word vectors of the local embedder
    local ok, err = handle:set_embedder("local", spec)
    if not ok then return nil, err end
    return "local"
  end
  if type(spec) == "string" then
    if spec:match("^https?://") then spec = { url = spec } else
      local t, err = from_file(spec)
      if not t then return nil, err end
      spec = t
    end
  end
  if type(spec) ~= "table" then return nil, "embedder: expected \"local\", \"none\", a URL, a file or a table" end
  if spec.url then
    if not spec.dim then -- known from the nexus's vectors: no need to reach the service now
      local st = handle:vector_status()
      if st and st.model == spec.model and st.dim > 0 then
        spec = setmetatable({ dim = st.dim }, { __index = spec })
      end
    end
    local ok, err = handle:set_embedder("http", spec)
    if not ok and tostring(err):find("cannot reach the embedder", 1, true) then
      -- opening never depends on the service: without it the nexus works
      -- as one without an embedder (changed elements stay queued for their
      -- vectors) and tries again after RETRY_SECONDS (M.drain)
      return nil, nil, ("the embedder %s is unreachable (%s); semantic and hybrid SEARCH use keyword search "
        .. "until it answers (or give its dimension: --embedder-dim N, $KIP_EMBEDDER_DIM)"):format(spec.url,
        tostring(err):gsub("^.-learn its dimension: ", ""))
    end
    if not ok then return nil, err end
    return "http"
  end
  local ok, err = handle:set_embedder(spec)
  if not ok then return nil, err end
  return "hook"
end

--- Embed what the nexus queued for an after-commit embedder (a bounded
--- batch per call; backs off after a failure).
function M.drain(nx)
  local now = os.time()
  if nx.embed_retry_at and now < nx.embed_retry_at then return end
  if nx.embedder_unreachable then -- opened without it: try to attach it again
    local kind, err, note = M.attach(require "kip.core", nx.handle, nx.embedder_spec)
    if not kind then
      nx.embedder_unreachable = note or err
      nx.embed_retry_at = now + M.RETRY_SECONDS
      return
    end
    nx.embedder, nx.embedder_unreachable = kind, nil
  end
  -- fails (and waits) too while the nexus's vectors are another model's:
  -- they are replaced only by an explicit switch (kip reindex --vectors --switch-model)
  local ok = nx.handle:embed_pending(M.DRAIN_BATCH)
  nx.embed_retry_at = not ok and now + M.RETRY_SECONDS or nil
end

return M
