-- busted specs for the governance host: policies, pipeline, scope, sandbox.
local kip = require "kip"
local policy = require "kip.policy"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")
local tmpname = H.tmpdb

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local cleanup, home = H.cleanup, H.home

local DATA = [[
UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Fact"} }
  CONCEPT ?t2 { {type: "$ConceptType", name: "Secret"} }
  CONCEPT ?k { {type: "$PropositionType", name: "about"} }
  CONCEPT ?k2 { {type: "$PropositionType", name: "links"} }
  CONCEPT ?alice { {type: "Person", name: "Alice"} }
  CONCEPT ?bob { {type: "Person", name: "Bob"} }
  CONCEPT ?pub { {type: "Fact", name: "public-fact"} SET PROPOSITIONS { ("about", ?alice) } }
  CONCEPT ?mine { {type: "Fact", name: "alice-private"} SET ATTRIBUTES { score: 5 } }
  WITH METADATA { access_level: "private" }
  CONCEPT ?hers { {type: "Fact", name: "bob-private"} SET ATTRIBUTES { score: 7, aliases: ["hidden-alias"] } }
  WITH METADATA { access_level: "private" }
  PROPOSITION ?a1 { (?mine, "about", ?alice) } WITH METADATA { access_level: "private" }
  PROPOSITION ?b1 { (?hers, "about", ?bob) } WITH METADATA { access_level: "private" }
  PROPOSITION ?l1 { (?pub, "links", ?hers) }
  PROPOSITION ?l2 { (?hers, "links", ?pub) }
  CONCEPT ?s { {type: "Secret", name: "vault"} SET PROPOSITIONS { ("links", ?pub) } }
}
WITH METADATA { source: "spec", author: "busted" }
]]

-- scope: private facts visible only when they are about the counterparty
local SCOPE = '?e.metadata.access_level != "private" || ?e.subject == :cp || ?e.id == :cp || ?e.name == "alice-private"'

