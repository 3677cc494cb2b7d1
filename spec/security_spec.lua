-- busted specs for the adversarial cases of docs/security.md that live in
-- the Lua host and the core: hostile policies (pattern and memory bombs,
-- cyclic encodes), unbound identities in scopes, NUL identities, secrets on
-- every write path, hostile filter sizes and nesting. The scope-probe matrix
-- across CLI, MCP and HTTP is tests/e2e_security.py.
local kip = require "kip"
local core = require "kip.core"
local policy = require "kip.policy"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("hostile policies fail closed and the host lives on", function()
  local dir, path, nx
  before_each(function()
    dir = H.tmpdb(".d")
    os.execute("mkdir -p " .. dir)
    path = H.tmpdb()
  end)
  after_each(function()
    if nx then nx:close() nx = nil end
    H.cleanup(path)
    os.execute("rm -rf " .. dir)
  end)

  local function refused_by(body)
    write(dir .. "/hostile.lua", "return kip.policy { name = 'hostile', pre_check = function(req) " .. body .. " end }")
    nx = assert(kip.open { path = path, policies = { "hostile" }, policy_dirs = { dir } })
    local t0 = os.clock()
    local r = nx:execute("DESCRIBE DOMAINS")
    local spent = os.clock() - t0
    assert.equal("KIP_4004", r.error.code)
    -- the next request (policy-free) is answered: nothing is wedged
    local n2 = assert(kip.open { path = path })
    assert.is_table(n2:execute("DESCRIBE DOMAINS").result)
    n2:close()
    return r.error.message, spent
  end
  local function message_of(body) return (refused_by(body)) end

  it("a catastrophic pattern (method call) exhausts the pattern budget", function()
    local msg, spent = refused_by('return (string.rep("a", 5000)):find(string.rep("a*", 30) .. "b")')
    assert.matches("pattern budget exceeded", msg)
    assert.is_true(spent < 10)
  end)

  it("a catastrophic pattern through gmatch and gsub, even under pcall", function()
    assert.matches("pattern budget exceeded", message_of([[
      local s = string.rep("a", 3000)
      for i = 1, 100 do pcall(string.gsub, s, string.rep("a*", 25) .. "b", "") end
      for w in s:gmatch(string.rep("a-", 25) .. "b") do end]]))
  end)

  it("a memory bomb by concatenation hits the memory cap", function()
    assert.matches("memory cap exceeded", message_of('local s = "x" for i = 1, 40 do s = s .. s end'))
  end)

  it("a memory bomb by tables hits the memory cap", function()
    local msg = refused_by('local t = {} for i = 1, 1e9 do t[i] = { i } end')
    assert.is_truthy(msg:find("memory cap exceeded", 1, true) or msg:find("instruction budget", 1, true))
  end)

  it("string.rep cannot build a huge string in one call", function()
    assert.matches("string.rep: result longer than", message_of('return ("x"):rep(2^31)'))
  end)

  it("json.encode of a cyclic or very deep table is an error, not a crash", function()
    assert.matches("cycle", message_of('local t = {} t.t = t return json.encode(t)'))
    assert.matches("deeper", message_of('local t = {} local c = t for i = 1, 10000 do c[1] = {} c = c[1] end return json.encode(t)'))
  end)

  it("a response re-encoded by a policy keeps the engine's number spelling", function()
    write(dir .. "/redact.lua", [[return kip.policy { name = 'redact', post_check = function(req, resp)
      resp.policy_seen = true
      return resp
    end }]])
    local admin = assert(kip.open { path = path })
    assert.is_nil(admin:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "N"} SET ATTRIBUTES { x: 0.9, y: 2.0, z: 10 } } }').error)
    admin:close()
    nx = assert(kip.open { path = path, policies = { "redact" }, policy_dirs = { dir } })
    local text = nx:call_json('{"command": "FIND(?p.attributes) WHERE { ?p {type: \\"Person\\", name: \\"N\\"} }"}')
    assert.matches('"x":0.9[,}]', text)
    -- (LuaJIT has one number type: 2.0 and 2 are the same value there)
    assert.matches(jit and '"y":2[.0]*[,}]' or '"y":2%.0[,}]', text)
    assert.matches('"policy_seen":true', text)
  end)

  it("ordinary patterns keep working inside and outside the sandbox", function()
    write(dir .. "/ok.lua", [[return kip.policy { name = 'ok', pre_check = function(req)
      local a, b = ("key=value"):match("(%w+)=(%w+)")
      local n = select(2, ("a1b2c3"):gsub("%d", ""))
      local words = {}
      for w in ("x y z"):gmatch("%a") do words[#words + 1] = w end
      if a ~= "key" or b ~= "value" or n ~= 3 or #words ~= 3 or ("abc"):find("b", 1, true) ~= 2 then
        return { state = "BLOCK", reasons = { "patterns broken" } }
      end
    end }]])
    nx = assert(kip.open { path = path, policies = { "ok" }, policy_dirs = { dir } })
    assert.is_table(nx:execute("DESCRIBE DOMAINS").result)
    assert.equal("string", type(("x"):rep(3)))
    assert.equal(string.find, getmetatable("").__index.find) -- the host's strings are restored
  end)
end)

