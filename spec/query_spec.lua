-- busted specs for KQL combinations (RC11 §3) on the demo team capsule.
local kip = require "kip"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")
local tmpdb, source_dir = H.tmpdb, H.home

local function sorted(t)
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  table.sort(c, function(a, b) return tostring(a) < tostring(b) end)
  return c
end

describe("KQL combinations", function()
  local path, nx
  setup(function()
    path = tmpdb()
    nx = assert(kip.open { path = path })
    local f = assert(io.open(source_dir() .. "/capsules/demo/team.kip"))
    local text = f:read("a")
    f:close()
    local cmds = {}
    for block in text:gmatch("UPSERT%s*%b{}%s*WITH METADATA%s*%b{}") do cmds[#cmds + 1] = block end
    local r = nx:call { commands = cmds }
    for _, x in ipairs(r.results or {}) do assert(not x.error, x.error and x.error.message) end
    -- a higher-order fact: Ana reported that Billing depends on Ledger
    r = nx:execute [[
UPSERT {
  CONCEPT ?rep { {type: "$PropositionType", name: "reported"} }
  PROPOSITION ?f { ({type: "Service", name: "Billing"}, "depends_on", {type: "Service", name: "Ledger"}) }
  PROPOSITION ?r { ({type: "Engineer", name: "Ana Ruiz"}, "reported", ?f) }
}]]
    assert.is_nil(r.error)
  end)
  teardown(function()
    nx:close()
    H.cleanup(path)
  end)

  local function q(cmd, params)
    local r = nx:execute(cmd, params)
    assert(r.error == nil, r.error and (r.error.code .. ": " .. r.error.message))
    return r.result, r
  end

  it("OPTIONAL inside UNION pads with nulls and keeps both branches", function()
    local r = q([[FIND(?x.name, ?s.name, ?o.name) WHERE {
      ?x {type: "Squad", name: "Growth"}
      UNION { ?s {type: "Service"} FILTER(?s.attributes.tier == 1) OPTIONAL { (?o, "owns", ?s) } }
    }]])
    local rows = {}
    for i = 1, #r[1] do
      rows[#rows + 1] = table.concat({ tostring(r[1][i]), tostring(r[2][i]), tostring(r[3][i]) }, "|")
    end
    assert.same(sorted { "Growth|" .. tostring(kip.null) .. "|" .. tostring(kip.null),
      tostring(kip.null) .. "|Gateway|Platform", tostring(kip.null) .. "|Auth|Platform" }, sorted(rows))
  end)

  it("NOT with a FILTER on outer variables removes only matching solutions", function()
    local r = q([[FIND(?e.name) WHERE {
      ?e {type: "Engineer"}
      NOT { (?m, "mentors", ?e) FILTER(?m.attributes.level > ?e.attributes.level) }
    }]])
    assert.same({ "Eli Novak" }, r)
  end)

  it("FILTER inside OPTIONAL sees outer variables", function()
    local r = q([[FIND(?e.name, ?m.name) WHERE {
      ?e {type: "Engineer"}
      OPTIONAL { (?m, "mentors", ?e) FILTER(?m.attributes.level >= 5) }
    } ORDER BY ?e.name]])
    assert.same({ "Ana Ruiz", "Ben Osei", "Eli Novak" }, r[1])
    assert.same({ "Eli Novak", "Eli Novak", kip.null }, r[2])
  end)

  it("a single-link OPTIONAL binds its link variable and honours alternatives", function()
    local r = q([[FIND(?s.name, ?l.predicate, ?x.name) WHERE {
      ?s {type: "Squad"}
      OPTIONAL { ?l (?s, "owns" | "belongs_to_domain", ?x) }
    } ORDER BY ?s.name, ?x.name]])
    assert.same({ "Growth", "Payments", "Payments", "Payments", "Platform", "Platform", "Platform" }, r[1])
    assert.same({ "belongs_to_domain", "owns", "belongs_to_domain", "owns", "owns", "belongs_to_domain", "owns" }, r[2])
    assert.same({ "Engineering", "Billing", "Engineering", "Ledger", "Auth", "Engineering", "Gateway" }, r[3])
    local miss = q('FIND(?e.name, ?l) WHERE { ?e {type: "Engineer", name: "Ana Ruiz"} OPTIONAL { ?l (?e, "mentors", ?x) } }')
    assert.same({ { "Ana Ruiz" }, { kip.null } }, miss)
  end)

  it("aggregates over OPTIONAL misses count zero and group the misses", function()
    local r = q('FIND(?sq.name, COUNT(?s)) WHERE { ?sq {type: "Squad"} OPTIONAL { (?sq, "owns", ?s) } } ORDER BY ?sq.name')
    assert.same({ { "Growth", "Payments", "Platform" }, { 0, 2, 2 } }, r)
  end)

  it("hop ranges end in a higher-order link and bind it", function()
    local r = q([[FIND(?who.name, ?s.name) WHERE {
      ?l (?s, "depends_on"{1,1}, {type: "Service", name: "Ledger"})
      (?who, "reported", ?l)
    }]])
    assert.same({ { "Ana Ruiz" }, { "Billing" } }, r)
  end)

  it("zero-hop ranges include the start and cycles terminate", function()
    local r = q('FIND(?x.name) WHERE { ?b {type: "Service", name: "Billing"} (?b, "depends_on"{0,5}, ?x) }')
    assert.same(sorted { "Auth", "Billing", "Ledger" }, sorted(r))
  end)

  it("predicate variables unify across clauses", function()
    local r = q([[FIND(?p, ?a.name) WHERE {
      ?x {type: "Service", name: "Billing"}
      (?x, ?p, ?a) (?a, ?p, ?x)
    }]])
    assert.same({ { "depends_on" }, { "Ledger" } }, r)
  end)

  it("pages with CURSOR under ORDER BY without gaps or repeats", function()
    local seen, cursor, pages = {}, nil, 0
    repeat
      local _, resp = q('FIND(?s.name) WHERE { ?s {type: "Service"} } ORDER BY ?s.attributes.tier DESC, ?s.name LIMIT 3 CURSOR :c',
        { c = cursor or kip.null })
      for _, n in ipairs(resp.result) do seen[#seen + 1] = n end
      cursor = resp.next_cursor
      pages = pages + 1
    until not cursor
    assert.same({ "Billing", "Ledger", "Auth", "Gateway" }, seen)
    assert.equal(2, pages)
  end)

  it("rejects a cursor from another query", function()
    local _, resp = q('FIND(?s.name) WHERE { ?s {type: "Service"} } LIMIT 1')
    local r = nx:execute('FIND(?s.name) WHERE { ?s {type: "Squad"} } LIMIT 1 CURSOR :c', { c = resp.next_cursor })
    assert.equal("KIP_1001", r.error.code)
  end)

  it("UNION deduplicates identical solutions", function()
    local r = q('FIND(?s.name) WHERE { ?s {type: "Service", name: "Auth"} UNION { ?s {type: "Service", name: "Auth"} } }')
    assert.same({ "Auth" }, r)
  end)

  it("reports a hop range above the cap with KIP_4002", function()
    local r = nx:execute('FIND(?x) WHERE { ?b {type: "Service", name: "Billing"} (?b, "depends_on"{1,50}, ?x) }')
    assert.equal("KIP_4002", r.error.code)
  end)
end)
