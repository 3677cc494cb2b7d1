-- busted specs for SEARCH MODE "semantic" | "hybrid" and the vector index
-- (RC11 §5.2.1, docs/search.md): embedders, consistency with writes, the
-- after-commit queue, model changes, scope, fallbacks.
local kip = require "kip"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

local function names(r)
  local out = {}
  for i, e in ipairs(r.result or {}) do out[i] = e.name or e.predicate end
  return out
end

local TOPICS = [[
UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Topic"} }
  CONCEPT ?a { {type: "Topic", name: "Invoices"} SET ATTRIBUTES { description: "bills sent to customers for payment" } }
  CONCEPT ?b { {type: "Topic", name: "Weather"} SET ATTRIBUTES { description: "rain, snow and sunshine forecasts" } }
  CONCEPT ?c { {type: "Topic", name: "Football"} SET ATTRIBUTES { description: "the match, the goals and the league table" } }
}]]

-- a toy embedder: one dimension per known word, so tests can reason about cosines
local WORDS = { "invoice", "weather", "football", "money", "rain", "goal" }
local function toy(model, calls)
  return {
    model = model or "toy-v1",
    dim = #WORDS,
    embed = function(texts)
      if calls then calls.n = calls.n + 1 end
      local out = {}
      for i, t in ipairs(texts) do
        local v = {}
        for d, w in ipairs(WORDS) do v[d] = select(2, t:lower():gsub("%f[%a]" .. w .. "s?%f[%A]", "")) end
        out[i] = v
      end
      return out
    end,
  }
end

local function local_available()
  local e = require "kip.search.embedder"
  return e.local_path(require "kip.core") ~= nil
end

