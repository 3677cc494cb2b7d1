--- kip.arg.steps.policy — step 1 of seed 003, Policy Pre-Check: the nexus's
--- governance policies (the same loader, sandbox and composition as for KIP
--- requests, lua/kip/pipeline.lua) decide on the request before anything is
--- routed or read. The ARG request reaches them as req.kind == "ARG" with the
--- prompt, the body's context, the authenticated caller (role, tenant, user,
--- authority, audiences), the identity claims the body makes beyond it, the
--- people and tenants it names resolved against the caller
--- (kip.arg.tenancy), the ontology's access profile and its domain signal
--- (how many of its content words the pinned ontology knows).
--- policies/arg.lua is always among them. The composed decision is the
--- PolicyDecision; its constraints become the gates every later step applies
--- (visible_label, visible_node, visible_source).
local core = require "kip.core"
local policy = require "kip.policy"
local state = require "kip.state"

local M = {}

-- the policies of this nexus plus the ARG policy (loaded once per nexus
-- when the nexus has no governance set of its own)
function M.policies(nx)
  local list = {}
  local have_arg = false
  if nx.policies then
    for _, p in ipairs(nx.policies:list()) do
      list[#list + 1] = p
      if p.name == "arg" then have_arg = true end
    end
  end
  if not have_arg then
    if not state.of(nx, "arg").policy then
      local path = require("kip.extension").find(require("kip.nexus").policy_dirs(), "arg")
      local p, err
      if path then p, err = policy.load_file(path) end -- (an `and` would keep only its first value)
      if not p then error("the ARG policy cannot be loaded: " .. tostring(err or "policies/arg.lua not found")) end
      state.of(nx, "arg").policy = p
    end
    list[#list + 1] = state.of(nx, "arg").policy
  end
  return list
end

--- the request as policies see it (pre-check and post-check)
function M.request(st)
  local a, m = st.analysis, st.snapshot
  local pm = m.profile
  -- (the prompt as written, sign-off and all: what the analysis left out is read by the rules too;
  -- spaces and tabs in runs as one space)
  return { kind = "ARG", prompt = (st.request.written or st.request.prompt):gsub("[ \t]+", " "), context = st.request.body,
    caller = st.caller,
    claims = st.claims,
    entities = st.entities, emails = a.emails, urls = a.urls,
    profile = { product = pm.product, tenant = pm.tenant, roles = pm.roles, audiences = pm.audiences, role_words = pm.role_words },
    domain = { content = #a.content, known = #a.known, known_words = a.known_as_written, unknown = a.unknown,
      corrections = a.corrections,
      capability = a.capability, operation = a.operation, own_tenant = a.own_tenant,
      -- the person an order names bare as whom it acts on ("send a reset for ravi")
      order_person = require("kip.arg.tenancy").order_object_person(a, m, pm),
      -- the bare names things are said to be of or for ("the invoices for umbrella")
      named_after = require("kip.arg.tenancy").named_after(a, m, pm, st.caller) } }
end

--- the operator's guard hook asked about a request the rules let through:
--- the refusal family it answers, or nil. Its answer is recorded
--- (st.guard_hook) and replayed from the episode; a failure is logged and
--- the rules' decision stands (docs/arg.md "A model as the guard hook").
function M.ask_guard(st)
  local replayed = st.opts.replay_guard
  local hook = st.hooks.guard
  if not hook and replayed == nil then return nil end
  local answer, err
  if replayed ~= nil then answer = replayed
  else
    local c = st.caller or {}
    local started = core.monotonic_ms()
    local ok, v = pcall(hook, { prompt = st.request.written or st.request.prompt, context = st.request.context,
      caller = { role = c.role, authority = c.authority } })
    st.timings.guard_hook = core.monotonic_ms() - started -- wall time: the wait for the operator's service
    if ok then answer = v else err = tostring(v):match("^[^\n]*") end
  end
  local family = type(answer) == "string" and answer or nil
  st.guard_hook = { asked = true, answer = family or false, accepted = family ~= nil, error = err }
  if err then
    st.errors[#st.errors + 1] = { code = "ARG_HOOK_FAILED", step = "policy", message = err,
      hint = "The guard hook failed; the rules' decision stands. Check its service, or unset KIP_ARG_GUARD_URL." }
  end
  return family
end

function M.run(st)
  local m = st.snapshot
  local req = M.request(st)
  st.policy_request = req
  local d, decisions, failures = policy.decide(M.policies(st.nx), req, policy.copy(st.ctx or {}), { isolate = true })
  -- the operator's model may add a refusal the rules have no words for; never lift one
  if d.state ~= "BLOCK" then
    local family = M.ask_guard(st)
    if family then
      local reasons = {}
      for i, r in ipairs(d.reasons or {}) do reasons[i] = r end
      reasons[#reasons + 1] = "guard hook: " .. family
      d.state, d.reasons = "BLOCK", reasons
    end
  end
  for _, f in ipairs(failures) do
    st.errors[#st.errors + 1] = { code = "ARG_POLICY_FAILED", step = "policy", message = f,
      hint = "A governance policy failed on this request (fail closed); check it with `kip policy check FILE`." }
  end
  -- a refocus survives other policies' scopes (RESTRICT ranks above it in
  -- the composition, but narrowing the scope does not make the request in domain)
  if d.state ~= "BLOCK" then
    for _, x in ipairs(decisions) do if x.state == "ALLOW_WITH_REFOCUS" then d.state = "ALLOW_WITH_REFOCUS" end end
  end
  local hidden_aud, hidden_label = {}, {}
  for _, x in ipairs(d.constraints.forbidden_audiences or {}) do hidden_aud[x] = true end
  for _, x in ipairs(d.constraints.forbidden_labels or {}) do hidden_label[x] = true end
  local function visible_label(l)
    local x = m.labels[l]
    return x ~= nil and not hidden_aud[x.audience] and not hidden_label[l]
  end
  local function visible_all(labels, own)
    if own and hidden_aud[own] then return false end
    for _, l in ipairs(labels) do if not visible_label(l) then return false end end
    return true
  end
  st.policy = {
    decision = { state = d.state, reasons = d.reasons, response_mode = d.response_mode,
      constraints = { forbidden_audiences = d.constraints.forbidden_audiences or {},
        forbidden_labels = d.constraints.forbidden_labels or {}, budgets = d.constraints.budgets },
      hook = st.guard_hook },
    state = d.state,
    visible_label = visible_label,
    visible_node = function(n) local x = m.nodes[n]; return x ~= nil and visible_all(x.labels, x.audience) end,
    visible_source = function(s) local x = m.sources[s]; return x ~= nil and visible_all(x.labels) end,
  }
end

return M
