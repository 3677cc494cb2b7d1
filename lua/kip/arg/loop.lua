--- kip.arg.loop — the ARG online loop (seed 003 ARG Core, steps 1-10, §4.1,
--- Annex 7; docs/arg.md): a request and its structured context in, an
--- explicit outcome out — ANSWER, ACTION, CLARIFY, ABSTAIN, REFUSE or
--- REFOCUS — with the PolicyDecision, WeaverOutput, BindResult,
--- TraversalResult, FinalContextBundle, ActionResult, Info status, flags and
--- the episode recorded for replay.
---
---   local arg = require "kip.arg"
---   arg.init(nx, { ontology = "ontology.kip" })          -- once (kip arg init)
---   local r = arg.run(nx, { prompt = "how do I get a copy of an old invoice?", context = { channel = "email" } },
---                     { ctx = { roles = { "ROLE" }, tenant = "acme", user = "dana@acme.example" } })
---   r.outcome, r.weaver.primary, r.bundle, r.episode_id
---
--- Who asks is the authenticated caller (opts.ctx, else the Nexus's ctx:
--- roles, tenant, user), never the request body (kip.arg.identity). The
--- steps are a table of replaceable modules (M.STEPS): an operator swaps one
--- by naming a Lua module (arg.configure(nx, {steps = {weaver = "my.weaver"}})).
--- Every step reads the pinned snapshot and the state the steps before it
--- left; the post-check sees the whole decision before the action runs and
--- before anything is emitted or written; only the memory step writes, and
--- only episodic records.
local snapshot = require "kip.arg.snapshot"
local analysis = require "kip.arg.analysis"
local identity = require "kip.arg.identity"
local tenancy = require "kip.arg.tenancy"
local guards = require "kip.arg.guards"
local result = require "kip.arg.result"
local extension = require "kip.extension"
local state = require "kip.state"

local M = {}

M.STEPS = {
  { "policy", "kip.arg.steps.policy" },         -- 1 Policy Pre-Check
  { "candidates", "kip.arg.steps.candidates" }, -- 2 initial classification
  { "weaver", "kip.arg.steps.weaver" },         -- 3 Context Weaver
  { "bind", "kip.arg.steps.bind" },             -- 4 landing point, action vs info
  { "traverse", "kip.arg.steps.traverse" },     -- 5-7 neighbours, fast path, traversal
  { "info", "kip.arg.steps.info" },             -- 9 Info: connectors, the final bundle
  { "check", "kip.arg.steps.check" },           -- Policy Post-Check over the whole decision
  { "action", "kip.arg.steps.action" },         -- 8 Action (and its post-execution check)
  { "memory", "kip.arg.steps.memory" },         -- 10 MemoryWrite (episodic registry)
}

M.MAX_PROMPT_BYTES = 16384

M.OUTCOMES = { ANSWER = true, ACTION = true, CLARIFY = true, ABSTAIN = true, REFUSE = true, REFOCUS = true }

M.LIMITS = {
  candidates = 10,            -- candidate labels logged (raw and filtered)
  max_units = 8,              -- bundle units
  token_budget = 700,         -- bundle tokens (about 1.3 per word)
  per_intent = 3,             -- units per secondary intent label
  max_depth = 2,              -- traversal hops over movement edges
  min_neighbor_score = 0.8,   -- a neighbour enters the bundle from this score
  fast_path_confidence = 0.5, -- routing confidence for the fast path
  connector_timeout_ms = 500,
  action_confidence = 0.15,   -- an action runs only from this routing confidence (an ArgAction's own
                              -- min_confidence raises it for that action); below: CLARIFY to confirm
  deadline_ms = 2000,         -- a request's time budget (checked between steps)
}