describe("core limits on hostile input", function()
  local current = H.fresh_nexus(before_each, after_each)

  local function timed(cmd)
    local t0 = os.clock()
    local r = current():execute(cmd)
    return r, os.clock() - t0
  end

  it("100 000-deep nesting is refused at level 65, in linear time", function()
    for _, cmd in ipairs {
      'FIND(?x) WHERE { ?x {type: "Person"} FILTER(' .. ("("):rep(100000) .. "1" .. (")"):rep(100000) .. ") }",
      'UPSERT { CONCEPT ?x { {type: "Person", name: "a"} SET ATTRIBUTES { a: ' .. ("["):rep(100000) .. ("]"):rep(100000) .. " } } }",
      'FIND(?x) WHERE { ?x {type: "Person"} ' .. ("NOT { "):rep(20000) .. "?x {type: \"Person\"}" .. (" }"):rep(20000) .. " }",
    } do
      local r, spent = timed(cmd)
      assert.equal("KIP_4002", r.error.code)
      assert.matches("nesting deeper than 64", r.error.message)
      assert.is_true(spent < 0.5, ("%.3f s"):format(spent))
    end
  end)

  it("10 000-term && / || chains are refused with the stated limit; chains that fit run", function()
    local terms = {}
    for i = 1, 10000 do terms[i] = ('?x.name == "n%d"'):format(i) end
    local r, spent = timed('FIND(?x) WHERE { ?x {type: "Person"} FILTER(' .. table.concat(terms, " || ") .. ") }")
    assert.equal("KIP_4002", r.error.code)
    assert.matches("more than 4096 operands", r.error.message)
    assert.is_true(spent < 0.5)
    terms[4000] = '?x.name == "$self"'
    local ok = current():execute('FIND(?x.name) WHERE { ?x {type: "Person"} FILTER(' .. table.concat(terms, " || ", 1, 4000) .. ") }")
    assert.same({ "$self" }, ok.result)
    local all = current():execute('FIND(COUNT(?x)) WHERE { ?x {type: "Person"} FILTER(' .. table.concat(terms, " && ", 1, 3999):gsub("==", "!=") .. ") }")
    assert.equal(2, all.result)
  end)

  it("IN with 10 000 items is one call and keeps KIP equality", function()
    local items = {}
    for i = 1, 10000 do items[i] = ('"n%d"'):format(i) end
    items[#items + 1] = '"$system"'
    local r = current():execute('FIND(?x.name) WHERE { ?x {type: "Person"} FILTER(IN(?x.name, [' .. table.concat(items, ",") .. "])) }")
    assert.same({ "$system" }, r.result)
    assert.is_nil(current():execute('UPSERT { CONCEPT ?x { {type: "Person", name: "N"} SET ATTRIBUTES { n: 3, b: true, o: {k: [1]} } } }').error)
    for _, list in ipairs { "[3.0]", "[true]", '[{"k": [1]}]', '["x", 3]' } do
      local hit = current():execute(('FIND(COUNT(?x)) WHERE { ?x {type: "Person", name: "N"} FILTER(IN(?x.attributes.%s, %s)) }')
        :format(list == "[true]" and "b" or list:find("k") and "o" or "n", list))
      assert.equal(1, hit.result, list)
    end
  end)

  it("NUL characters never reach an identity (literal, escape or parameter)", function()
    for _, req in ipairs {
      { command = 'UPSERT { CONCEPT ?b { {type: "Person", name: "Bob\\u0000x"} } }' },
      { command = 'UPSERT { CONCEPT ?b { {type: "Person", name: "Bob\0x"} } }' },
      { command = 'UPSERT { CONCEPT ?b { {type: "Person", name: :n} } }', parameters = { n = "Bob\0x" } },
      { command = 'FIND(?b) WHERE { ?b {type: "Person", name: :n} }', parameters = { n = "Bob\0x" } },
    } do
      local r = current():call(req)
      assert.equal("KIP_1001", r.error.code)
      assert.matches("NUL", r.error.message)
    end
    assert.same({}, current():execute('FIND(?b) WHERE { ?b {type: "Person", name: "Bob"} }').result)
  end)

  it("a scope placeholder bound to null is refused: an unbound identity never matches", function()
    local r = current():call({ command = 'FIND(COUNT(?x)) WHERE { ?x {type: "Person"} }' },
      { eligibility = "?e.subject == :who", eligibility_params = '{"who": null}' })
    assert.equal("KIP_4004", r.error.code)
    assert.matches("unbound identity", r.error.message)
  end)
end)

describe("the default policy on every write path", function()
  local path, nx
  before_each(function()
    path = H.tmpdb()
    local admin = assert(kip.open { path = path })
    assert.is_nil(admin:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "Ann"} } CONCEPT ?q { {type: "Person", name: "Ann2"} } }').error)
    admin:close()
    nx = assert(kip.open { path = path, policies = { "default" } })
  end)
  after_each(function()
    nx:close()
    H.cleanup(path)
  end)

  for name, cmd in pairs {
    upsert = 'UPSERT { CONCEPT ?p { {type: "Person", name: "Ann"} SET ATTRIBUTES { note: "%s" } } } WITH METADATA { source: "s", author: "a" }',
    upsert_metadata = 'UPSERT { CONCEPT ?p { {type: "Person", name: "Ann"} } } WITH METADATA { note: "%s" }',
    update_attributes = 'UPDATE ?p SET ATTRIBUTES { note: "%s" } WHERE { ?p {type: "Person", name: "Ann"} }',
    update_metadata = 'UPDATE ?p SET METADATA { note: "%s" } WHERE { ?p {type: "Person", name: "Ann"} }',
    update_expression = 'UPDATE ?p SET ATTRIBUTES { note: COALESCE(?p.attributes.note, "%s") } WHERE { ?p {type: "Person", name: "Ann"} }',
  } do
    it("refuses a secret in " .. name, function()
      for _, secret in ipairs { "sk-abcdefghijklmnopqrstuvwx", "password: hunter22", "-----BEGIN RSA PRIVATE KEY-----" } do
        local r = nx:execute(cmd:format(secret))
        assert.equal("KIP_4004", r.error and r.error.code, name .. " " .. secret)
      end
      local check = nx:execute('FIND(?p.attributes.note, ?p.metadata.note) WHERE { ?p {type: "Person", name: "Ann"} }')
      assert.same({ { core.null }, { core.null } }, check.result)
    end)
  end

  it("refuses a secret passed as a parameter of UPDATE", function()
    local r = nx:execute('UPDATE ?p SET ATTRIBUTES { note: :n } WHERE { ?p {type: "Person", name: "Ann"} }', { n = "token ghp_abcdefghijklmnopqrstuvwxyz0123" })
    assert.equal("KIP_4004", r.error.code)
  end)
end)

describe("the sandbox limits are exposed for other hosts", function()
  it("policy.SAFE_STRING bounds patterns outside policies too", function()
    core.sandbox_begin(0, 100000)
    local ok, err = pcall(policy.SAFE_STRING.find, ("a"):rep(2000), ("a*"):rep(20) .. "b")
    core.sandbox_end()
    assert.is_false(ok)
    assert.matches("pattern budget", err)
  end)
end)
