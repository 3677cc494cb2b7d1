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
end)
