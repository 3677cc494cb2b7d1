-- kip.policy — governance policies (ARG Policy Manager): policy files are
-- extensions of kind "policy" (kip.extension: sandboxed, budgeted,
-- hot-reloaded), their decisions validated and composed; M.decide is the
-- one pre-check loop of the KIP pipeline and of ARG step 1.
--
-- A policy file returns kip.policy{ name=, priority=, pre_check=, post_check= }
-- (docs/policies.md). A hook that fails, loops, exceeds a limit or returns
-- garbage refuses the request (fail closed) with an error naming the
-- policy and the line.
local core = require "kip.core"
local sandbox = require "kip.sandbox"
local extension = require "kip.extension"

local M = {}

M.STATES = { ALLOW = 1, ALLOW_WITH_REFOCUS = 2, RESTRICT = 3, BLOCK = 4 }
M.MODES = { normal = 1, prudent = 2, refocus = 3, refusal = 4 }
M.DEFAULT_BUDGET = extension.BUDGETS.policy
M.MEMORY_CAP = sandbox.MEMORY_CAP
M.PATTERN_STEPS = sandbox.PATTERN_STEPS
M.MAX_REP = sandbox.MAX_REP
M.SAFE_STRING = sandbox.SAFE_STRING
M.copy = sandbox.copy
local copy = sandbox.copy

--- The constructor policy files call: validates and tags the table.
function M.new(def)
  if type(def) ~= "table" then error("kip.policy{...} expects a table", 2) end
  if type(def.name) ~= "string" or def.name == "" then error("a policy needs a name", 2) end
  if def.pre_check ~= nil and type(def.pre_check) ~= "function" then error("pre_check must be a function", 2) end
  if def.post_check ~= nil and type(def.post_check) ~= "function" then error("post_check must be a function", 2) end
  if def.arg_post_check ~= nil and type(def.arg_post_check) ~= "function" then error("arg_post_check must be a function", 2) end
  if def.priority ~= nil and type(def.priority) ~= "number" then error("priority must be a number", 2) end
  def.priority = def.priority or 100
  def.__kip_policy = true
  return def
end

extension.kind("policy", {
  globals = function()
    local secrets = require "kip.secrets"
    return { kip = { policy = M.new, null = core.null, secret_in = secrets.find, secret_scan = secrets.scan,
      fold_text = require("kip.textfold").fold, correct_word = require("kip.arg.lexicon").correct } }
  end,
  check = function(p)
    if type(p) ~= "table" or not p.__kip_policy then return nil, "a policy file must return kip.policy{...}" end
    return p
  end,
})

--- Load one policy file into a sandbox. Returns the policy table or nil, message.
function M.load_file(path) return extension.load("policy", path) end

--- Call a hook of policy p; returns ok, value-or-error-message (naming the
--- policy, the hook, the file and line), traceback.
function M.call(p, hook, budget, ...) return extension.call(p, hook, p.budget or budget, ...) end