-- An operator's step (a file path ending in .lua, or a table) is an
-- extension of kind "arg_step" (kip.extension: sandboxed, budgeted per
-- request, hot-reloaded): the loop's helper modules are its globals
-- (arg.lexicon, arg.weaver, arg.candidates, arg.params); it returns
-- {run = function(state)} and, for a step the loop does not have,
-- after = "<step>" or before = "<step>" (docs/extending.md "ARG steps").
extension.kind("arg_step", {
  label = "ARG step",
  globals = function()
    return { arg = { lexicon = require "kip.arg.lexicon", weaver = require "kip.arg.steps.weaver",
      candidates = require "kip.arg.steps.candidates", params = require "kip.arg.params" } }
  end,
  check = function(step)
    if type(step) ~= "table" or type(step.run) ~= "function" then
      return nil, "an ARG step must return {run = function(state) ... end}"
    end
    return step
  end,
})

local function step_index(order, name)
  for i, s in ipairs(order) do if s[1] == name then return i end end
end

--- configure the loop of a nexus: steps (name -> module name, a path to a
--- step file ending in .lua, or a table with run; a name the loop does not
--- have adds a step at its after/before position), handlers (handler name
--- -> file or function), connectors (connector name -> file or function),
--- limits (overrides of M.LIMITS), hooks (route, guard, resolve, compare: a table
--- of functions or a file returning one; docs/extending.md; route may also
--- be the settings of a chat-completions endpoint, kip.arg.route_llm; guard too, kip.arg.guard_llm)
function M.configure(nx, cfg)
  local st = state.of(nx, "arg")
  -- a configuration that fails changes nothing: the new one is built beside the old
  local old = st.cfg or { steps = {}, order = M.STEPS, limits = M.LIMITS, hooks = {} }
  local c = { steps = {}, order = old.order, limits = {}, hooks = {} }
  for _, f in ipairs { "steps", "limits", "hooks" } do for k, v in pairs(old[f]) do c[f][k] = v end end
  local names = {}
  for name in pairs(cfg.steps or {}) do names[#names + 1] = name end
  table.sort(names) -- added steps anchored on each other land the same way every time
  local order = {}
  for i, s in ipairs(c.order) do order[i] = s end
  local pending = {}
  for _, name in ipairs(names) do
    local mod, impl, lerr = cfg.steps[name]
    if type(mod) == "string" and not mod:match("%.lua$") then
      local ok, m = pcall(require, mod)
      if not ok then return nil, ("step %s: cannot load module %s: %s"):format(name, mod, tostring(m):match("^[^\n]*")) end
      impl = m
      if type(impl) ~= "table" or type(impl.run) ~= "function" then
        return nil, "step " .. name .. ": the module must return a table with run(state)"
      end
    else
      impl, lerr = extension.from("arg_step", mod, name)
      if not impl then return nil, lerr end
      if impl.__extension then
        local ext = impl
        impl = { ext = ext, run = extension.bind(ext, "run") }
      end
    end
    c.steps[name] = impl
    if not step_index(order, name) then
      local spec = impl.ext or impl
      if not (spec.after or spec.before) then
        local known = {}
        for _, s in ipairs(M.STEPS) do known[#known + 1] = s[1] end
        return nil, ("unknown ARG step %s: a new step names where it goes (after = \"<step>\" or before = \"<step>\"; steps: %s)")
          :format(name, table.concat(known, ", "))
      end
      pending[#pending + 1] = { name = name, after = spec.after, before = spec.before }
    end
  end
  -- added steps: placed after/before the step they name (possibly another added one)
  while #pending > 0 do
    local progress = false
    for i = #pending, 1, -1 do
      local p = pending[i]
      local at = step_index(order, p.after or p.before)
      if at then
        table.insert(order, p.after and at + 1 or at, { p.name })
        table.remove(pending, i)
        progress = true
      end
    end
    if not progress then
      local p = pending[1]
      return nil, ("ARG step %s: it goes %s %q, which is not a step"):format(p.name, p.after and "after" or "before",
        tostring(p.after or p.before))
    end
  end
  c.order = order
  for k, v in pairs(cfg.limits or {}) do c.limits[k] = v end
  c.tenants = old.tenants
  if cfg.tenants ~= nil then
    if type(cfg.tenants) ~= "table" then return nil, "tenants: a list of the operator's tenant names" end
    local list = {}
    for i, n in ipairs(cfg.tenants) do
      if type(n) ~= "string" or n == "" then return nil, ("tenants[%d]: a tenant name is a non-empty string"):format(i) end
      list[i] = n
    end
    c.tenants = list
  end
  if cfg.hooks ~= nil then
    local spec, clients = cfg.hooks, {}
    -- route / guard = {url=, model=, ...}: a chat-completions endpoint as that hook
    if type(spec) == "table" and not spec.__extension then
      local rest = {}
      for k, v in pairs(spec) do
        local client = type(v) == "table" and (k == "route" and "kip.arg.route_llm" or k == "guard" and "kip.arg.guard_llm")
        if client then
          local h, herr = require(client).new(v)
          if not h then return nil, ("ARG hooks: %s: %s"):format(k, herr) end
          clients[k] = h
        else
          rest[k] = v
        end
      end
      spec = rest
    end
    local hooks, herr = extension.hooks(spec, "ARG hooks")
    if not hooks then return nil, herr end
    for k, v in pairs(hooks) do c.hooks[k] = v end
    for k, v in pairs(clients) do c.hooks[k] = v end
  end
  st.cfg = c
  local ok, err = require("kip.arg.handlers").register(nx, cfg.handlers)
  if not ok then return nil, err end
  ok, err = require("kip.arg.connectors").register(nx, cfg.connectors)
  if not ok then return nil, err end
  return true
end

-- the loop's configuration of nx: configure's, with the operator's
-- extension folders applied once (kip.subsystems: arg_steps/, handlers/,
-- connectors/; each file reloads itself when it changes). Returns nil, an
-- error when the folders hold a step that cannot be placed (every request
-- then fails closed, naming it).
local function cfg(nx)
  local st = state.of(nx, "arg")
  if st.operator == nil then
    st.operator = true
    require "kip.arg.handlers"
    require "kip.arg.connectors"
    local subsystems = require "kip.subsystems"
    local found, any = { steps = {}, handlers = {}, connectors = {} }, false
    for field, kind in pairs { steps = "arg_step", handlers = "handler", connectors = "connector" } do
      for _, ext in ipairs(subsystems.extensions(kind)) do
        found[field][ext.name] = ext
        any = true
      end
    end
    -- chat-completions hooks named by the environment (KIP_ARG_ROUTE_URL,
    -- KIP_ARG_GUARD_URL), unless the host configured that hook itself
    for _, h in ipairs { { "route", "ROUTE" }, { "guard", "GUARD" } } do
      local settings = require("kip.arg.route_llm").env_settings(h[2])
      if settings and not (st.cfg and st.cfg.hooks[h[1]]) and type(st.operator) ~= "table" then
        local ok, err = M.configure(nx, { hooks = { [h[1]] = settings } })
        if not ok then
          local v = "KIP_ARG_" .. h[2]
          st.operator = { code = "ARG_HOOK_FAILED", step = "entry", message = v .. "_URL: " .. err,
            hint = ("Fix %s_URL, %s_MODEL, %s_KEY_ENV or %s_TIMEOUT_MS (docs/arg.md), or unset them."):format(v, v, v, v) }
        end
      end
    end
    if any and type(st.operator) ~= "table" then
      local ok, err = M.configure(nx, found)
      if not ok then st.operator = { code = "ARG_STEP_FAILED", step = "entry", message = "extension folder: " .. err,
        hint = "Fix or remove the file in the extension folder (docs/extending.md)." } end
    end
  end
  if type(st.operator) == "table" then return nil, st.operator end
  return st.cfg or { steps = {}, order = M.STEPS, limits = M.LIMITS, hooks = {} }
end

-- the outcome from the state the steps left (fixture README §4, the
-- protocol's correspondence: BLOCK -> REFUSE, ALLOW_WITH_REFOCUS -> REFOCUS,
-- low margin / conflict / incomplete binding -> CLARIFY, no coverage /
-- nothing eligible / no authorized action -> ABSTAIN, step 8 -> ACTION,
-- step 9 -> ANSWER)
function M.decide(st)
  local p, w, b = st.policy, st.weaver or { flags = {} }, st.bind or {}
  local function has(f) for _, x in ipairs(w and w.flags or {}) do if x == f then return true end end return false end
  if not p or p.state == "BLOCK" then return "REFUSE", "policy" end
  if st.veto then return st.veto.outcome, "post_check" end
  if p.state == "ALLOW_WITH_REFOCUS" or has("OUT_OF_DOMAIN") then return "REFOCUS", "policy" end
  if has("CLARIFY_RECOMMENDED") then return "CLARIFY", "weaver" end
  if has("ABSTAIN_RECOMMENDED") or not w.primary then return "ABSTAIN", "weaver" end
  if b.path == "ACTION" then
    local a = b.action or {}
    if a.status == "NO_ACTION" or a.status == "UNAUTHORIZED" then return "ABSTAIN", "bind" end
    if a.status == "INCOMPLETE" or a.status == "AMBIGUOUS" or a.status == "LOW_CONFIDENCE" or a.status == "MISMATCH" then
      return "CLARIFY", "bind"
    end
    -- ACTION only when the handler ran and succeeded (before the action
    -- step, the decision proposes it)
    local x = st.action
    if x and x.status == "IN_PROGRESS" then return "CLARIFY", "action" end
    if x and not (x.status == "EXECUTED" or x.status == "REPLAYED") then return "ABSTAIN", "action" end
    return "ACTION", "action"
  end
  if #(st.bundle or {}) == 0 then return "ABSTAIN", "traverse" end
  local cov = st.coverage
  if cov and not cov.covered then return "ABSTAIN", "info" end
  return "ANSWER", "info"
end

local clock = os.clock

local function request_error(message, hint)
  return nil, { code = "ARG_REQUEST_INVALID", step = "entry", message = message, hint = hint }
end

--- run the online loop for request {prompt, context}; opts: ctx (the
--- authenticated caller: roles, tenant, user, actor, channel; default the
--- Nexus's ctx), version (pin: replay), record (false: no episode),
--- episode_id, execute_without_handler (an evaluation's dry run). Returns
--- the ArgResult, or nil and an error {code, message, hint, step}.
function M.run(nx, request, opts)
  opts = opts or {}
  if type(request) ~= "table" or type(request.prompt) ~= "string" or request.prompt == "" then
    return request_error("an ARG request needs a non-empty prompt string",
      'nx:arg{ prompt = "…", context = { channel = "…" } } — the caller is the authenticated ctx')
  end
  if #request.prompt > M.MAX_PROMPT_BYTES then
    return request_error(("the prompt is %d bytes; the limit is %d"):format(#request.prompt, M.MAX_PROMPT_BYTES),
      "Send the user's request, not a document; put context in context.history.")
  end
  if request.context ~= nil and type(request.context) ~= "table" then
    return request_error("context must be an object",
      "context = { channel, product, environment, timestamp, history, request_id }")
  end
  local c, cerr = cfg(nx)
  if not c then return nil, cerr end
  local t0 = clock()
  local m, err = snapshot.get(nx, { version = opts.version, content_hash = opts.content_hash, model = opts.model })
  if not m then err.step = err.step or "snapshot"; return nil, err end
  if not opts.model then guards.ensure(nx) end
  -- what a version's first request builds once per process (the node
  -- vectors of the semantic approximator) is warm-up, not this request's work
  require("kip.arg.semantic").warm(nx, m)
  local budget_from = clock()
  -- the caller: the call's ctx merged over the Nexus's (as for KIP requests)
  local ctx = {}
  for k, v in pairs(nx.ctx or {}) do ctx[k] = v end
  for k, v in pairs(opts.ctx or {}) do ctx[k] = v end
  local body = request.context or {}
  local caller, claims = identity.resolve(m.profile, ctx, body)
  if not caller then return nil, claims end
  -- (the request as read: the body of a letter, without the salutation and
  -- the sign-off, whose name is the writer's; policies read it as written)
  local st = { nx = nx, request = { prompt = analysis.letter_body(request.prompt), written = request.prompt, body = body,
      context = identity.context(m.profile, caller, body) },
    caller = caller, claims = claims, ctx = ctx,
    opts = opts, limits = c.limits, hooks = c.hooks, snapshot = m, errors = {}, timings = {},
    episode_id = opts.episode_id or (opts.record ~= false and require("kip.arg.registry").new_id() or nil) }
  st.analysis = analysis.analyse(st.request.prompt, st.request.context, m)
  -- (a replay reads the directory as it was: the names the episode found through it)
  local directory = opts.replay and tenancy.directory(nil, caller, opts.replay_directory or {})
    or tenancy.directory(not opts.model and nx or nil, caller, c.tenants, opts.record ~= false)
  st.entities = tenancy.entities(not opts.model and nx or nil, m, m.profile, caller, st.analysis, directory)
  st.timings.snapshot = (clock() - t0) * 1000
  local deadline = (c.limits.deadline_ms or M.LIMITS.deadline_ms) / 1000
  for _, s in ipairs(c.order) do
    local name = s[1]
    local started = clock()
    if name == "memory" then
      st.outcome, st.decided_at = M.decide(st)
      if opts.record == false then break end
    end
    -- BLOCK and REFOCUS stop the pipeline after the pre-check (seed 003 step 1):
    -- nothing is routed, retrieved or run; the episode is still recorded
    local stop = st.policy and (st.policy.state == "BLOCK" or st.policy.state == "ALLOW_WITH_REFOCUS")
    local skip = (name ~= "policy" and name ~= "memory" and stop)
      or ((name == "action" or name == "info" or name == "traverse" or name == "bind" or name == "check")
        and not (st.weaver and st.weaver.primary))
    if not skip and name ~= "memory" and clock() - budget_from > deadline then
      st.errors[#st.errors + 1] = { code = "ARG_BUDGET_EXHAUSTED", step = name,
        message = ("the request used its %d ms budget before step %s"):format(math.floor(deadline * 1000), name),
        hint = "Nothing more was routed, retrieved or run; the request ends in ABSTAIN (limits.deadline_ms)." }
      st.failed = name
      skip = true
    end
    if not skip then
      local impl = c.steps[name] or require(s[2])
      local ok, e = pcall(impl.run, st)
      if not ok then
        st.errors[#st.errors + 1] = { code = "ARG_STEP_FAILED", step = name, message = tostring(e):match("^[^\n]*"),
          hint = "A step module failed; the request ends in ABSTAIN (fail closed)." }
        st.failed = name
      end
    end
    if st.failed then
      -- fail closed: nothing after a failed step acts; the episode is still recorded
      st.outcome, st.decided_at = M.decide(st)
      if st.outcome ~= "REFUSE" then st.outcome, st.decided_at = "ABSTAIN", st.failed end
      st.timings[name] = (clock() - started) * 1000
      if opts.record ~= false and name ~= "memory" then
        local okm, me = pcall(require("kip.arg.steps.memory").run, st)
        if not okm then st.errors[#st.errors + 1] = { code = "ARG_WRITE_REJECTED", step = "memory", message = tostring(me) } end
      end
      break
    end
    st.timings[name] = (clock() - started) * 1000
  end
  if not st.outcome then st.outcome, st.decided_at = M.decide(st) end
  st.timings.total = (clock() - t0) * 1000
  return M.result(st)
end

M.result = result.build
M.bundle = result.bundle
M.message = result.message
M.LIST_FIELDS = result.LIST_FIELDS

return M
