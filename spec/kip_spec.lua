-- busted specs for the Lua binding and host module (run under Lua 5.4 and LuaJIT).
local kip = require "kip"
local core = kip.core

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")
local tmpdb, cleanup = H.tmpdb, H.cleanup

describe("kip.core", function()
  it("has a version", function()
    assert.is_string(core.version)
  end)

  it("round-trips JSON with exact integers and empty arrays", function()
    local v = core.json_decode('{"a":[],"b":9007199254740993,"c":0.25,"d":null}')
    assert.equal(0, #v.a)
    assert.equal('[]', core.json_encode(v.a))
    if math.type then assert.equal(9007199254740993, v.b) end
    assert.equal(0.25, v.c)
    assert.equal(kip.null, v.d)
  end)

  it("decodes JSON as RFC 8259 says, and names the line and column of what is not", function()
    local v = core.json_decode('{"s":"x\\u00e9\\ud83d\\ude00\\n\\u0000","n":-12,"r":-3e2,"t":[true,false]}')
    assert.equal("x\195\169\240\159\152\128\n\0", v.s)
    assert.equal(-12, v.n)
    assert.equal(-300, v.r)
    assert.same({ true, false }, { v.t[1], v.t[2] })
    -- a long number keeps its exponent
    assert.equal(1.5e5, core.json_decode("1.5" .. string.rep("0", 80) .. "e5"))
    -- the key order an object was written in, kept unless asked not to
    assert.equal('{"z":1,"a":2,"m":3}', core.json_encode(core.json_decode('{"z":1,"a":2,"m":3}')))
    assert.equal('{"a":2,"m":3,"z":1}', core.json_encode(core.json_decode('{"z":1,"a":2,"m":3}', true)))
    for text, where in pairs {
      ['[1,]'] = "line 1 column 4", ['{"a"}'] = "line 1 column 5", ['"\255"'] = "column 2",
      ['"abc'] = "column 1", ['01'] = "column 2", ['[1]\n x'] = "line 2 column 2", [''] = "column 1",
      ['"\\ud800"'] = "surrogate", ['1e999'] = "overflow", ['9223372036854775808'] = "too big integer",
      ['"a\tb"'] = "control character",
    } do
      local none, err = core.json_decode(text)
      assert.is_nil(none, text)
      assert.truthy(err:find(where, 1, true), text .. ": " .. tostring(err))
    end
    assert.matches("deeper than 200", select(2, core.json_decode(string.rep("[", 201) .. string.rep("]", 201))))
    assert.is_table(core.json_decode(string.rep("[", 200) .. string.rep("]", 200)))
  end)

  it("parses commands into an AST and reports syntax errors with positions", function()
    local ast = assert(kip.parse('FIND(?e.name) WHERE { ?e {type: "Person"} } LIMIT 3'))
    assert.equal("FIND", ast.statements[1].statement)
    assert.equal(3, ast.statements[1].limit)
    local _, err = kip.parse('FIND(?e.name WHERE { ?e {type: "Person"} }')
    assert.equal("KIP_1001", err.code)
    assert.equal(1, err.line)
    assert.truthy(err.column > 1)
    local _, err2 = kip.parse('FIND(?1e) WHERE { ?1e {type: "Person"} }')
    assert.equal("KIP_1002", err2.code)
  end)
end)

describe("kip.pretty and kip.result_text", function()
  it("re-indent without reordering keys or respelling numbers", function()
    local raw = '{"result":{"z":1,"a":[0.1,{}],"s":"x,\\"}"},"next_cursor":"k"}'
    local r = kip.result_text(raw)
    assert.equal('{"z":1,"a":[0.1,{}],"s":"x,\\"}"}', r)
    assert.equal('{\n  "z": 1,\n  "a": [\n    0.1,\n    {}\n  ],\n  "s": "x,\\"}"\n}', kip.pretty(r))
    assert.is_nil(kip.result_text('{"error":{}}'))
  end)
end)

describe("kip.open", function()
  local path, nx
  before_each(function()
    path = tmpdb()
    nx = assert(kip.open { path = path })
  end)
  after_each(function()
    nx:close()
    cleanup(path)
  end)

  it("bootstraps the Genesis schema", function()
    local r = nx:execute('FIND(?d.name) WHERE { ?d {type: "Domain"} } ORDER BY ?d.name')
    assert.same({ "Archived", "CoreSchema", "System", "Unsorted" }, r.result)
  end)

  it("upserts, queries with parameters and keeps ids exact", function()
    local r = nx:execute([[
      UPSERT { CONCEPT ?p { {type: "Person", name: :name} SET ATTRIBUTES { person_class: "Human", age: :age } } }
      WITH METADATA { source: "spec", author: "busted" }]], { name = "Alice", age = 41 })
    assert.is_nil(r.error)
    assert.equal(1, r.result.blocks)
    assert.matches("^C:%d+$", r.result.upsert_concept_nodes[1])
    local q = nx:execute('FIND(?p.attributes.age, ?p.metadata._version) WHERE { ?p {type: "Person", name: :n} }', { n = "Alice" })
    assert.same({ { 41 }, { 1 } }, q.result)
  end)

  it("rejects KML on the readonly interface and keeps the graph unchanged", function()
    local r = nx:call({ command = 'UPSERT { CONCEPT ?p { {type: "Person", name: "Bob"} } }' }, { readonly = true })
    assert.equal("KIP_4004", r.error.code)
    local q = nx:execute('FIND(?p) WHERE { ?p {type: "Person", name: "Bob"} }')
    assert.equal(0, #q.result)
  end)

  it("protects the core", function()
    local r = nx:execute('UPSERT { CONCEPT ?s { {type: "Person", name: "$self"} SET ATTRIBUTES { core_directives: [] } } }')
    assert.equal("KIP_3004", r.error.code)
  end)

  it("hands the before-hook the description of the command it executes (nil when it does not parse)", function()
    local seen = {}
    local req = core.json_encode { commands = {
      { command = 'UPSERT { CONCEPT ?p { {type: "Person", name: :n} SET ATTRIBUTES { note: "hi" } } }', parameters = { n = "Desc" } },
      "FIND(?p WHERE", -- a syntax error
    } }
    local r = core.json_decode(nx.handle:call_json(req, { before = function(i, cmd, params_json, description)
      seen[i] = { cmd = cmd, params = params_json, description = description }
      return {}
    end }))
    assert.is_nil(r.result[1].error)
    assert.equal("KIP_1001", r.result[2].error.code)
    local expected = core.json_decode(core.describe(seen[1].cmd, seen[1].params)).result
    assert.same(expected, core.json_decode(seen[1].description))
    assert.equal("Desc", core.json_decode(seen[1].description).writes.concepts[1].name)
    assert.is_nil(seen[2].description)
  end)

  it("refuses to use a closed nexus", function()
    local p2 = tmpdb()
    local n2 = assert(kip.open { path = p2 })
    n2:close()
    assert.has_error(function() n2:call_json('{"command":"DESCRIBE PRIMER"}') end)
    cleanup(p2)
  end)
end)

describe("read-only batches", function()
  it("read one snapshot: a commit from another connection between its commands is not seen", function()
    local path = tmpdb()
    local a = assert(kip.open { path = path, embedder = false })
    local b = assert(kip.open { path = path, embedder = false })
    local up = 'UPSERT { CONCEPT ?p { {type: "Person", name: "Snap"} SET ATTRIBUTES { n: %d } } } WITH METADATA { source: "spec" }'
    assert.is_nil(a:execute(up:format(1)).error)
    local read = { command = 'FIND(?p.attributes.n) WHERE { ?p {type: "Person", name: "Snap"} }' }
    local n = 1
    local function batch(readonly)
      local calls = 0
      return core.json_decode(a.handle:call_json(core.json_encode { commands = { read, read } }, { readonly = readonly,
        before = function()
          calls = calls + 1
          if calls == 2 then
            n = n + 1
            assert.is_nil(b:execute(up:format(n)).error) -- another connection commits between the commands
          end
          return {}
        end }))
    end
    local r = batch(true)
    assert.equal(1, r.result[1].result[1])
    assert.equal(1, r.result[2].result[1]) -- the same snapshot
    r = batch(false) -- a read/write batch runs command by command (RC11 batch semantics)
    assert.equal(2, r.result[1].result[1])
    assert.equal(3, r.result[2].result[1])
    a:close()
    b:close()
    cleanup(path)
  end)
end)