--- The pre-check of every policy of `list` on request `req` for caller
--- `ctx`, composed (M.compose). A hook that fails or returns garbage counts
--- as BLOCK naming the policy (fail closed) and is listed in `failures`.
--- opts: budget (instructions per hook; default the policy kind's),
--- isolate (each policy sees its own copy of req). Returns the composed
--- decision, the policies' decisions in order, the failure messages.
function M.decide(list, req, ctx, opts)
  opts = opts or {}
  local decisions, failures = {}, {}
  for _, p in ipairs(list) do
    local ok, dec = M.call(p, "pre_check", opts.budget, opts.isolate and copy(req) or req, ctx)
    local checked, err
    if ok then checked, err = M.check_decision(p, dec) else err = dec end
    if not checked then
      failures[#failures + 1] = err
      checked = { state = "BLOCK", reasons = { err } }
    end
    decisions[#decisions + 1] = checked
  end
  return M.compose(decisions), decisions, failures
end

-- ------------------------------------------------------------ composition
local function list_union(a, b)
  if not a then return b and copy(b) end
  if not b then return a end
  local seen, out = {}, {}
  for _, l in ipairs { a, b } do
    for _, v in ipairs(l) do
      if not seen[v] then seen[v] = true; out[#out + 1] = v end
    end
  end
  return out
end

local function min_num(a, b)
  if a == nil then return b end
  if b == nil then return a end
  return math.min(a, b)
end

--- Compose decisions: the most restrictive state wins, constraints
--- intersect, reasons accumulate. Returns the combined decision.
function M.compose(decisions)
  local out = { state = "ALLOW", response_mode = "normal", reasons = {}, warnings = {}, constraints = {} }
  local c = out.constraints
  local elig = {}
  for _, d in ipairs(decisions) do
    local s = d.state or "ALLOW"
    if (M.STATES[s] or 0) > M.STATES[out.state] then out.state = s end
    local m = d.response_mode or "normal"
    if (M.MODES[m] or 0) > M.MODES[out.response_mode] then out.response_mode = m end
    for _, r in ipairs(d.reasons or {}) do out.reasons[#out.reasons + 1] = r end
    for _, w in ipairs(d.warnings or {}) do out.warnings[#out.warnings + 1] = w end
    local k = d.constraints or {}
    if k.eligibility then elig[#elig + 1] = "(" .. k.eligibility .. ")" end
    c.forbidden_types = list_union(c.forbidden_types, k.forbidden_types)
    c.forbidden_predicates = list_union(c.forbidden_predicates, k.forbidden_predicates)
    c.write_protected = list_union(c.write_protected, k.write_protected)
    c.append_only = list_union(c.append_only, k.append_only)
    c.forbidden_audiences = list_union(c.forbidden_audiences, k.forbidden_audiences) -- ARG (docs/arg.md)
    c.forbidden_labels = list_union(c.forbidden_labels, k.forbidden_labels)
    if k.write_allowed == false then c.write_allowed = false end
    if k.budgets then
      c.budgets = c.budgets or {}
      for _, key in ipairs { "max_hops", "max_rows", "deadline_ms" } do
        c.budgets[key] = min_num(c.budgets[key], k.budgets[key])
      end
    end
    if k.params then
      c.params = c.params or {}
      for key, v in pairs(k.params) do c.params[key] = v end
    end
  end
  if #elig > 0 then c.eligibility = table.concat(elig, " && ") end
  return out
end

--- Validate a decision returned by a hook; returns decision or nil, message.
function M.check_decision(p, d)
  if d == nil then return { state = "ALLOW" } end
  if type(d) ~= "table" then return nil, ("policy '%s' returned %s, not a decision table"):format(p.name, type(d)) end
  if d.state ~= nil and not M.STATES[d.state] then
    return nil, ("policy '%s' returned an unknown state %q"):format(p.name, tostring(d.state))
  end
  if d.response_mode ~= nil and not M.MODES[d.response_mode] then
    return nil, ("policy '%s' returned an unknown response_mode %q"):format(p.name, tostring(d.response_mode))
  end
  return d
end

-- ------------------------------------------------------------ the set
--- A set of named policies found in dirs (searched in order), reloaded when
--- their files change (checked at most once per `interval` seconds).
--- :list() gives them in priority order (lower first); :missing() names one
--- that could not be loaded at all (every request then fails closed).
function M.set(opts)
  local s = extension.set { kind = "policy", names = opts.names or { "default" }, dirs = opts.dirs,
    interval = opts.interval, clock = opts.clock, log = opts.log }
  local list = s.list
  s.policies = s.objects
  function s:list()
    self:reload(false)
    self.policies = self.objects
    if self.sorted_for == self.objects then return self.sorted end -- no reload pass since the last sort
    local out = list(self)
    table.sort(out, function(a, b)
      if a.priority ~= b.priority then return a.priority < b.priority end
      return a.name < b.name
    end)
    self.sorted, self.sorted_for = out, self.objects
    return out
  end
  return s
end

return M