describe("the governance scope (core)", function()
  local path, nx, cp
  setup(function()
    path = tmpname(".db")
    nx = assert(kip.open { path = path })
    assert.is_nil(nx:execute(DATA).error)
    cp = nx:execute('FIND(?p.id) WHERE { ?p {type: "Person", name: "Alice"} }').result[1]
  end)
  teardown(function()
    nx:close()
    cleanup(path)
  end)

  local function scoped(cmd, extra)
    local o = { eligibility = SCOPE, eligibility_params = kip.core.json_encode { cp = cp } }
    for k, v in pairs(extra or {}) do o[k] = v end
    return nx:call({ command = cmd }, o)
  end

  local function all_names(r)
    local out = {}
    local function walk(v)
      if type(v) == "table" then for _, x in pairs(v) do walk(x) end
      elseif type(v) == "string" then out[#out + 1] = v end
    end
    walk(r)
    return table.concat(out, " ")
  end

  -- every adversarial query must leave no trace of bob-private / hidden-alias
  local adversarial = {
    'FIND(?f.name) WHERE { ?f {type: "Fact"} }',
    'FIND(?f.name) WHERE { ?f {name: "bob-private"} }',
    'FIND(?x.name, ?p) WHERE { ?a {type: "Fact", name: "public-fact"} (?a, ?p, ?x) }',
    'FIND(?x.name, ?p) WHERE { ?a {type: "Fact", name: "public-fact"} (?x, ?p, ?a) }',
    'FIND(?x.name) WHERE { ?a {type: "Fact", name: "public-fact"} (?a, "links"{1,3}, ?x) }',
    'FIND(?x.name) WHERE { ?a {type: "Fact", name: "public-fact"} (?x, "links"{0,3}, ?a) }',
    'FIND(?x.name) WHERE { ?x {type: "Fact", name: "public-fact"} UNION { ?x {type: "Fact", name: "bob-private"} } }',
    'FIND(?x.name) WHERE { ?x {type: "Fact"} NOT { ?x {name: "public-fact"} } }',
    'FIND(?x.name, ?y.name) WHERE { ?x {type: "Fact"} OPTIONAL { (?x, "links", ?y) } }',
    'FIND(COUNT(?x), SUM(?x.attributes.score), MAX(?x.attributes.score)) WHERE { ?x {type: "Fact"} }',
    'FIND(?l) WHERE { ?l (?s, ?p, ?o) } LIMIT 100',
    'SEARCH CONCEPT "bob-private"',
    'SEARCH CONCEPT "hidden-alias"',
    'SEARCH PROPOSITION "about"',
    'EXPORT ?x WHERE { ?x {type: "Fact"} UNION { ?x (?a, ?p, ?b) FILTER(?p != "belongs_to_domain") } }',
  }
  for _, q in ipairs(adversarial) do
    it("hides what is outside: " .. q:sub(1, 70), function()
      local r = scoped(q)
      assert.is_nil(r.error, r.error and r.error.message)
      local text = all_names(r)
      assert.not_matches("bob%-private", text)
      assert.not_matches("hidden%-alias", text)
    end)
  end

  it("aggregates only over what is inside", function()
    local r = scoped('FIND(COUNT(?x), SUM(?x.attributes.score), MAX(?x.attributes.score)) WHERE { ?x {type: "Fact"} }')
    assert.same({ 2, 5, 5 }, r.result)
  end)

  it("DESCRIBE counts only the domain members inside the scope", function()
    assert.is_nil(nx:execute([[UPSERT {
      CONCEPT ?d { {type: "Domain", name: "Facts"} }
      CONCEPT ?a { {type: "Fact", name: "public-fact"} SET PROPOSITIONS { ("belongs_to_domain", ?d) } }
      CONCEPT ?b { {type: "Fact", name: "bob-private"} SET PROPOSITIONS { ("belongs_to_domain", ?d) } }
    }]]).error)
    local function count(r)
      for _, d in ipairs(r.result.domain_map or r.result) do if d.name == "Facts" then return d.member_count end end
    end
    assert.equal(2, count(nx:execute("DESCRIBE DOMAINS")))
    assert.equal(1, count(scoped("DESCRIBE DOMAINS")))
    assert.equal(1, count(scoped("DESCRIBE PRIMER")))
  end)

  it("still shows what is inside", function()
    local r = scoped('FIND(?f.name) WHERE { ?f {type: "Fact"} } ORDER BY ?f.name')
    assert.same({ "alice-private", "public-fact" }, r.result)
  end)

  it("refuses writes that touch hidden elements without revealing them", function()
    for _, cmd in ipairs {
      'UPSERT { CONCEPT ?x { {type: "Fact", name: "bob-private"} SET ATTRIBUTES { score: 1 } } }',
      'DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Fact", name: "public-fact"} }',
    } do
      local r = scoped(cmd)
      assert.equal("KIP_4004", r.error.code, cmd)
      assert.not_matches("bob", r.error.message)
    end
    -- a reference to a hidden element is answered exactly like one to a missing element
    local function ref(name)
      return scoped(('UPSERT { PROPOSITION ?x { ({type: "Person", name: "Alice"}, "links", {type: "Fact", name: "%s"}) } }'):format(name)).error
    end
    local hidden, missing = ref("bob-private"), ref("no-such-fact")
    assert.equal("KIP_3002", hidden.code)
    assert.equal(missing.message:gsub("no%-such%-fact", "bob-private"), hidden.message)
    assert.equal(missing.hint, hidden.hint)
    -- UPDATE / DELETE through a pattern simply do not see the hidden element
    local u = scoped('UPDATE ?x SET ATTRIBUTES { score: 0 } WHERE { ?x {type: "Fact", name: "bob-private"} }')
    assert.equal(0, u.result.matched)
    local check = nx:execute('FIND(?x.attributes.score) WHERE { ?x {type: "Fact", name: "bob-private"} }')
    assert.same({ 7 }, check.result)
  end)

  it("a concept created out of the caller's sight cannot be named later in the same command", function()
    local r = scoped([[UPSERT {
      CONCEPT ?n { {type: "Fact", name: "new-private"} } WITH METADATA { access_level: "private" }
      PROPOSITION ?x { ({type: "Person", name: "Alice"}, "links", {type: "Fact", name: "new-private"}) } }]])
    assert.equal("KIP_3002", r.error.code)
    assert.equal(0, nx:execute('FIND(COUNT(?x)) WHERE { ?x {type: "Fact", name: "new-private"} }').result)
  end)

  it("forbidden types and predicates hide and refuse", function()
    local r = scoped('FIND(?x.name) WHERE { ?a {type: "Fact", name: "public-fact"} (?x, "links", ?a) }',
      { eligibility = nil, forbidden_types = { "Secret" } })
    assert.same({}, r.result)
    local w = nx:call({ command = 'UPSERT { CONCEPT ?x { {type: "Secret", name: "new"} } }' }, { forbidden_types = { "Secret" } })
    assert.equal("KIP_4004", w.error.code)
    local p = nx:call({ command = 'FIND(?o.name) WHERE { ?a {type: "Fact", name: "public-fact"} (?a, ?p, ?o) }' },
      { forbidden_predicates = { "links", "about", "belongs_to_domain" } })
    assert.same({}, p.result)
  end)

  it("reports a malformed eligibility filter", function()
    local r = nx:call({ command = 'FIND(?x) WHERE { ?x {type: "Fact"} }' }, { eligibility = "?x.name == 1" })
    assert.equal("KIP_3001", r.error.code)
    assert.matches("eligibility", r.error.message)
  end)
end)

describe("policies", function()
  local dir, path, nx
  before_each(function()
    dir = tmpname(".d")
    os.execute("mkdir -p " .. dir)
    path = tmpname(".db")
  end)
  after_each(function()
    if nx then nx:close() nx = nil end
    cleanup(path)
    os.execute("rm -rf " .. dir)
  end)

  local function open(names, ctx, log)
    nx = assert(kip.open { path = path, policies = names, policy_dirs = { dir }, ctx = ctx, on_policy_error = log })
    return nx
  end

  it("compose: the most restrictive state wins, constraints intersect, reasons accumulate", function()
    local d = policy.compose {
      { state = "ALLOW", reasons = { "a" } },
      { state = "RESTRICT", constraints = { eligibility = "X", forbidden_types = { "T" }, budgets = { max_rows = 10 } }, reasons = { "b" } },
      { state = "ALLOW_WITH_REFOCUS", response_mode = "refocus", constraints = { eligibility = "Y", forbidden_types = { "U", "T" }, budgets = { max_rows = 5, max_hops = 2 }, write_allowed = false } },
    }
    assert.equal("RESTRICT", d.state)
    assert.equal("refocus", d.response_mode)
    assert.same({ "a", "b" }, d.reasons)
    assert.equal("(X) && (Y)", d.constraints.eligibility)
    assert.same({ "T", "U" }, d.constraints.forbidden_types)
    assert.same({ max_rows = 5, max_hops = 2 }, d.constraints.budgets)
    assert.is_false(d.constraints.write_allowed)
    assert.equal("BLOCK", policy.compose { { state = "BLOCK" }, { state = "RESTRICT" } }.state)
  end)

  it("BLOCK refuses with KIP_4004 and the reasons; ALLOW_WITH_REFOCUS is reported", function()
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function(req, ctx)
      if req.kind == "DELETE" then return { state = "BLOCK", reasons = { "no deletes today" } } end
      if req.kind == "DESCRIBE" then return { state = "ALLOW_WITH_REFOCUS", response_mode = "refocus", reasons = { "stay on topic" } } end
    end }]])
    open { "p" }
    local r = nx:execute('DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Person", name: "Nobody"} }')
    assert.equal("KIP_4004", r.error.code)
    assert.matches("no deletes today", r.error.message)
    local d = nx:execute("DESCRIBE DOMAINS")
    assert.is_table(d.result)
    assert.equal("refocus", d.policy.response_mode)
  end)

  it("governs call_command (one command without the envelope) like call_json", function()
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function(req)
      if req.kind == "DELETE" then return { state = "BLOCK", reasons = { "no deletes today" } } end
    end }]])
    open { "p" }
    local kip_core = require "kip.core"
    local up = kip_core.json_decode(nx:call_command('UPSERT { CONCEPT ?p { {type: "Person", name: :n} } }', '{"n":"Cmd"}'))
    assert.is_nil(up.error)
    local del = kip_core.json_decode(nx:call_command('DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Person", name: "Cmd"} }'))
    assert.equal("KIP_4004", del.error.code)
    assert.matches("no deletes today", del.error.message)
    assert.equal(nx:call_json('{"command":"FIND(?p.name) WHERE { ?p {type: \\"Person\\", name: \\"Cmd\\"} }"}'),
      nx:call_command('FIND(?p.name) WHERE { ?p {type: "Person", name: "Cmd"} }'))
  end)

  it("checks each command of a batch on its own and keeps batch semantics", function()
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function(req)
      if req.reads.types[1] == "Secret" then return { state = "BLOCK", reasons = { "secret" } } end
    end }]])
    open { "p" }
    local r = nx:call { commands = { 'FIND(?x) WHERE { ?x {type: "Person"} } LIMIT 1', 'FIND(?x) WHERE { ?x {type: "Secret"} }', "DESCRIBE DOMAINS" } }
    assert.is_table(r.result[1].result)
    assert.equal("KIP_4004", r.result[2].error.code)
    assert.is_table(r.result[3].result)
  end)

  it("RESTRICT constraints become a scope and budgets", function()
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function(req, ctx)
      return { state = "RESTRICT", constraints = { eligibility = '?e.name != "$system"', budgets = { max_hops = 1 }, write_allowed = false } }
    end }]])
    open { "p" }
    local r = nx:execute('FIND(?p.name) WHERE { ?p {type: "Person"} }')
    assert.same({ "$self" }, r.result)
    local h = nx:execute('FIND(?x) WHERE { ?p {type: "Person", name: "$self"} (?p, "belongs_to_domain"{1,2}, ?x) }')
    assert.equal("KIP_4002", h.error.code)
    local w = nx:execute('UPSERT { CONCEPT ?x { {type: "Person", name: "Zed"} } }')
    assert.equal("KIP_4004", w.error.code)
  end)

  it("post_check can redact and refuse", function()
    write(dir .. "/p.lua", [[return kip.policy { name = "p",
      post_check = function(req, resp, ctx)
        if req.kind == "DESCRIBE" then return { state = "BLOCK", reasons = { "not for you" } } end
        for _, e in ipairs(type(resp.result) == "table" and resp.result or {}) do
          if type(e) == "table" and e.attributes then e.attributes.persona = nil end
        end
      end }]])
    open { "p" }
    local r = nx:execute('FIND(?p) WHERE { ?p {type: "Person", name: "$self"} }')
    assert.is_nil(r.result[1].attributes.persona)
    assert.is_string(r.result[1].attributes.person_class)
    local d = nx:execute("DESCRIBE PRIMER")
    assert.equal("KIP_4004", d.error.code)
    assert.matches("not for you", d.error.message)
  end)

  it("fails closed when a hook errors, loops or returns garbage, naming the policy and line", function()
    write(dir .. "/bad.lua", [[return kip.policy { name = "bad", pre_check = function(req)
      if req.kind == "FIND" then error("boom") end
      if req.kind == "SEARCH" then while true do end end
      if req.kind == "DESCRIBE" then return 42 end
    end }]])
    open { "bad" }
    local r = nx:execute('FIND(?p) WHERE { ?p {type: "Person"} }')
    assert.equal("KIP_4004", r.error.code)
    assert.matches("policy 'bad' pre_check failed: .*bad%.lua:2: boom", r.error.message)
    local l = nx:execute('SEARCH CONCEPT "x"')
    assert.equal("KIP_4004", l.error.code)
    assert.matches("instruction budget exceeded", l.error.message)
    assert.equal("KIP_4004", nx:execute("DESCRIBE DOMAINS").error.code)
    -- the process is healthy and a policy-free nexus still works
    local n2 = assert(kip.open { path = path })
    assert.is_table(n2:execute("DESCRIBE DOMAINS").result)
    n2:close()
  end)

  it("a policy cannot swallow its own budget exhaustion", function()
    write(dir .. "/loop.lua", [[return kip.policy { name = "loop", pre_check = function()
      while true do pcall(function() while true do end end) end
    end }]])
    open { "loop" }
    local r = nx:execute("DESCRIBE DOMAINS")
    assert.equal("KIP_4004", r.error.code)
    assert.matches("instruction budget", r.error.message)
  end)

  for name, body in pairs {
    io = "io.open('/tmp/x', 'w')",
    os_execute = "os.execute('true')",
    require = "require('kip.core')",
    load = "load('return 1')",
    dofile = "dofile('/etc/passwd')",
    debug = "debug.getinfo(1)",
    string_dump = "string.dump(function() end)",
    getmetatable = "getmetatable('').__index.upper = nil",
    gc_finalizer = "setmetatable({}, { __gc = function() end })",
  } do
    it("sandbox blocks " .. name, function()
      write(dir .. "/esc.lua", "return kip.policy { name = 'esc', pre_check = function() " .. body .. " end }")
      open { "esc" }
      local r = nx:execute("DESCRIBE DOMAINS")
      assert.equal("KIP_4004", r.error.code, name)
      assert.equal("string", type(("x"):upper()))
    end)
  end

  it("refuses precompiled bytecode", function()
    write(dir .. "/bc.lua", string.dump(function() return 1 end))
    local p, err = policy.load_file(dir .. "/bc.lua")
    assert.is_nil(p)
    assert.matches("bytecode", err)
  end)

  it("reloads a changed file while the nexus stays open, keeping the old one on errors", function()
    local errors = {}
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function() return { state = "BLOCK", reasons = { "v1" } } end }]])
    open({ "p" }, nil, function(msg) errors[#errors + 1] = msg end)
    assert.matches("v1", nx:execute("DESCRIBE DOMAINS").error.message)
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function() return { state = "BLOCK", reasons = { "v2" } } end }]])
    nx:reload_policies()
    assert.matches("v2", nx:execute("DESCRIBE DOMAINS").error.message)
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function( ]])
    local errs = nx:reload_policies()
    assert.is_string(errs.p)
    assert.is_true(#errors >= 1)
    assert.matches("v2", nx:execute("DESCRIBE DOMAINS").error.message)
  end)

  it("picks up a changed file by itself on a later request", function()
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function() return { state = "BLOCK", reasons = { "first" } } end }]])
    open { "p" }
    assert.matches("first", nx:execute("DESCRIBE DOMAINS").error.message)
    write(dir .. "/p.lua", [[return kip.policy { name = "p", pre_check = function() return { state = "BLOCK", reasons = { "second" } } end }]])
    os.execute("sleep 1.1") -- files are checked at most once per second
    assert.matches("second", nx:execute("DESCRIBE DOMAINS").error.message)
  end)

  it("an unknown policy name refuses every request", function()
    open({ "missing" }, nil, function() end)
    local r = nx:execute("DESCRIBE DOMAINS")
    assert.equal("KIP_4004", r.error.code)
    assert.matches("not found", r.error.message)
  end)
