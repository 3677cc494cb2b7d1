-- Sleep-cycle benchmark (docs/performance.md "Sleep cycle"): generates a
-- memory of N concepts (people, notes, places, preferences, events) with
-- ~2 links each, planted defects at fixed rates (orphans, Unsorted items,
-- stale Events, expired notes, name twins, conflicting facts) and pending
-- SleepTasks (one per 500 items), runs one
-- cycle and a second one, and prints the time per phase.
-- Run: scripts/bench/sleep [N [PATH [load]]]   (default 100000; PATH keeps
-- the nexus there, "load" only builds it)
local kip = require "kip"
local sleep = require "kip.sleep"
local transfer = require "kip.transfer"

local N = tonumber(arg and arg[1]) or 100000
local NOW = "2026-11-20T00:00:00Z"
local keep = arg and arg[2] -- a path: the nexus is kept there (and with "load" as arg[3], only loaded)
local path = keep or (os.tmpname() .. ".db")
local nx = assert(kip.open { path = path, embedder = false })

local out = { [[UPSERT {
  CONCEPT ?n { {type: "$ConceptType", name: "Note"} }
  CONCEPT ?pl { {type: "$ConceptType", name: "Place"} }
  CONCEPT ?li { {type: "$PropositionType", name: "lives_in"} SET ATTRIBUTES { is_functional: true } }
  CONCEPT ?kn { {type: "$PropositionType", name: "knows"} }
} WITH METADATA { source: "bench", author: "bench" }]] }
local DOMAINS = { "Family", "Health", "Travel", "Work", "Food", "Finance", "Learning", "Home" }
for _, d in ipairs(DOMAINS) do
  out[#out + 1] = ('UPSERT { CONCEPT ?d { {type: "Domain", name: "%s"} SET ATTRIBUTES { description: "%s" } } } WITH METADATA { source: "bench", author: "bench" }'):format(d, d)
end
local rng = 12345
local function rand(n)
  rng = (rng * 1103515245 + 12345) % 2147483648
  return rng % n
end
local per = math.floor(N / 5)
for i = 1, per do
  local d = DOMAINS[i % #DOMAINS + 1]
  local dom = i % 97 == 0 and "" or ('("belongs_to_domain", {type: "Domain", name: "%s"})'):format(i % 89 == 0 and "Unsorted" or d)
  local exp = i % 113 == 0 and ', expires_at: "2026-01-01T00:00:00Z", memory_tier: "short-term"' or ""
  out[#out + 1] = ([[UPSERT {
  CONCEPT ?p { {type: "Person", name: "person %d"} SET ATTRIBUTES { email: "p%d@example.org" } SET PROPOSITIONS { %s } }
  CONCEPT ?pl { {type: "Place", name: "place %d"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "%s"}) } }
  CONCEPT ?n { {type: "Note", name: "note %d"} SET ATTRIBUTES { body: "note number %d" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "%s"}) } }
  CONCEPT ?pr { {type: "Preference", name: "preference %d"} SET ATTRIBUTES { description: "likes %d" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "%s"}) } }
  CONCEPT ?e { {type: "Event", name: "event %d"} SET ATTRIBUTES { event_class: "Conversation", start_time: "2026-%02d-10T10:00:00Z", consolidation_status: "pending", salience_score: %d }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "%s"}) ("involves", ?p) } }
  PROPOSITION ?k { (?p, "knows", {type: "Person", name: "person %d"}) }
  PROPOSITION ?l { (?p, "lives_in", ?pl) }
} WITH METADATA { source: "bench", author: "bench", memory_strength: 0.8, created_at: "2026-01-01T00:00:00Z"%s }]])
    :format(i, i, dom, i, d, i, i, d, i, i, d, i, (i % 11) + 1, rand(100), d, math.max(1, i - 1), exp)
  if i % 211 == 0 then -- a name twin and a second, newer home
    out[#out + 1] = ([[UPSERT { CONCEPT ?t { {type: "Person", name: "Person  %d"} SET ATTRIBUTES { email: "p%d@example.org" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Family"}) } } }
WITH METADATA { source: "bench", author: "bench" }
UPSERT { PROPOSITION ?l { ({type: "Person", name: "person %d"}, "lives_in", {type: "Place", name: "place 1"}) } } WITH METADATA { source: "bench", author: "bench", valid_from: "2026-06-01T00:00:00Z" }]])
      :format(i, i, i)
  end
end
-- SleepTasks handed off by $self (seed 001): archive a note, reclassify a
-- preference, one per 500 items (the task phase at this size)
for i = 1, per, 500 do
  out[#out + 1] = ([[UPSERT { CONCEPT ?t { {type: "SleepTask", name: "task %d"} SET ATTRIBUTES { target_type: "%s", target_name: "%s %d",
  requested_action: "%s", target_domain: "Home", status: "pending", reason: "bench" }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) ("assigned_to", {type: "Person", name: "$system"}) } } }
WITH METADATA { source: "bench", author: "$self" }]]):format(i, i % 1000 == 1 and "Note" or "Preference", i % 1000 == 1 and "note" or "preference", i,
    i % 1000 == 1 and "archive" or "reclassify")
end
local text = table.concat(out, "\n")
local t0 = os.clock()
local st = transfer.apply(nx, text)
io.write(("loaded %d elements in %.1fs\n"):format(st.elements, os.clock() - t0))
if arg[3] == "load" then
  nx:close()
  return
end
for run = 1, 2 do
  local t = os.clock()
  local report = sleep.run(nx, { now = NOW, progress = function(name, title, counts, secs)
    local parts = {}
    for k, v in pairs(counts or {}) do parts[#parts + 1] = k .. "=" .. tostring(v) end
    table.sort(parts)
    io.write(("  run %d  %-15s %7.2fs  %s\n"):format(run, name, secs, table.concat(parts, " ")))
  end })
  io.write(("run %d: %.1fs, %d writes, %d flagged\n"):format(run, os.clock() - t, report.writes, #report.flagged))
end
nx:close()
if keep then return end
os.remove(path)
os.remove(path .. "-wal")
os.remove(path .. "-shm")
