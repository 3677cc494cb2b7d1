-- Sleep-cycle benchmark (docs/performance.md "Sleep cycle"): generates a
-- memory of N concepts (people, notes, places, preferences, events) with
-- ~2 links each, planted defects at fixed rates (orphans, Unsorted items,
-- stale Events, expired notes, name twins, conflicting facts) and pending
-- SleepTasks (one per 500 items), runs one
-- cycle and a second one, and prints the time per phase.
-- Run: scripts/bench/sleep [N [PATH [load]]]   (default 100000; PATH keeps
-- the nexus there, "load" only builds it)
-- scripts/bench/sleep N PATH change K NIGHT: an agent's day of K writes to
-- the nexus at PATH (new notes, half without a Domain, mentioning people;
-- people's attributes updated; notes' Domain links deleted), drawn from N
-- and NIGHT, then exits — what an incremental cycle works from.
local kip = require "kip"
local sleep = require "kip.sleep"
local transfer = require "kip.transfer"

local N = tonumber(arg and arg[1]) or 100000
local NOW = "2026-11-20T00:00:00Z"
local keep = arg and arg[2] -- a path: the nexus is kept there (and with "load" as arg[3], only loaded)
local path = keep or (os.tmpname() .. ".db")
local nx = assert(kip.open { path = path, embedder = false })

if arg[3] == "change" then
  local k, night, per = tonumber(arg[4]) or 1000, tonumber(arg[5]) or 1, math.max(1, math.floor(N / 5))
  local cmds = {}
  -- (item i of the generator, avoiding those whose elements expire: the first cycle deleted them)
  local function item(x) x = x % per + 1; return x % 113 == 0 and x + 1 or x end
  for j = 1, math.floor(k / 2) do
    local dom = j % 2 == 0 and "" or (' ("belongs_to_domain", {type: "Domain", name: "Work"})')
    cmds[#cmds + 1] = ([[UPSERT { CONCEPT ?n { {type: "Note", name: "agent note %d-%d"} SET ATTRIBUTES { body: "day %d, note %d" }
  SET PROPOSITIONS { ("knows", {type: "Person", name: "person %d"})%s } } } WITH METADATA { source: "agent", author: "$self" }]])
      :format(night, j, night, j, item(j * 7 + night), dom)
  end
  for j = 1, math.floor(k / 4) do
    cmds[#cmds + 1] = ('UPDATE ?p SET ATTRIBUTES { last_seen: "night %d" } WHERE { ?p {type: "Person", name: "person %d"} }')
      :format(night, item(j * 13 + night))
    cmds[#cmds + 1] = ('DELETE PROPOSITIONS ?l WHERE { ?l ({type: "Note", name: "note %d"}, "belongs_to_domain", ?d) }')
      :format(item(j * 17 + night))
  end
  local t0 = os.clock()
  for _, cmd in ipairs(cmds) do
    local r = nx:execute(cmd)
    if r.error then error(r.error.message) end
  end
  io.write(("%d writes in %.1fs\n"):format(#cmds, os.clock() - t0))
  nx:close()
  return
end

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
