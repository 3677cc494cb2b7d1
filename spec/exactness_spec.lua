-- busted specs for the RC11 edge cases decided against the other KIP
-- engines' fixture suite (docs/decisions.md, "Decisions against other
-- engines"): protected structures refuse metadata writes, missing anchors
-- are warned about, DELETE of nothing is idempotent (but {id} targets must
-- exist), MERGE counts aliases as a filled key, Genesis wiring cannot be
-- deleted, self-loops are allowed with a warning. Exact responses.
local kip = require "kip"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

describe("RC11 edge cases", function()
  local current = H.fresh_nexus(before_each, after_each)

  local function err(cmd)
    local r = current():execute(cmd)
    return r.error and r.error.code, r.error and r.error.message
  end

  it("protected structures refuse attribute and metadata changes; identical rewrites are no-ops", function()
    local before = current():execute('FIND(?d) WHERE { ?d {type: "Domain", name: "CoreSchema"} }').result[1]
    for _, cmd in ipairs {
      'UPSERT { CONCEPT ?d { {type: "Domain", name: "CoreSchema"} } WITH METADATA { source: "attacker" } }',
      'UPSERT { CONCEPT ?d { {type: "Domain", name: "CoreSchema"} SET ATTRIBUTES { description: "mine" } } }',
      'UPDATE ?t SET METADATA { source: "attacker" } WHERE { ?t {type: "$ConceptType", name: "$ConceptType"} }',
      'UPDATE ?t SET ATTRIBUTES { x: 1 } WHERE { ?t {type: "$PropositionType", name: "belongs_to_domain"} }',
      'DELETE METADATA {"source"} FROM ?d WHERE { ?d {type: "Domain", name: "CoreSchema"} }',
      'DELETE ATTRIBUTES {"description"} FROM ?d WHERE { ?d {type: "$ConceptType", name: "Domain"} }',
      'UPSERT { CONCEPT ?s { {type: "Person", name: "$self"} SET ATTRIBUTES { core_directives: [] } } }',
    } do
      assert.equal("KIP_3004", (err(cmd)), cmd)
    end
    local after = current():execute('FIND(?d) WHERE { ?d {type: "Domain", name: "CoreSchema"} }').result[1]
    assert.same(before, after)
    -- an identical rewrite (a capsule re-import) succeeds and changes nothing
    local m = before.metadata
    local same = current():execute(('UPSERT { CONCEPT ?d { {type: "Domain", name: "CoreSchema"} } WITH METADATA { source: %q, author: %q } }')
      :format(m.source, m.author))
    assert.is_nil(same.error)
    assert.equal(before.metadata._version,
      current():execute('FIND(?d.metadata._version) WHERE { ?d {type: "Domain", name: "CoreSchema"} }').result[1])
    -- ordinary attributes and metadata of $self stay writable
    assert.is_nil(current():execute('UPSERT { CONCEPT ?s { {type: "Person", name: "$self"} SET ATTRIBUTES { mood: "calm" } } WITH METADATA { note: "x" } }').error)
  end)

  it("FIND with a missing anchor: empty result and a warning naming it", function()
    local r = current():execute('FIND(?x) WHERE { ?x {type: "Person", name: "Nope"} }')
    assert.same({ result = {}, warnings = { 'anchor {type: "Person", name: "Nope"} does not exist' } }, r)
    local e = current():execute('FIND(?l) WHERE { ?l ({type: "Person", name: "$self"}, "mentions", {id: "C:999999999"}) }')
    assert.same({ 'anchor {id: "C:999999999"} does not exist' }, e.warnings)
    local ok = current():execute('FIND(?x.name) WHERE { ?x {type: "Person", name: "$self"} }')
    assert.is_nil(ok.warnings)
  end)

  it("DELETE of an identity-bound target that does not exist: zero counts, success, a warning", function()
    assert.same({ result = { deleted_concepts = 0, deleted_propositions = 0 }, warnings = { "?x matched nothing: nothing was deleted" } },
      current():execute('DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Person", name: "Nope"} }'))
    assert.same({ result = { deleted_propositions = 0 }, warnings = { "?l matched nothing: nothing was deleted" } },
      current():execute('DELETE PROPOSITIONS ?l WHERE { ?l ({type: "Person", name: "$self"}, "mentions", ?o) }'))
    local r = current():execute('DELETE CONCEPT ?x DETACH WHERE { ?x {id: "C:999999"} }')
    assert.equal("KIP_3002", r.error.code)
    assert.equal('no concept with id "C:999999"', r.error.message)
  end)

  it("MERGE reports attributes_filled per filled key, aliases included", function()
    assert.is_nil(current():execute([[UPSERT {
      CONCEPT ?a { {type: "Person", name: "Robert"} SET ATTRIBUTES { email: "r@x.org" } }
      CONCEPT ?b { {type: "Person", name: "Bob"} SET ATTRIBUTES { role: "dev" } } }]]).error)
    local r = current():execute('MERGE CONCEPT ?s INTO ?t WHERE { ?s {type: "Person", name: "Robert"} ?t {type: "Person", name: "Bob"} }')
    assert.same({ merged = true, links_repointed = 0, links_deduplicated = 0, attributes_filled = 2 }, r.result)
    assert.same({ "Robert" }, current():execute('FIND(?t.attributes.aliases) WHERE { ?t {type: "Person", name: "Bob"} }').result[1])
  end)

  it("DELETE PROPOSITIONS refuses to remove the Genesis wiring of protected structures", function()
    local r = current():execute('DELETE PROPOSITIONS ?l WHERE { ?l ({type: "$ConceptType", name: "$ConceptType"}, "belongs_to_domain", ?d) }')
    assert.equal("KIP_3004", r.error.code)
    assert.equal(1, current():execute('FIND(COUNT(?l)) WHERE { ?l ({type: "$ConceptType", name: "$ConceptType"}, "belongs_to_domain", ?d) }').result)
    -- ordinary type definitions may be moved out of a domain
    assert.is_nil(current():execute('DELETE PROPOSITIONS ?l WHERE { ?l ({type: "$ConceptType", name: "Event"}, "belongs_to_domain", ?d) }').error)
  end)

  it("self-loops are allowed, with a warning", function()
    local r = current():execute('UPSERT { CONCEPT ?x { {type: "Person", name: "Narcissus"} SET PROPOSITIONS { ("mentions", ?x) } } }')
    assert.is_nil(r.error)
    assert.equal(1, #r.warnings)
    assert.matches('^self%-loop: the "mentions" link at line 1 points from C:%d+ to itself$', r.warnings[1])
    assert.equal(1, current():execute('FIND(COUNT(?l)) WHERE { ?x {type: "Person", name: "Narcissus"} ?l (?x, "mentions", ?x) }').result)
  end)

  it("a range of names (compiled so that an index can drive it) answers as the comparison does", function()
    assert.is_nil(current():execute('UPSERT { CONCEPT ?b { {type: "Person", name: "bob"} } '
      .. 'CONCEPT ?a { {type: "Person", name: "alice"} SET PROPOSITIONS { ("mentions", ?b) } } '
      .. 'CONCEPT ?c { {type: "Person", name: "carol"} } CONCEPT ?d { {type: "Person", name: "Bé"} } }').error)
    local function names(filter, params)
      local r = current():execute('FIND(?p.name) WHERE { ?p {type: "Person"} FILTER(' .. filter .. ') } ORDER BY ?p.name', params)
      assert.is_nil(r.error, filter)
      return r.result
    end
    assert.same({ "bob" }, names('?p.name >= "b" && ?p.name < "c"'))
    assert.same({ "bob" }, names('"b" <= ?p.name && "c" > ?p.name'))
    assert.same({ "carol" }, names('!(?p.name < "bz")'))
    assert.same({}, names('"B" <= ?p.name && ?p.name <= "Bz"')) -- byte order: "é" is after "z"
    assert.same({ "Bé" }, names('?p.name > "Bz" && ?p.name < "C"'))
    assert.same({ "bob" }, names("?p.name >= :from && ?p.name < :to", { from = "b", to = "c" }))
    assert.same({}, names("?p.name >= :n", { n = 5 })) -- a name is never compared with a number
    assert.same({ "$self", "$system", "Bé", "alice", "bob", "carol" }, names("!(?p.name >= :n)", { n = 5 }))
    -- a link has no name: the comparison is false, its negation true
    local function links(filter)
      return current():execute('FIND(COUNT(?l)) WHERE { ?l (?s, "mentions", ?o) FILTER(' .. filter .. ') }').result
    end
    assert.equal(0, links('?l.name >= "a"'))
    assert.equal(1, links('!(?l.name < "a")'))
    assert.equal(1, links('?l.predicate >= "m" && ?l.predicate < "n"'))
  end)
end)
