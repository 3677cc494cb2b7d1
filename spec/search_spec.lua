-- busted specs for keyword SEARCH on the FTS5 indexes (RC11 §5.2).
local kip = require "kip"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")
local tmpdb = H.tmpdb

local function names(r)
  local out = {}
  for i, e in ipairs(r.result) do out[i] = e.name or e.predicate end
  return out
end

describe("SEARCH", function()
  local path, nx
  before_each(function()
    path = tmpdb()
    nx = assert(kip.open { path = path, embedder = false })
    local r = nx:execute [[
UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Topic"} }
  CONCEPT ?a { {type: "Topic", name: "Ledger"} SET ATTRIBUTES { description: "double-entry bookkeeping" } }
  CONCEPT ?b { {type: "Topic", name: "Ledger archive"} }
  CONCEPT ?c { {type: "Topic", name: "General ledger"} SET ATTRIBUTES { aliases: ["GL"] } }
  CONCEPT ?d { {type: "Topic", name: "Café crème"} }
  CONCEPT ?e { {type: "Person", name: "北京大学的张伟"} SET ATTRIBUTES { aliases: ["小张"] } }
}]]
    assert.is_nil(r.error)
  end)
  after_each(function()
    nx:close()
    H.cleanup(path)
  end)

  it("warns when WITH TYPE names no defined type, as FIND does for a missing anchor", function()
    local r = nx:execute('SEARCH CONCEPT "ledger" WITH TYPE "Topics"')
    assert.same({}, r.result)
    assert.matches('WITH TYPE "Topics" names no defined concept type', r.warnings[1], 1, true)
    r = nx:execute('SEARCH PROPOSITION "ledger" WITH TYPE "no_such_predicate"')
    assert.matches("names no defined predicate", r.warnings[1], 1, true)
    r = nx:execute('SEARCH CONCEPT "ledger" WITH TYPE "Topic"')
    assert.is_nil(r.warnings)
  end)

  it("lists in DESCRIBE PRIMER the modes the nexus can serve", function()
    local modes = nx:execute("DESCRIBE PRIMER").result.identity.engine.search_modes
    assert.same({ "keyword" }, modes) -- no embedder: semantic and hybrid would answer by keyword
    local with = assert(kip.open { path = path }) -- the default embedder (the local word vectors, when installed)
    if with.embedder then
      assert.same({ "keyword", "semantic", "hybrid" }, with:execute("DESCRIBE PRIMER").result.identity.engine.search_modes)
    end
    with:close()
  end)

  it("ranks the exact name first with scores in [0,1], descending", function()
    local r = nx:execute('SEARCH CONCEPT "ledger"')
    assert.equal("Ledger", r.result[1].name)
    assert.equal(1, r.result[1].metadata._score)
    local prev = 1
    for _, e in ipairs(r.result) do
      assert.is_true(e.metadata._score <= prev and e.metadata._score > 0)
      prev = e.metadata._score
    end
  end)

  it("finds prefixes, words inside descriptions and folded diacritics", function()
    assert.equal("Ledger", names(nx:execute('SEARCH CONCEPT "ledg" LIMIT 1'))[1])
    assert.equal("Ledger", names(nx:execute('SEARCH CONCEPT "bookkeeping" LIMIT 1'))[1])
    assert.equal("Café crème", names(nx:execute('SEARCH CONCEPT "creme" LIMIT 1'))[1])
  end)

  it("works for text without spaces (trigram index) and short aliases", function()
    assert.equal("北京大学的张伟", names(nx:execute('SEARCH CONCEPT "北京大学"'))[1])
    assert.equal("北京大学的张伟", names(nx:execute('SEARCH CONCEPT "小张"'))[1])
    assert.equal("General ledger", names(nx:execute('SEARCH CONCEPT "GL"'))[1])
  end)

  it("keeps the index in step with every write, in the same transaction", function()
    nx:execute('UPDATE ?x SET ATTRIBUTES { aliases: ["Hauptbuch"] } WHERE { ?x {type: "Topic", name: "Ledger"} }')
    assert.equal("Ledger", names(nx:execute('SEARCH CONCEPT "Hauptbuch"'))[1])
    local dry = nx:call { command = 'UPSERT { CONCEPT ?x { {type: "Topic", name: "Zeppelin"} } }', dry_run = true }
    assert.is_nil(dry.error)
    assert.same({}, nx:execute('SEARCH CONCEPT "Zeppelin"').result)
    nx:execute('DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Topic", name: "Ledger"} }')
    for _, n in ipairs(names(nx:execute('SEARCH CONCEPT "Hauptbuch"'))) do assert.not_equal("Ledger", n) end
  end)

  it("searches propositions by predicate and endpoint names", function()
    nx:execute [[
UPSERT {
  CONCEPT ?p { {type: "$PropositionType", name: "related_to"} }
  PROPOSITION ?l { ({type: "Topic", name: "Ledger"}, "related_to", {type: "Topic", name: "General ledger"}) }
}]]
    local r = nx:execute('SEARCH PROPOSITION "related"')
    assert.equal("related_to", r.result[1].predicate)
    assert.is_string(r.result[1].subject)
  end)

  it("says when a semantic mode degraded to keyword", function()
    local r = nx:execute('SEARCH CONCEPT "ledger" MODE "semantic"')
    assert.is_nil(r.error)
    assert.matches("keyword", r.warnings[1])
  end)

  it("ranks sentences by BM25: stems, drops stopwords, keeps phrases", function()
    nx:execute [[
UPSERT {
  CONCEPT ?i { {type: "Topic", name: "Billing"} SET ATTRIBUTES { title: "Invoices", description: "where to download a copy of an invoice" } }
  CONCEPT ?p { {type: "Topic", name: "Payment methods"} SET ATTRIBUTES { description: "cards, bank transfer, where to pay" } }
}]]
    -- "invoices" finds "invoice" (stemming); "how do I get" are stopwords
    assert.equal("Billing", names(nx:execute('SEARCH CONCEPT "how do I get a copy of old invoices?" LIMIT 1'))[1])
    -- a quoted phrase must match as a phrase
    local r = nx:execute("SEARCH CONCEPT :q", { q = '"bank transfer"' })
    assert.same({ "Payment methods" }, names(r))
    assert.same({}, nx:execute("SEARCH CONCEPT :q", { q = '"transfer bank"' }).result)
    -- only stopwords: they are searched for rather than ignored
    assert.is_nil(nx:execute('SEARCH CONCEPT "the"').error)
  end)

  it("gives a text shorter than the average nothing for its shortness; a longer one counts a word less", function()
    local r = nx:execute([[
UPSERT {
  CONCEPT ?s { {type: "Topic", name: "s"} SET ATTRIBUTES { description: "Piranesi? sounds good" } }
  CONCEPT ?m { {type: "Topic", name: "m"} SET ATTRIBUTES { description: "I finished Piranesi last night, a house of endless halls" } }
  CONCEPT ?l { {type: "Topic", name: "l"} SET ATTRIBUTES { description: :long } }
}]], { long = ("the garden, the roses, the fence, the rain, the trains, the bakery, the school play, "):rep(4)
      .. "and somewhere in the middle of it all Piranesi came up once" })
    assert.is_nil(r.error, r.error and r.error.message)
    local score = {}
    for _, e in ipairs(nx:execute('SEARCH CONCEPT "piranesi" WITH TYPE "Topic" LIMIT 5').result) do
      score[e.name] = e.metadata._score
    end
    -- BM25's length normalisation put the small talk first (docs/search.md "Length normalisation")
    assert.equal(score.s, score.m)
    assert.truthy(score.l < score.m, tostring(score.l) .. " < " .. tostring(score.m))
    -- of equal scores, the text that says more comes first (the length prior), though written later
    local order = {}
    for i, e in ipairs(nx:execute('SEARCH CONCEPT "piranesi" WITH TYPE "Topic" LIMIT 5').result) do order[i] = e.name end
    assert.same({ "m", "s", "l" }, order)
  end)

  it("scores under a governance scope without index-wide statistics", function()
    nx:execute [[UPSERT { CONCEPT ?s { {type: "Topic", name: "Ledger secrets"} SET ATTRIBUTES { description: "ledger ledger" } } }
      WITH METADATA { access_level: "private" }]]
    local scope = { eligibility = '?e.metadata.access_level != "private"' }
    local with = nx:call({ command = 'SEARCH CONCEPT "general ledger archive"' }, scope)
    nx:execute('DELETE CONCEPT ?s DETACH WHERE { ?s {type: "Topic", name: "Ledger secrets"} }')
    local without = nx:call({ command = 'SEARCH CONCEPT "general ledger archive"' }, scope)
    assert.same(without.result, with.result) -- the hidden element changes no score
  end)
end)
