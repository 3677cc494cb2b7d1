-- busted specs for MERGE (RC11 §4.4) and EXPORT (§5.3) beyond the conformance suite.
local kip = require "kip"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")
local tmpdb, cleanup = H.tmpdb, H.cleanup

local SCHEMA = [[
UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Svc"} }
  CONCEPT ?d { {type: "$PropositionType", name: "depends_on"} }
  CONCEPT ?r { {type: "$PropositionType", name: "reported"} }
  CONCEPT ?c { {type: "$PropositionType", name: "confirms"} }
}
]]

local function ok(nx, cmd, params)
  local r = nx:execute(cmd, params)
  assert(r.error == nil, r.error and (r.error.code .. ": " .. r.error.message .. "\n" .. cmd))
  return r.result
end

describe("MERGE", function()
  local path, nx
  before_each(function()
    path = tmpdb()
    nx = assert(kip.open { path = path })
    ok(nx, SCHEMA)
    ok(nx, [[
UPSERT {
  CONCEPT ?a { {type: "Svc", name: "A"} SET ATTRIBUTES { x: 1, aliases: ["a"] } }
  CONCEPT ?b { {type: "Svc", name: "B"} SET ATTRIBUTES { x: 2 } }
  CONCEPT ?z { {type: "Svc", name: "Z"} }
  CONCEPT ?p { {type: "Person", name: "P"} }
  CONCEPT ?q { {type: "Person", name: "Q"} }
  PROPOSITION ?l1 { (?a, "depends_on", ?z) } WITH METADATA { note: "from A" }
  PROPOSITION ?l2 { (?b, "depends_on", ?z) } WITH METADATA { confidence: 0.9 }
  PROPOSITION ?r1 { (?p, "reported", ?l1) }
  PROPOSITION ?r2 { (?p, "reported", ?l2) }
  PROPOSITION ?r3 { (?q, "confirms", ?r1) }
  PROPOSITION ?self { (?a, "depends_on", ?a) }
}]])
  end)
  after_each(function()
    nx:close()
    cleanup(path)
  end)

  local MERGE_AB = 'MERGE CONCEPT ?s INTO ?t WHERE { ?s {type: "Svc", name: "A"} ?t {type: "Svc", name: "B"} }'

  it("deduplicates nested collisions and keeps references to the survivors", function()
    local before = ok(nx, 'FIND(?r2.id) WHERE { ?r2 ({type: "Person", name: "P"}, "reported", ({type: "Svc", name: "B"}, "depends_on", {type: "Svc", name: "Z"})) }')
    local r = ok(nx, MERGE_AB)
    -- l1 collides with l2, then r1 (P reported l1) collides with r2 (P reported l2)
    assert.equal(2, r.links_deduplicated)
    -- r3 (Q confirms r1) now confirms the surviving r2
    local q = ok(nx, 'FIND(?w.name, ?x.id) WHERE { ?x ({type: "Person", name: "P"}, "reported", ({type: "Svc", name: "B"}, "depends_on", {type: "Svc", name: "Z"})) (?w, "confirms", ?x) }')
    assert.same({ { "Q" }, before }, q)
    -- the surviving link took the missing metadata key, kept its own
    local m = ok(nx, 'FIND(?l.metadata.note, ?l.metadata.confidence) WHERE { ?l ({type: "Svc", name: "B"}, "depends_on", {type: "Svc", name: "Z"}) }')
    assert.same({ { "from A" }, { 0.9 } }, m)
    -- a self-loop on the source becomes a self-loop on the target
    local s = ok(nx, 'FIND(COUNT(?l)) WHERE { ?l ({type: "Svc", name: "B"}, "depends_on", {type: "Svc", name: "B"}) }')
    assert.equal(1, s)
    -- nothing references the source any more
    assert.same({}, ok(nx, 'FIND(?x) WHERE { ?x {type: "Svc", name: "A"} }'))
  end)

  it("bumps _version of repointed links", function()
    local v0 = ok(nx, 'FIND(?l.metadata._version) WHERE { ?l ({type: "Svc", name: "A"}, "depends_on", {type: "Svc", name: "A"}) }')
    ok(nx, MERGE_AB)
    local v1 = ok(nx, 'FIND(?l.metadata._version) WHERE { ?l ({type: "Svc", name: "B"}, "depends_on", {type: "Svc", name: "B"}) }')
    assert.is_true(v1[1] > v0[1])
  end)

  it("writes nothing on dry_run", function()
    local r = nx:call { command = MERGE_AB, dry_run = true }
    assert.is_nil(r.error)
    assert.equal(1, #ok(nx, 'FIND(?x) WHERE { ?x {type: "Svc", name: "A"} }'))
  end)

  it("explains a replayed merge and names a missing target", function()
    ok(nx, MERGE_AB)
    local r = nx:execute(MERGE_AB)
    assert.equal("KIP_3002", r.error.code)
    assert.matches("Already merged", r.error.hint)
    local r2 = nx:execute('MERGE CONCEPT ?s INTO ?t WHERE { ?s {type: "Svc", name: "B"} ?t {type: "Svc", name: "Nope"} }')
    assert.equal("KIP_3002", r2.error.code)
    assert.matches("%?t matches no concept", r2.error.message)
  end)

  it("refuses to merge a definition that is still in use", function()
    local r = nx:execute('MERGE CONCEPT ?s INTO ?t WHERE { ?s {type: "$PropositionType", name: "confirms"} ?t {type: "$PropositionType", name: "reported"} }')
    assert.equal("KIP_2002", r.error.code)
  end)

  it("refuses a proposition as either side", function()
    local r = nx:execute('MERGE CONCEPT ?s INTO ?t WHERE { ?s ({type: "Svc", name: "A"}, "depends_on", {type: "Svc", name: "Z"}) ?t {type: "Svc", name: "B"} }')
    assert.equal("KIP_2002", r.error.code)
  end)
end)

describe("EXPORT", function()
  local path, path2, nx, nx2
  before_each(function()
    path, path2 = tmpdb(), tmpdb()
    nx = assert(kip.open { path = path })
    nx2 = assert(kip.open { path = path2 })
    ok(nx, SCHEMA)
  end)
  after_each(function()
    nx:close()
    nx2:close()
    cleanup(path)
    cleanup(path2)
  end)

  it("orders higher-order links after the links they reference, across pages", function()
    ok(nx, [[
UPSERT {
  CONCEPT ?a { {type: "Svc", name: "A"} }
  CONCEPT ?b { {type: "Svc", name: "B"} }
  CONCEPT ?z { {type: "Svc", name: "Z"} }
  CONCEPT ?p { {type: "Person", name: "P"} }
  PROPOSITION ?l1 { (?a, "depends_on", ?z) }
  PROPOSITION ?r1 { (?p, "reported", ?l1) }
  PROPOSITION ?l2 { (?b, "depends_on", ?z) }
}]])
    -- after the merge the surviving link l2 is younger than r1, which now references it
    ok(nx, 'MERGE CONCEPT ?s INTO ?t WHERE { ?s {type: "Svc", name: "A"} ?t {type: "Svc", name: "B"} }')
    ok(nx2, SCHEMA)
    local cursor
    local pages = 0
    repeat
      local r = nx:execute('EXPORT ?x WHERE { ?x {type: "Svc"} UNION { ?x {type: "Person", name: "P"} } UNION { ?x (?s, ?p, ?o) FILTER(?p != "belongs_to_domain") } } LIMIT 2 CURSOR :c',
        { c = cursor or kip.null })
      assert.is_nil(r.error)
      pages = pages + 1
      if r.result.capsule ~= "" then ok(nx2, r.result.capsule) end
      cursor = r.next_cursor
    until not cursor
    assert.equal(3, pages) -- 3 concepts + 2 links in pages of 2
    local q = ok(nx2, 'FIND(?w.name, ?s.name) WHERE { (?w, "reported", (?s, "depends_on", {type: "Svc", name: "Z"})) }')
    assert.same({ { "P" }, { "B" } }, q)
  end)

  it("quotes keys that are not plain identifiers and never writes reserved metadata", function()
    ok(nx, [[UPSERT { CONCEPT ?a { {type: "Svc", name: "Odd \"name\""} SET ATTRIBUTES { "Key With Space": 1, "true": 2, n: 1.5 } } WITH METADATA { source: "s" } }]])
    local r = ok(nx, 'EXPORT ?x WHERE { ?x {type: "Svc"} }')
    assert.not_matches("_version", r.capsule)
    ok(nx2, SCHEMA)
    ok(nx2, r.capsule)
    local q = ok(nx2, 'FIND(?x.attributes, ?x.metadata.source) WHERE { ?x {type: "Svc"} }')
    assert.same({ { { ["Key With Space"] = 1, ["true"] = 2, n = 1.5 } }, { "s" } }, q)
  end)

  it("is available on the readonly interface", function()
    local r = nx:call({ command = 'EXPORT ?x WHERE { ?x {type: "$ConceptType", name: "Svc"} }' }, { readonly = true })
    assert.is_nil(r.error)
    assert.equal(1, r.result.concepts)
  end)
end)
