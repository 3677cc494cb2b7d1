-- busted specs for what the store assumes to save round trips on a server
-- (docs/postgresql.md "Round trips"): a read that assumes the write
-- generation it saw last, and a write command whose new elements wait in a
-- batch, assumed new. Each assumption is checked and, when wrong, the
-- command runs again without it — so these specs write what would break
-- an unchecked assumption, with two connections to one nexus. They hold on
-- SQLite (no assumptions are made there) and run on PostgreSQL in the ctest
-- spec_pg (tests/pg_specs.py).
local kip = require "kip"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

local META = ' WITH METADATA { source: "spec", author: "$system" }'

describe("assumptions the store checks", function()
  local path, a, b
  before_each(function()
    path = H.tmpdb()
    a = assert(kip.open { path = path })
    b = assert(kip.open { path = path })
  end)
  after_each(function()
    a:close()
    b:close()
    H.cleanup(path)
  end)

  local function ok(nx, cmd, params)
    local r = nx:execute(cmd, params)
    assert.is_nil(r.error, cmd:sub(1, 120) .. " -> " .. (r.error and r.error.message or ""))
    return r.result
  end

  it("a read sees another connection's commit, after caching plans and definitions", function()
    local q = 'FIND(?p.name) WHERE { ?p {type: "Person", name: :n} }'
    for _ = 1, 3 do assert.same({}, ok(a, q, { n = "Ada" })) end -- plan, definitions and generation cached
    ok(b, 'UPSERT { CONCEPT ?p { {type: "Person", name: "Ada"} } }' .. META)
    assert.same({ "Ada" }, ok(a, q, { n = "Ada" }))
    -- a type the other connection defines is known at once
    local g = a:execute('FIND(?g.name) WHERE { ?g {type: "Gadget"} }')
    assert.equal("KIP_2001", g.error and g.error.code)
    ok(b, 'UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Gadget"} SET ATTRIBUTES { description: "a thing" } } '
      .. 'CONCEPT ?g { {type: "Gadget", name: "G1"} } }' .. META)
    assert.same({ "G1" }, ok(a, 'FIND(?g.name) WHERE { ?g {type: "Gadget"} }'))
    -- and one it deletes is gone
    ok(b, 'DELETE CONCEPT ?p DETACH WHERE { ?p {type: "Person", name: "Ada"} }')
    assert.same({}, ok(a, q, { n = "Ada" }))
  end)

  it("a writer's caches outlive its own commit only as far as nothing else changed", function()
    -- a's writes keep what it found defined and its guards across its own
    -- commits (PostgreSQL: the generation it moved is known, docs/postgresql.md)
    for i = 1, 3 do ok(a, 'UPSERT { CONCEPT ?p { {type: "Person", name: :n} } }' .. META, { n = "P" .. i }) end
    -- another connection seals Person: a's next write is refused
    assert(b.handle:guard_declare { type = "Person", mode = "sealed", capability = "spec.people", owner = "spec" })
    local r = a:execute('UPSERT { CONCEPT ?p { {type: "Person", name: "P9"} } }' .. META)
    assert.is_not_nil(r.error, "a write under a guard another connection declared")
    assert(b.handle:guard_drop("spec"))
    ok(a, 'UPSERT { CONCEPT ?p { {type: "Person", name: "P9"} } }' .. META)
    -- another connection deletes a type a wrote under: a's next write of it is refused
    ok(b, 'UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Gizmo"} SET ATTRIBUTES { description: "x" } } }' .. META)
    ok(a, 'UPSERT { CONCEPT ?g { {type: "Gizmo", name: "G1"} } }' .. META)
    ok(b, 'DELETE CONCEPT ?g DETACH WHERE { ?g {type: "Gizmo"} }')
    ok(b, 'DELETE CONCEPT ?t DETACH WHERE { ?t {type: "$ConceptType", name: "Gizmo"} }')
    r = a:execute('UPSERT { CONCEPT ?g { {type: "Gizmo", name: "G2"} } }' .. META)
    assert.equal("KIP_2001", r.error and r.error.code)
    -- and one a deletes itself: what a found defined does not outlive its deletion
    ok(a, 'UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Widget"} SET ATTRIBUTES { description: "x" } } }' .. META)
    ok(a, 'UPSERT { CONCEPT ?w { {type: "Widget", name: "W1"} } }' .. META)
    ok(a, 'DELETE CONCEPT ?w DETACH WHERE { ?w {type: "Widget"} }')
    ok(a, 'DELETE CONCEPT ?t DETACH WHERE { ?t {type: "$ConceptType", name: "Widget"} }')
    r = a:execute('UPSERT { CONCEPT ?w { {type: "Widget", name: "W2"} } }' .. META)
    assert.equal("KIP_2001", r.error and r.error.code)
  end)

  it("a type a command defined is not defined after the command fails", function()
    -- the command defines Zed, writes one, then fails: all of it is undone,
    -- and what was found defined inside it is forgotten
    local r = a:execute('UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "Zed"} SET ATTRIBUTES { description: "z" } } '
      .. 'CONCEPT ?z { {type: "Zed", name: "z1"} } CONCEPT ?bad { {type: "Nope", name: "x"} } }' .. META)
    assert.equal("KIP_2001", r.error and r.error.code)
    r = a:execute('UPSERT { CONCEPT ?z { {type: "Zed", name: "z2"} } }' .. META)
    assert.equal("KIP_2001", r.error and r.error.code)
    assert.same({}, ok(b, 'FIND(?t.name) WHERE { ?t {type: "$ConceptType"} FILTER(?t.name == "Zed") }'))
  end)

  it("links that exist already or repeat in one command keep their ids", function()
    ok(a, 'UPSERT { CONCEPT ?x { {type: "Person", name: "A"} } CONCEPT ?y { {type: "Person", name: "B"} } '
      .. 'CONCEPT ?z { {type: "Person", name: "C"} } PROPOSITION ?l { (?x, "mentions", ?y) } }' .. META)
    local first = ok(a, 'FIND(?l) WHERE { ?l ({type: "Person", name: "A"}, "mentions", {type: "Person", name: "B"}) }')[1].id
    -- endpoints by handle (not looked up ahead), an existing link, a link twice
    local r = ok(b, 'UPSERT { CONCEPT ?x { {type: "Person", name: "A"} } CONCEPT ?y { {type: "Person", name: "B"} } '
      .. 'CONCEPT ?z { {type: "Person", name: "C"} } '
      .. 'PROPOSITION ?l1 { (?x, "mentions", ?z) } PROPOSITION ?l2 { (?x, "mentions", ?y) SET ATTRIBUTES { w: 2 } } '
      .. 'PROPOSITION ?l3 { (?x, "mentions", ?z) } }' .. META)
    local ids = r.upsert_proposition_links
    assert.equal(3, #ids)
    assert.equal(first, ids[2])
    assert.equal(ids[1], ids[3])
    assert.are_not.equal(ids[1], ids[2])
    assert.equal(2, ok(a, 'FIND(COUNT(?l)) WHERE { ?l ({type: "Person", name: "A"}, "mentions", ?o) }'))
    assert.same({ 2 }, ok(a, 'FIND(?l.attributes.w) WHERE { ?l ({type: "Person", name: "A"}, "mentions", {type: "Person", name: "B"}) }'))
  end)

  it("a link said again in one command is written once; what it adds is merged, in order", function()
    ok(a, 'UPSERT { CONCEPT ?x { {type: "Person", name: "A"} } CONCEPT ?y { {type: "Person", name: "B"} } '
      .. 'CONCEPT ?z { {type: "Person", name: "C"} } PROPOSITION ?l { (?x, "mentions", ?y) SET ATTRIBUTES { w: 1 } } }' .. META)
    local existing = ok(a, 'FIND(?l) WHERE { ?l ({type: "Person", name: "A"}, "mentions", {type: "Person", name: "B"}) }')[1].id
    -- the same new link three times (the same, then another weight, then the first again: the last one said
    -- wins); the existing one twice unchanged, then with a note. Endpoints named as a load names them (looked
    -- up ahead, the existing link with them)
    local A, B, C = '{type: "Person", name: "A"}', '{type: "Person", name: "B"}', '{type: "Person", name: "C"}'
    local function link(h, o, attrs) return ('PROPOSITION ?%s { (%s, "mentions", %s) SET ATTRIBUTES { %s } } '):format(h, A, o, attrs) end
    local r = ok(b, 'UPSERT { ' .. link("n1", C, "w: 1") .. link("n2", C, "w: 1") .. link("e1", B, "w: 1")
      .. link("e2", B, "w: 1") .. link("n3", C, "w: 2") .. link("n4", C, "w: 1") .. link("e3", B, 'note: "again"')
      .. '}' .. META)
    local ids = r.upsert_proposition_links
    assert.equal(7, #ids)
    for _, k in ipairs { 2, 5, 6 } do assert.equal(ids[1], ids[k]) end
    for _, k in ipairs { 3, 4, 7 } do assert.equal(existing, ids[k]) end
    assert.equal(2, ok(a, 'FIND(COUNT(?l)) WHERE { ?l ({type: "Person", name: "A"}, "mentions", ?o) }'))
    local n = ok(a, 'FIND(?l) WHERE { ?l ({type: "Person", name: "A"}, "mentions", {type: "Person", name: "C"}) }')[1]
    assert.equal(1, n.attributes.w)
    assert.equal(3, n.metadata._version) -- written, said again unchanged, changed twice
    assert.same({ { 1 }, { "again" } }, ok(a, 'FIND(?l.attributes.w, ?l.attributes.note) WHERE { ?l ({type: "Person", '
      .. 'name: "A"}, "mentions", {type: "Person", name: "B"}) }'))
  end)

  it("a command of thousands of new elements is whole, and one that fails writes nothing", function()
    local parts = {}
    for i = 1, 2100 do parts[#parts + 1] = ('CONCEPT ?c%d { {type: "Person", name: "P%d"} }'):format(i, i) end
    for i = 2, 2100 do parts[#parts + 1] = ('PROPOSITION ?l%d { (?c%d, "mentions", ?c%d) }'):format(i, i - 1, i) end
    local r = ok(a, "UPSERT { " .. table.concat(parts, " ") .. " }" .. META)
    assert.equal(2100, #r.upsert_concept_nodes)
    assert.equal(2099, #r.upsert_proposition_links)
    assert.equal(2099, ok(b, 'FIND(COUNT(?l)) WHERE { ?l (?s, "mentions", ?o) }'))
    -- new elements, then a predicate nobody defined: the command is undone
    local bad = {}
    for i = 1, 2100 do bad[#bad + 1] = ('CONCEPT ?d%d { {type: "Person", name: "Q%d"} }'):format(i, i) end
    bad[#bad + 1] = 'PROPOSITION ?bad { (?d1, "no_such_predicate", ?d2) }'
    local e = b:execute("UPSERT { " .. table.concat(bad, " ") .. " }" .. META)
    assert.equal("KIP_2001", e.error and e.error.code)
    assert.same({}, ok(a, 'FIND(?p.name) WHERE { ?p {type: "Person", name: "Q1"} }'))
    assert.equal(2100, ok(a, 'FIND(COUNT(?p)) WHERE { ?p {type: "Person"} FILTER(STARTS_WITH(?p.name, "P")) }'))
  end)

  it("a batch carries any text byte for byte: tabs, newlines, backslashes, \\N, quotes, any script", function()
    local names = { "tab\there", "line\nbreak", "cr\rhere", "back\\slash", "\\N", "\\.", "quote\"d",
      "ünïcødé 名前 🚀", "ends with backslash\\", "\t\n\\\r" }
    local parts = {}
    for i, n in ipairs(names) do
      parts[#parts + 1] = ('CONCEPT ?c%d { {type: "Person", name: :n%d} SET ATTRIBUTES { note: :n%d, nested: { k: :n%d } } }')
        :format(i, i, i, i)
    end
    -- links between them (a batch of each kind), with the texts in their attributes too
    for i = 2, #names do
      parts[#parts + 1] = ('PROPOSITION ?l%d { (?c%d, "mentions", ?c%d) SET ATTRIBUTES { note: :n%d } }'):format(i, i - 1, i, i)
    end
    local params = {}
    for i, n in ipairs(names) do params["n" .. i] = n end
    ok(a, "UPSERT { " .. table.concat(parts, " ") .. " }" .. META, params)
    for i, n in ipairs(names) do
      local row = ok(b, 'FIND(?p.name, ?p.attributes.note, ?p.attributes.nested) WHERE { ?p {type: "Person", name: :n} }',
        { n = n })
      assert.same({ { n }, { n }, { { k = n } } }, row, ("name %d"):format(i))
      if i > 1 then
        assert.same({ n }, ok(b, 'FIND(?l.attributes.note) WHERE { ?l ({type: "Person", name: :s}, "mentions", {type: "Person", name: :o}) }',
          { s = names[i - 1], o = n }), ("link %d"):format(i))
      end
    end
  end)

  it("a batch that meets an element another connection wrote is run again, whole", function()
    ok(b, 'UPSERT { CONCEPT ?p { {type: "Person", name: "P7"} SET ATTRIBUTES { by: "b" } } }' .. META)
    local parts = {}
    for i = 1, 50 do parts[#parts + 1] = ('CONCEPT ?c%d { {type: "Person", name: "P%d"} SET ATTRIBUTES { by: "a" } }'):format(i, i) end
    local r = ok(a, "UPSERT { " .. table.concat(parts, " ") .. " }" .. META)
    assert.equal(50, #r.upsert_concept_nodes)
    assert.equal(50, ok(b, 'FIND(COUNT(?p)) WHERE { ?p {type: "Person"} FILTER(STARTS_WITH(?p.name, "P")) }'))
    assert.same({ "a" }, ok(b, 'FIND(?p.attributes.by) WHERE { ?p {type: "Person", name: "P7"} }'))
  end)
end)