end)

describe("the default policy", function()
  local p = assert(policy.load_file(home() .. "/policies/default.lua"))
  local secret_in = p.secret_in

  it("detects secrets and credentials", function()
    for _, s in ipairs {
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEow", "key sk-abcdefghijklmnopqrstuvwx", "AKIAIOSFODNN7EXAMPLE1234",
      "ghp_abcdefghijklmnopqrstuvwxyz0123", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
      "password: hunter22", "PASSWORD=correct-horse", "your OTP is 123456", "card 4111 1111 1111 1111",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    } do
      assert.is_string(secret_in(s), s)
    end
  end)

  it("lets ordinary text through", function()
    for _, s in ipairs {
      "The password policy requires rotation", "Order 1234567890123 shipped", "meeting at 2025-01-01T10:00:00Z",
      "skeptical about sk-learn", "call me at +1 555 010 9999", "Bearer of good news", "OTP integration planned",
      "ISBN 978-3-16-148410-0",
    } do
      assert.is_nil(secret_in(s), s)
    end
  end)

  it("answers from its memo of short strings as it did the first time, and past the memo's size", function()
    local secrets = require "kip.secrets"
    local max = secrets.CACHE_MAX
    secrets.CACHE_MAX = 3
    for _ = 1, 3 do
      for k = 1, 5 do
        assert.is_nil(secrets.find("ordinary words " .. k))
        assert.equal("password", secrets.find("password: hunter2" .. k))
      end
      assert.equal("API key", secrets.find("key sk-" .. ("a"):rep(300))) -- longer than the memo keeps
      local r, kinds = secrets.redact("my password: hunter22 and OTP 123456")
      assert.equal("my [redacted: password] and [redacted: one-time code]", r)
      assert.same({ "password", "one-time code" }, kinds)
    end
    secrets.CACHE_MAX = max
  end)

  it("refuses a write with a secret and warns about missing provenance", function()
    local path = tmpname(".db")
    local nx = assert(kip.open { path = path, policies = { "default" } })
    local r = nx:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "X"} SET ATTRIBUTES { note: :n } } } WITH METADATA { source: "s", author: "a" }',
      { n = "api key sk-abcdefghijklmnopqrstuvwx" })
    assert.equal("KIP_4004", r.error.code)
    assert.matches("API key", r.error.message)
    local w = nx:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "X"} } }')
    assert.is_table(w.result)
    assert.matches("provenance", w.warnings[1])
    local ok = nx:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "Y"} } } WITH METADATA { source: "s", author: "a" }')
    assert.is_nil(ok.warnings)
    nx:close()
    cleanup(path)
  end)

  it("logs its refusals and warnings beside the nexus, not the routine scope of a read", function()
    local path = tmpname(".db")
    local nx = assert(kip.open { path = path, policies = { "default" }, ctx = { user = "ana", roles = { "agent" } } })
    local log = require "kip.policy_log"
    nx:execute('FIND(?p) WHERE { ?p {type: "Person"} }') -- RESTRICT (the scope), no reason: not a line
    assert.equal(0, #log.recent(nx))
    nx:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "X"} SET ATTRIBUTES { note: :n } } } WITH METADATA { source: "s", author: "a" }',
      { n = "api key sk-abcdefghijklmnopqrstuvwx" })
    nx:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "X"} } }') -- a warning: no provenance
    local recent, counts = log.recent(nx)
    assert.equal(2, #recent)
    assert.same({ "pre", "RESTRICT", "UPSERT" }, { recent[1].stage, recent[1].state, recent[1].kind })
    assert.matches("provenance", recent[1].warnings[1])
    assert.same({ "BLOCK", { "default" }, "ana" }, { recent[2].state, recent[2].policies, recent[2].caller.user })
    assert.is_nil(recent[2].reasons[1]:find("sk-abcdefghij", 1, true)) -- no secret reaches the log
    assert.is_true(counts.RESTRICT >= 1 and counts.BLOCK == 1)
    -- past its size it starts a new file, the last one kept beside it
    local old = log.MAX_BYTES
    log.MAX_BYTES = 10
    nx:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "Y"} } }')
    log.MAX_BYTES = old
    assert.truthy(io.open(path .. "-policy.log.1")) -- rotated
    assert.equal(3, #log.recent(nx))
    nx:close()
    cleanup(path)
  end)

  it("shows private facts only about the counterparty or $self", function()
    local path = tmpname(".db")
    local admin = assert(kip.open { path = path })
    assert.is_nil(admin:execute [[
UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Drink"} }
  CONCEPT ?alice { {type: "Person", name: "Alice"} }
  CONCEPT ?bob { {type: "Person", name: "Bob"} }
  CONCEPT ?tea { {type: "Drink", name: "tea"} }
  CONCEPT ?coffee { {type: "Drink", name: "coffee"} }
  CONCEPT ?water { {type: "Drink", name: "water"} }
  PROPOSITION ?a { (?alice, "prefers", ?tea) } WITH METADATA { access_level: "private" }
  PROPOSITION ?b { (?bob, "prefers", ?coffee) } WITH METADATA { access_level: "private" }
  PROPOSITION ?c { (?bob, "prefers", ?water) }
  PROPOSITION ?s { ({type: "Person", name: "$self"}, "prefers", ?water) } WITH METADATA { access_level: "private" }
}]].error)
    admin:close()
    local nx = assert(kip.open { path = path, policies = { "default" }, ctx = { counterparty = "Alice" } })
    local function prefs(ctx)
      local r = nx:call({ command = 'FIND(?p.name, ?d.name) WHERE { (?p, "prefers", ?d) } ORDER BY ?p.name, ?d.name' }, { ctx = ctx })
      assert.is_nil(r.error)
      local rows = {}
      for i = 1, #r.result[1] do rows[i] = r.result[1][i] .. ":" .. r.result[2][i] end
      return table.concat(rows, " ")
    end
    assert.equal("$self:water Alice:tea Bob:water", prefs())
    assert.equal("$self:water Bob:coffee Bob:water", prefs { counterparty = "Bob" })
    assert.equal("$self:water Bob:water", prefs { counterparty = "Nobody" })
    nx:close()
    cleanup(path)
  end)
end)
