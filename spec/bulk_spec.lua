-- busted specs for bulk loads that defer the SEARCH index (kip import):
-- writes with defer_index stay unindexed (SEARCH says so), sync_index
-- indexes them in batches with progress, and public ids never collide.
local kip = require "kip"
local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

-- `chunks` bulk commands (defer_index) of `per` concepts each, named "<name> 1", "<name> 2", ...
local function load_people(nx, name, chunks, per)
  for chunk = 0, chunks - 1 do
    local blocks = {}
    for i = 1, per do blocks[i] = ('CONCEPT ?c%d { {type: "Person", name: "%s %d"} }'):format(i, name, chunk * per + i) end
    assert.is_nil(nx:call({ command = "UPSERT { " .. table.concat(blocks, " ") .. " }" }, { defer_index = true }).error)
  end
end

describe("deferred indexing", function()
  local current = H.fresh_nexus(before_each, after_each)

  it("leaves bulk writes unindexed until sync_index, and SEARCH warns meanwhile", function()
    -- fewer elements than the new nexus holds: no index is built beside them
    load_people(current(), "Quokka", 1, 30)
    local s = current():execute('SEARCH CONCEPT "quokka" LIMIT 3')
    assert.same({}, s.result)
    assert.matches("not indexed yet", s.warnings[1])
    local seen = {}
    assert.is_true(current().handle:sync_index(10, function(done, total) seen[#seen + 1] = done .. "/" .. total end))
    -- (a PostgreSQL nexus indexes in one statement: docs/postgresql.md "Round trips and plans": bulk loads)
    assert.same(H.postgresql() and { "30/30" } or { "10/30", "20/30", "30/30" }, seen)
    local after = current():execute('SEARCH CONCEPT "quokka" LIMIT 3')
    assert.equal(3, #after.result)
    assert.is_nil(after.warnings)
  end)

  it("a load into an empty nexus is indexed beside it: the next command finds all of it", function()
    load_people(current(), "Quoll", 2, 2000)
    local r = current():execute('SEARCH CONCEPT "quoll" LIMIT 5000')
    assert.equal(4000, #r.result)
    assert.is_nil(r.warnings)
    assert.equal("Quoll 3999", current():execute('SEARCH CONCEPT "Quoll 3999" LIMIT 1').result[1].name)
  end)

  it("a pass that indexes most of the nexus merges the index, and SEARCH finds everything", function()
    load_people(current(), "Bilby", 3, 4000)
    assert.is_true(current().handle:sync_index(5000))
    local r = current():execute('SEARCH CONCEPT "bilby" LIMIT 20000')
    assert.equal(12000, #r.result)
    assert.equal("Bilby 11999", current():execute('SEARCH CONCEPT "Bilby 11999" LIMIT 1').result[1].name)
  end)

  it("a load stopped before its end: the next open builds what it deferred and SEARCH finds all of it", function()
    -- another process loads into an empty nexus and exits without closing it. Its first command also says
    -- again a link the nexus has, by handles: a server's batch assumed it new, so that command is undone and
    -- run again (its dropped indexes came back with the rollback, and are dropped again)
    local path = H.tmpdb()
    local script = H.tmpdb(".lua")
    local f = assert(io.open(script, "w"))
    f:write(([[
local kip = require "kip"
local nx = assert(kip.open { path = %q })
for chunk = 0, 1 do
  local blocks = {}
  for i = 1, 2000 do blocks[i] = ('CONCEPT ?c%%d { {type: "Person", name: "Quokka %%d"} }'):format(i, chunk * 2000 + i) end
  if chunk == 0 then
    blocks[#blocks + 1] = 'CONCEPT ?pt { {type: "$ConceptType", name: "Person"} } CONCEPT ?cs { {type: "Domain", '
      .. 'name: "CoreSchema"} } PROPOSITION ?l { (?pt, "belongs_to_domain", ?cs) }'
  end
  assert(not nx:call({ command = "UPSERT { " .. table.concat(blocks, " ") .. " }" }, { defer_index = true }).error)
end
os.exit(0, false)
]]):format(path))
    f:close()
    local status = os.execute((jit and "luajit " or "lua5.4 ") .. script) -- the interpreter running the specs
    assert.is_true(status == true or status == 0)
    os.remove(script)
    local nx = assert(kip.open { path = path })
    local r = nx:execute('SEARCH CONCEPT "quokka" LIMIT 5000')
    assert.equal(4000, #r.result)
    assert.is_nil(r.warnings)
    assert.same({ "Quokka 3999" }, nx:execute('FIND(?p.name) WHERE { ?p {name: "Quokka 3999"} }').result)
    nx:close()
    H.cleanup(path)
  end)

  it("an ordinary write indexes what a deferred one left", function()
    assert.is_nil(current():call({ command = 'UPSERT { CONCEPT ?c { {type: "Person", name: "Wombat"} } }' }, { defer_index = true }).error)
    assert.is_nil(current():execute('UPSERT { CONCEPT ?c { {type: "Person", name: "Numbat"} } }').error)
    assert.equal(1, #current():execute('SEARCH CONCEPT "wombat"').result)
  end)

  it("ids of large and small transactions never collide", function()
    local ids = {}
    for round = 1, 20 do
      local n = round % 2 == 0 and 1 or 1500
      local blocks = {}
      for i = 1, n do blocks[i] = ('CONCEPT ?c%d { {type: "Person", name: "R%d-%d"} }'):format(i, round, i) end
      local r = current():execute("UPSERT { " .. table.concat(blocks, " ") .. " }")
      assert.is_nil(r.error)
      for _, id in ipairs(r.result.upsert_concept_nodes) do
        assert.is_nil(ids[id], id)
        ids[id] = true
      end
    end
  end)
end)

describe("capsule statements (kip import's splitter)", function()
  local capsule = require "kip.capsule"

  it("finds top-level statements with their lines, not keywords in strings, comments or blocks", function()
    local text = table.concat({
      "// FIND in a comment",
      'UPSERT { CONCEPT ?a { {type: "T", name: "DELETE me"} SET ATTRIBUTES { note: "a \\" UPSERT" } } }',
      "",
      "FIND(?x) WHERE {",
      '  ?x {type: "T"}  // UPDATE',
      "}",
      'UPSERT { CONCEPT ?b { {type: "T", name: "multi\\nline"} } } WITH METADATA { source: "s" }',
    }, "\n")
    local starts, lines = capsule.statements(text)
    assert.same({ 2, 4, 7 }, lines)
    assert.equal("UPSERT", text:sub(starts[1], starts[1] + 5))
    assert.equal("FIND", text:sub(starts[2], starts[2] + 3))
    assert.equal(3, #starts)
  end)

  it("tells complete commands from open ones", function()
    assert.is_true(capsule.complete('FIND(?x) WHERE { ?x {type: "T"} }'))
    assert.is_false(capsule.complete('FIND(?x) WHERE { ?x {type: "T"}'))
    assert.is_false(capsule.complete('FIND(?x) WHERE { ?x {name: "open } string'))
    assert.is_false(capsule.complete("   "))
  end)
end)

describe("kip.transfer.apply", function()
  local current = H.fresh_nexus(before_each, after_each)
  local transfer = require "kip.transfer"

  it("applies batches, replays a failing one statement by statement and reports the bad line", function()
    local lines = { 'UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Quoll"} } }' }
    for i = 1, 40 do lines[#lines + 1] = ('UPSERT { CONCEPT ?c { {type: "Quoll", name: "q%d"} } }'):format(i) end
    lines[21] = 'UPSERT { CONCEPT ?c { {type: "NoSuchType", name: "bad"} } }'
    local errors = {}
    local st = transfer.apply(current(), table.concat(lines, "\n"), {
      batch_bytes = 600, on_error = function(line, err) errors[#errors + 1] = line .. " " .. err.code end })
    assert.equal(40, st.applied)
    assert.equal(1, st.failed)
    assert.same({ "21 KIP_2001" }, errors)
    assert.equal(39, #current():execute('FIND(?c) WHERE { ?c {type: "Quoll"} }').result)
  end)

  it("streams a file in chunks as if it were read whole: statements cut by a chunk, errors by file line, --from", function()
    local lines = { "// a capsule read in pieces", 'UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Quoll"} } }' }
    for i = 1, 30 do
      lines[#lines + 1] = ('UPSERT {\n  CONCEPT ?c { {type: "Quoll", name: "q%d"}\n  SET ATTRIBUTES { note: "a } UPSERT { string" } } }'):format(i)
    end
    lines[12] = 'UPSERT { CONCEPT ?c { {type: "NoSuchType", name: "bad"} } }'
    local text = table.concat(lines, "\n")
    local path = H.tmpdb(".kip")
    local f = assert(io.open(path, "wb"))
    f:write(text)
    f:close()
    local whole_errors = {}
    local whole = transfer.apply(current(), text, { batch_bytes = 300,
      on_error = function(line, err) whole_errors[#whole_errors + 1] = line .. " " .. err.code end })
    local saved = transfer.CHUNK_BYTES
    for _, chunk in ipairs { 1, 7, 64, 1000, #text, 1048576 } do
      transfer.CHUNK_BYTES = chunk
      for _, from in ipairs { 1, 13 } do
        local errors, last_done = {}, 0
        local fh = assert(io.open(path, "rb"))
        local st = transfer.apply_stream(current(), fh, { batch_bytes = 300, from = from,
          on_error = function(line, err) errors[#errors + 1] = line .. " " .. err.code end,
          on_progress = function(done) assert.is_true(done >= last_done and done <= #text); last_done = done end })
        fh:close()
        assert.equal(31, st.statements)
        if from == 1 then
          assert.same({ whole.applied, whole.failed, whole.elements }, { st.applied, st.failed, st.elements }, "chunk " .. chunk)
          assert.same(whole_errors, errors, "chunk " .. chunk)
        else
          assert.same({ 19, 0 }, { st.applied, st.failed }, "chunk " .. chunk)
        end
      end
    end
    transfer.CHUNK_BYTES = saved
    os.remove(path)
    assert.same({ "30 KIP_2001" }, whole_errors)
    assert.equal(29, #current():execute('FIND(?c) WHERE { ?c {type: "Quoll"} }').result)
  end)

  it("refuses a handle defined twice in one UPSERT, naming both lines", function()
    local blocks = {}
    for i = 1, 2000 do blocks[i] = ('CONCEPT ?c%d { {type: "Person", name: "P%d"} }'):format(i, i) end
    blocks[1500] = 'CONCEPT ?c7 { {type: "Person", name: "again"} }'
    local r = current():execute("UPSERT {\n" .. table.concat(blocks, "\n") .. "\n}")
    assert.equal("KIP_3001", r.error.code)
    assert.matches("handle %?c7 is defined twice in one UPSERT %(first at line 8%)", r.error.message)
    assert.equal(1501, r.error.line)
  end)
end)

-- An UPSERT that writes new elements tries the insert first (an insert that
-- meets an existing element writes nothing and gives its id back), and
-- remembers the concepts it found or created for the endpoints that name
-- them again (exec_upsert.c). Neither may change what a command does.
describe("one command's match-or-create", function()
  local current = H.fresh_nexus(before_each, after_each)

  before_each(function()
    assert.is_nil(current():execute('UPSERT { CONCEPT ?k { {type: "$PropositionType", name: "knows"} } }').error)
  end)

  local function num(id) return tonumber(id:match("^[CP]:(%d+)$")) end
  local function version(cmd) -- the first value FIND returns
    local r = current():execute(cmd).result
    if type(r) == "table" then return r[1] end
    return r
  end

  it("merges into existing elements between new ones, and new ones keep consecutive ids", function()
    assert.is_nil(current():execute([[UPSERT { CONCEPT ?b { {type: "Person", name: "Bea"} SET ATTRIBUTES { v: 1 } }
      CONCEPT ?e { {type: "Person", name: "Eve"} SET PROPOSITIONS { ("knows", ?b) } } }]]).error)
    local before = current():execute('FIND(?b.id) WHERE { ?b {type: "Person", name: "Bea"} }').result[1]
    local people = version('FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }')
    local r = current():execute([[UPSERT {
      CONCEPT ?a { {type: "Person", name: "Ada"} SET PROPOSITIONS { ("knows", {type: "Person", name: "Bea"}) } }
      CONCEPT ?b { {type: "Person", name: "Bea"} SET ATTRIBUTES { v: 2 } }
      CONCEPT ?e { {type: "Person", name: "Eve"} SET PROPOSITIONS { ("knows", {type: "Person", name: "Bea"}) } }
      CONCEPT ?c { {type: "Person", name: "Cy"} SET PROPOSITIONS { ("knows", {type: "Person", name: "Ada"}) } }
      PROPOSITION ?k { ({type: "Person", name: "Eve"}, "knows", {type: "Person", name: "Bea"}) SET ATTRIBUTES { since: 2020 } }
    }]])
    assert.is_nil(r.error)
    local ids = r.result.upsert_concept_nodes
    assert.equal(before, ids[2])
    -- Ada's link, then Bea met (its id given back), Eve met, Cy: the new ones are consecutive
    assert.equal(num(ids[1]) + 2, num(ids[4]))
    assert.equal(2, version('FIND(?b.metadata._version) WHERE { ?b {type: "Person", name: "Bea"} }'))
    assert.equal(2, version('FIND(?b.attributes.v) WHERE { ?b {type: "Person", name: "Bea"} }'))
    assert.equal(1, version('FIND(?c.metadata._version) WHERE { ?c {type: "Person", name: "Cy"} }'))
    -- the link Eve knows Bea existed: merged, not duplicated
    assert.equal(1, version('FIND(COUNT(?l)) WHERE { ?l ({type: "Person", name: "Eve"}, "knows", {type: "Person", name: "Bea"}) }'))
    assert.equal(2020, version('FIND(?l.attributes.since) WHERE { ?l ({type: "Person", name: "Eve"}, "knows", {type: "Person", name: "Bea"}) }'))
    assert.equal(people + 2, version('FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }'))
    -- a re-run changes nothing
    local again = current():execute([[UPSERT { CONCEPT ?a { {type: "Person", name: "Ada"} }
      CONCEPT ?c { {type: "Person", name: "Cy"} SET PROPOSITIONS { ("knows", {type: "Person", name: "Ada"}) } } }]])
    assert.same({ ids[1], ids[4] }, again.result.upsert_concept_nodes)
    assert.equal(1, version('FIND(?c.metadata._version) WHERE { ?c {type: "Person", name: "Cy"} }'))
  end)

  it("names concepts created earlier in the command, and still refuses missing ones", function()
    local r = current():execute([[UPSERT { CONCEPT ?a { {type: "Person", name: "Ann"} }
      PROPOSITION ?k { ({type: "Person", name: "Ann"}, "knows", {type: "Person", name: "Ann"}) } }]])
    assert.is_nil(r.error)
    assert.matches("self%-loop", r.warnings[1])
    local bad = current():execute([[UPSERT { CONCEPT ?z { {type: "Person", name: "Zed"} }
      PROPOSITION ?k { ({type: "Person", name: "Zed"}, "knows", {type: "Person", name: "Nobody"}) } }]])
    assert.matches('"Nobody"} does not exist', bad.error.message, 1, true)
    assert.equal(0, version('FIND(COUNT(?p)) WHERE { ?p {type: "Person", name: "Zed"} }'))
  end)

  it("re-asserts existing elements of a write-protected kind unchanged, and refuses creating new ones", function()
    assert.is_nil(current():execute([[UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Secret"} }
      CONCEPT ?s { {type: "Secret", name: "s1"} SET PROPOSITIONS { ("knows", {type: "Person", name: "$self"}) } } }]]).error)
    local guarded = { write_protected = { "Secret", "knows" } }
    local same = current():execute([[UPSERT { CONCEPT ?n { {type: "Person", name: "New"} }
      CONCEPT ?s { {type: "Secret", name: "s1"} SET PROPOSITIONS { ("knows", {type: "Person", name: "$self"}) } } }]], nil, guarded)
    assert.is_nil(same.error)
    local new = current():execute('UPSERT { CONCEPT ?s { {type: "Secret", name: "s2"} } }', nil, guarded)
    assert.equal("KIP_4004", new.error.code)
    local link = current():execute([[UPSERT { CONCEPT ?s { {type: "Secret", name: "s1"}
      SET PROPOSITIONS { ("knows", {type: "Person", name: "New"}) } } }]], nil, guarded)
    assert.equal("KIP_4004", link.error.code)
  end)
end)
