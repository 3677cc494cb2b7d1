-- busted specs for bulk loads that defer the SEARCH index (kip import):
-- writes with defer_index stay unindexed (SEARCH says so), sync_index
-- indexes them in batches with progress, and public ids never collide.
local kip = require "kip"
local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

describe("deferred indexing", function()
  local current = H.fresh_nexus(before_each, after_each)

  it("leaves bulk writes unindexed until sync_index, and SEARCH warns meanwhile", function()
    local blocks = {}
    for i = 1, 300 do blocks[i] = ('CONCEPT ?c%d { {type: "Person", name: "Quokka %d"} }'):format(i, i) end
    local r = current():call({ command = "UPSERT { " .. table.concat(blocks, " ") .. " }" }, { defer_index = true })
    assert.is_nil(r.error)
    local s = current():execute('SEARCH CONCEPT "quokka" LIMIT 3')
    assert.same({}, s.result)
    assert.matches("not indexed yet", s.warnings[1])
    local seen = {}
    assert.is_true(current().handle:sync_index(100, function(done, total) seen[#seen + 1] = done .. "/" .. total end))
    assert.same({ "100/300", "200/300", "300/300" }, seen)
    local after = current():execute('SEARCH CONCEPT "quokka" LIMIT 3')
    assert.equal(3, #after.result)
    assert.is_nil(after.warnings)
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