describe("SEARCH with the local embedder", function()
  if not local_available() then
    pending("word vectors not installed (scripts/setup-deps BUILD_DIR)")
    return
  end
  local nx = H.fresh_nexus(before_each, after_each, { embedder = "local" })

  it("finds by meaning, with scores in [0,1] (the excess over chance), descending", function()
    assert.is_nil(nx():execute(TOPICS).error)
    local r = nx():execute('SEARCH CONCEPT "will it be sunny tomorrow" WITH TYPE "Topic" MODE "semantic" LIMIT 3')
    assert.is_nil(r.error)
    assert.is_nil(r.warnings)
    assert.equal("Weather", r.result[1].name)
    local prev = 1
    for _, e in ipairs(r.result) do
      assert.is_true(e.metadata._score >= 0 and e.metadata._score <= prev)
      prev = e.metadata._score
    end
    r = nx():execute('SEARCH CONCEPT "a striker scored twice" WITH TYPE "Topic" MODE "hybrid" LIMIT 1')
    assert.same({ "Football" }, names(r))
    assert.is_true(r.result[1].metadata._score <= 1)
  end)

  it("applies THRESHOLD on the mode's scale", function()
    nx():execute(TOPICS)
    local all = nx():execute('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic"').result
    local cut = nx():execute('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic" THRESHOLD 0.99').result
    assert.is_true(#cut < #all)
    for _, e in ipairs(cut) do assert.is_true(e.metadata._score >= 0.99) end
  end)

  it("puts every mode on one scale: chance scores 0, hybrid keeps what either mode keeps at THRESHOLD", function()
    nx():execute(TOPICS)
    -- a question the memory knows nothing about: no score clears 0.3 in any mode
    for _, m in ipairs { "keyword", "semantic", "hybrid" } do
      local r = nx():execute(('SEARCH CONCEPT "quantum chromodynamics of gluons" MODE "%s" THRESHOLD 0.3'):format(m))
      assert.same({}, r.result, m)
    end
    -- hybrid: an element's score is its best evidence, max(keyword, semantic)
    local function scores(m, q)
      local out = {}
      for _, e in ipairs(nx():execute(('SEARCH CONCEPT :q MODE "%s" LIMIT 100'):format(m), { q = q }).result) do
        out[e.id] = e.metadata._score
      end
      return out
    end
    local q = "rain and snow tomorrow"
    local kw, sem, hy = scores("keyword", q), scores("semantic", q), scores("hybrid", q)
    for id, s in pairs(hy) do
      assert.near(math.max(kw[id] or 0, sem[id] or 0), s, 1e-9)
    end
    local cut = nx():execute('SEARCH CONCEPT :q MODE "hybrid" THRESHOLD 0.3 LIMIT 100', { q = q }).result
    local expect = 0
    for id in pairs(hy) do if (kw[id] or 0) >= 0.3 or (sem[id] or 0) >= 0.3 then expect = expect + 1 end end
    assert.equal(expect, #cut)
  end)

  it("keeps hybrid's primary list whole, in its order, at every LIMIT; the other list only fills", function()
    nx():execute(TOPICS)
    local more = {}
    for i, d in ipairs { "monthly invoice run and payment reminders", "goal line technology in the league",
      "rain gauges and weather stations", "money transfers between accounts", "snow days and school closures",
      "the cup final and its goals", "late fees on unpaid bills", "cloudy with a chance of rain" } do
      more[#more + 1] = ('CONCEPT ?x%d { {type: "Topic", name: "T%d"} SET ATTRIBUTES { description: "%s" } }'):format(i, i, d)
    end
    assert.is_nil(nx():execute("UPSERT { " .. table.concat(more, " ") .. " }").error)
    local function ids(m, q, k)
      local out = {}
      for i, e in ipairs(nx():execute(('SEARCH CONCEPT :q WITH TYPE "Topic" MODE "%s" LIMIT %d'):format(m, k), { q = q }).result) do
        out[i] = e.id
      end
      return out
    end
    local filled = 0
    for _, primary in ipairs { "keyword", "semantic" } do
      assert.equal(primary, nx().handle:search_primary(primary))
      -- (queries whose words tie several topics: meaning must not reorder them either)
      for _, q in ipairs { "rain", "unpaid invoices", "who scored the goals", "money", "sunshine forecasts", "the rain and the goals" } do
        for _, k in ipairs { 1, 3, 5, 10, 20 } do
          local p, h = ids(primary, q, k), ids("hybrid", q, k)
          for i = 1, #p do assert.equal(p[i], h[i], ("%s first, %q, LIMIT %d, hit %d"):format(primary, q, k, i)) end
          assert.is_true(#h >= #p)
          if #h > #p then filled = filled + 1 end
        end
      end
    end
    assert.is_true(filled > 0, "the other list fills what the primary cannot find")
    local ok, err = nx().handle:search_primary("fused")
    assert.is_nil(ok)
    assert.matches("keyword or semantic", err)
    -- the mode of a SEARCH that names none: keyword until recorded
    nx().handle:search_primary("keyword")
    assert.equal("keyword", nx().handle:search_default_mode())
    assert.same(ids("keyword", "unpaid invoices", 5), (function()
      local out = {}
      for i, e in ipairs(nx():execute('SEARCH CONCEPT "unpaid invoices" WITH TYPE "Topic" LIMIT 5').result) do out[i] = e.id end
      return out
    end)())
    assert.equal("semantic", nx().handle:search_default_mode("semantic"))
    local r = nx():execute('SEARCH CONCEPT "unpaid invoices" WITH TYPE "Topic" LIMIT 5')
    assert.same(ids("semantic", "unpaid invoices", 5), (function()
      local out = {}
      for i, e in ipairs(r.result) do out[i] = e.id end
      return out
    end)())
    ok, err = nx().handle:search_default_mode("fast")
    assert.is_nil(ok)
    assert.matches("keyword, semantic or hybrid", err)
  end)

  it("measures every mode on an operator's queries (kip search eval)", function()
    nx():execute(TOPICS)
    local eval = require "kip.search.eval"
    local f = os.tmpname()
    local h = assert(io.open(f, "w"))
    h:write('{"query": "will it rain", "expect": ["Weather"], "type": "Topic"}\n')
    h:write('{"query": "a striker scored twice", "expect": ["Football"]}\n')
    h:close()
    local queries = assert(eval.read(f))
    local r = assert(eval.run(nx(), queries, { ks = { 1, 3 } }))
    assert.equal(2, r.queries)
    for _, m in ipairs(eval.MODES) do
      for _, k in ipairs { 1, 3 } do assert.is_true(r.modes[m][k] >= 0 and r.modes[m][k] <= 1) end
    end
    -- the nexus's primary is keyword (the default): hybrid finds at least what keyword finds
    for _, k in ipairs { 1, 3 } do assert.is_true(r.modes.hybrid[k] >= r.modes.keyword[k] - 1e-9) end
    assert.truthy(({ keyword = true, semantic = true, hybrid = true })[r.best])
    h = assert(io.open(f, "w")); h:write('{"query": "x"}\n'); h:close()
    local none, err = eval.read(f)
    assert.is_nil(none)
    assert.matches(":1: no \"expect\" list", err)
    os.remove(f)
  end)

  it("ranks the instances a question is about above schema definitions", function()
    nx():execute(TOPICS)
    nx():execute([[UPSERT { CONCEPT ?p { {type: "$PropositionType", name: "forecasts"} SET ATTRIBUTES { description: "a topic forecasts weather" } }
      CONCEPT ?w { {type: "Topic", name: "Outlook"} SET ATTRIBUTES { description: "the weekly weather" } } }]])
    for _, m in ipairs { "keyword", "hybrid" } do
      local r = nx():execute(('SEARCH CONCEPT "weather forecasts" MODE "%s" LIMIT 10'):format(m))
      local seen_schema = false
      for _, e in ipairs(r.result) do
        local schema = e.type == "$PropositionType" or e.type == "$ConceptType"
        if schema then seen_schema = true else assert.is_false(seen_schema, m .. ": an instance after a definition") end
      end
      assert.is_true(seen_schema, m)
    end
    -- a request for the schema: WITH TYPE, or the definition's own name
    assert.equal("forecasts", names(nx():execute('SEARCH CONCEPT "forecasts" LIMIT 1'))[1])
    assert.equal("forecasts", names(nx():execute('SEARCH CONCEPT "weather forecasts" WITH TYPE "$PropositionType" LIMIT 1'))[1])
  end)

  it("writes, replaces and removes vectors in the transaction that changes the text", function()
    nx():execute(TOPICS)
    local st = nx():vector_status()
    assert.equal(0, st.pending)
    local before = st.vectors
    assert.is_true(before > 3)
    nx():execute('UPDATE ?x SET ATTRIBUTES { description: "stars, planets and telescopes" } WHERE { ?x {type: "Topic", name: "Weather"} }')
    assert.equal("Weather", names(nx():execute('SEARCH CONCEPT "astronomy" WITH TYPE "Topic" MODE "semantic" LIMIT 1'))[1])
    local dry = nx():call { command = 'UPSERT { CONCEPT ?x { {type: "Topic", name: "Zeppelin"} } }', dry_run = true }
    assert.is_nil(dry.error)
    assert.equal(before, nx():vector_status().vectors)
    nx():execute('DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Topic", name: "Football"} }')
    assert.equal(before - 1, nx():vector_status().vectors)
  end)

  it("gives a bulk load indexed beside it its vectors when the index is adopted", function()
    local before = nx():vector_status().vectors
    for chunk = 0, 1 do
      local blocks = {}
      for i = 1, 1500 do
        blocks[i] = ('CONCEPT ?c%d { {type: "Person", name: "Weatherman %d"} SET ATTRIBUTES { description: "rain and snow" } }')
          :format(i, chunk * 1500 + i)
      end
      assert.is_nil(nx():call({ command = "UPSERT { " .. table.concat(blocks, " ") .. " }" }, { defer_index = true }).error)
    end
    assert.is_true(nx().handle:sync_index(50000))
    local st = nx():vector_status()
    assert.equal(0, st.pending)
    assert.equal(before + 3000, st.vectors)
    local r = nx():execute('SEARCH CONCEPT "forecast of rain" WITH TYPE "Person" MODE "semantic" LIMIT 1')
    assert.is_nil(r.warnings)
    assert.matches("^Weatherman", r.result[1].name)
  end)

  it("returns unit vectors from nexus:embed", function()
    local v = nx():embed { "payment by bank transfer", "" }
    assert.equal(2, #v)
    local n = 0
    for _, x in ipairs(v[1]) do n = n + x * x end
    assert.is_true(math.abs(n - 1) < 1e-4)
  end)
end)

describe("SEARCH with a Lua embedder hook", function()
  local path
  before_each(function() path = H.tmpdb() end)
  after_each(function() H.cleanup(path) end)

  it("queues changed elements and embeds them after commit", function()
    local calls = { n = 0 }
    local nx = assert(kip.open { path = path, embedder = toy(nil, calls) })
    nx:execute(TOPICS)
    assert.equal(0, nx:vector_status().pending)
    assert.is_true(calls.n > 0)
    local r = nx:execute('SEARCH CONCEPT "an invoice for money" WITH TYPE "Topic" MODE "semantic" LIMIT 1')
    assert.same({ "Invoices" }, names(r))
    assert.is_true(r.result[1].metadata._score > 0.7)
    nx:close()
  end)

  it("falls back to keyword with a warning when the embedder fails, and catches up later", function()
    local down = false
    local e = toy()
    local embed = e.embed
    e.embed = function(texts)
      if down then return nil, "service unavailable" end
      return embed(texts)
    end
    local nx = assert(kip.open { path = path, embedder = e })
    down = true
    nx:execute(TOPICS)
    assert.is_true(nx:vector_status().pending > 0) -- queued, not lost
    local r = nx:execute('SEARCH CONCEPT "weather" WITH TYPE "Topic" MODE "hybrid"')
    assert.is_nil(r.error)
    assert.equal("Weather", r.result[1].name) -- by keyword
    assert.matches("service unavailable", r.warnings[1])
    assert.matches("keyword", r.warnings[1])
    down = false
    assert.is_true(nx:reindex_vectors())
    assert.equal(0, nx:vector_status().pending)
    r = nx:execute('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic" LIMIT 1')
    assert.is_nil(r.warnings)
    assert.same({ "Weather" }, names(r))
    nx:close()
  end)

  it("warns about elements not embedded yet", function()
    local e = toy()
    local nx = assert(kip.open { path = path, embedder = e })
    e.embed = function() return nil, "down" end
    nx:execute(TOPICS)
    e.embed = toy().embed
    local r = nx:execute('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic"')
    assert.is_nil(r.error)
    local w = table.concat(r.warnings or {}, " ")
    assert.matches("not embedded yet", w)
    nx:close()
  end)

  it("refuses vectors of another model until reindexed", function()
    local nx = assert(kip.open { path = path, embedder = toy("toy-v1") })
    nx:execute(TOPICS)
    nx:close()
    nx = assert(kip.open { path = path, embedder = toy("toy-v2") })
    local r = nx:execute('SEARCH CONCEPT "rain" MODE "semantic"')
    assert.equal("KIP_3005", r.error.code)
    assert.matches("toy%-v1", r.error.message)
    assert.matches("reindex %-%-vectors %-%-switch%-model", r.error.hint)
    -- keyword search is unaffected
    assert.is_nil(nx:execute('SEARCH CONCEPT "rain"').error)
    -- a write's drain never replaces them; reindexing without switch_model refuses
    assert.is_nil(nx:execute(TOPICS).error)
    assert.equal("toy-v1", nx:vector_status().model)
    local ok, err = nx:reindex_vectors()
    assert.is_nil(ok)
    assert.matches("toy%-v1", err)
    ok, err = nx:reindex_vectors { all = true }
    assert.is_nil(ok)
    assert.equal("toy-v1", nx:vector_status().model)
    assert.is_true(nx:reindex_vectors { switch_model = true })
    local st = nx:vector_status()
    assert.equal("toy-v2", st.model)
    assert.is_true(st.embedder_matches)
    r = nx:execute('SEARCH CONCEPT "rain" WITH TYPE "Topic" MODE "semantic" LIMIT 1')
    assert.same({ "Weather" }, names(r))
    nx:close()
  end)

  it("rejects a malformed embedder and a bad vector", function()
    local nx, err = kip.open { path = path, embedder = { model = "x", dim = 0, embed = function() end } }
    assert.is_nil(nx)
    assert.matches("embedder", err)
    local e = toy()
    e.embed = function(texts)
      local out = {}
      for i = 1, #texts do out[i] = { 1, 2 } end -- wrong dimension
      return out
    end
    nx = assert(kip.open { path = path, embedder = e })
    local r = nx:execute('SEARCH CONCEPT "rain" MODE "semantic"')
    assert.is_nil(r.error)
    assert.matches("not a list of 6 numbers", table.concat(r.warnings, " "))
    nx:close()
  end)

  it("never surfaces an element outside the request's scope", function()
    local nx = assert(kip.open { path = path, embedder = toy() })
    nx:execute(TOPICS)
    nx:execute([[UPSERT { CONCEPT ?s { {type: "Topic", name: "Secret rain plan"} SET ATTRIBUTES { description: "rain rain rain" } } }
      WITH METADATA { access_level: "private" }]])
    local scope = { eligibility = '?e.metadata.access_level != "private"' }
    for _, mode in ipairs { "semantic", "hybrid" } do
      local open = names(nx:execute('SEARCH CONCEPT "rain" MODE "' .. mode .. '"'))
      assert.equal("Secret rain plan", open[1])
      local r = nx:call({ command = 'SEARCH CONCEPT "rain" MODE "' .. mode .. '" LIMIT 50' }, scope)
      assert.is_nil(r.error)
      for _, n in ipairs(names(r)) do assert.not_equal("Secret rain plan", n) end
      assert.equal("Weather", names(r)[1])
    end
    nx:close()
  end)
end)

describe("SEARCH without an embedder", function()
  local nx = H.fresh_nexus(before_each, after_each, { embedder = false })

  it("answers semantic and hybrid by keyword and says so", function()
    nx():execute(TOPICS)
    for _, mode in ipairs { "semantic", "hybrid" } do
      local r = nx():execute('SEARCH CONCEPT "weather" MODE "' .. mode .. '"')
      assert.is_nil(r.error)
      assert.equal("Weather", r.result[1].name)
      assert.matches("no embedder", r.warnings[1])
    end
  end)
end)
