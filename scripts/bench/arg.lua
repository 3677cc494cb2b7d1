-- scripts/bench/arg: nx:arg latency on the fixture ontology and on a copy
-- 10x its size (every cluster, label, node, action and source replicated
-- under new names, links included), each request recorded as an episode
-- like in production and run as its authenticated caller (the prompt line's
-- context.role and the profile's tenant and user keys). Prints medians,
-- means and tails, the share of each step (the post-check included) and the
-- growth.
local kip = require "kip"
local arg = require "kip.arg"
local core = require "kip.core"
local prompts_path, ontology_path = ...

for _, f in ipairs { prompts_path or "(no prompts file given)", ontology_path or "(no ontology given)" } do
  local h = io.open(f)
  if not h then
    io.stderr:write("bench arg: cannot read ", f, " (the ARG fixture: set KIP_SHARED, or put ../shared beside the checkout)\n")
    os.exit(2)
  end
  h:close()
end
local prompts = {}
for line in io.lines(prompts_path) do
  if line:find("%S") then prompts[#prompts + 1] = core.json_decode(line) end
end

local function tmpdb()
  local p = os.tmpname()
  os.remove(p)
  return p .. ".db"
end

-- the ontology as a capsule with every name suffixed: copies of the fixture
local function replicate(nx, copies)
  local m = require("kip.arg.snapshot").get(nx)
  local out = {}
  local function q(s) return core.json_encode(s) end
  for k = 2, copies do
    local sfx = "~" .. k
    local blocks = {}
    local function concept(t, name, attrs, links)
      local props = { '("belongs_to_domain", {type: "Domain", name: "ArgOntology"})' }
      for _, l in ipairs(links or {}) do props[#props + 1] = l end
      blocks[#blocks + 1] = ("CONCEPT ?x%d { {type: %s, name: %s} SET ATTRIBUTES %s SET PROPOSITIONS { %s } }")
        :format(#blocks, q(t), q(name .. sfx), q(attrs), table.concat(props, ", "))
    end
    local function link(p, t, name) return ("(%s, {type: %s, name: %s})"):format(q(p), q(t), q(name .. sfx)) end
    for _, n in ipairs(m.cluster_names) do concept("ArgCluster", n, { description = m.clusters[n].description or "" }) end
    for _, n in ipairs(m.label_names) do
      local l = m.labels[n]
      local links = { link("in_cluster", "ArgCluster", l.cluster) }
      concept("ArgLabel", n, { keywords = setmetatable(l.keywords, core.array_mt), aliases = setmetatable(l.aliases, core.array_mt),
        description = l.description, retrieval_type = l.retrieval_type, lifecycle = l.lifecycle, audience = l.audience }, links)
    end
    out[#out + 1] = "UPSERT {\n" .. table.concat(blocks, "\n") .. "\n} WITH METADATA { source: \"bench\", author: \"$system\" }"
    blocks = {}
    for _, n in ipairs(m.label_names) do
      local l = m.labels[n]
      local links = {}
      if l.parent then links[#links + 1] = link("parent_label", "ArgLabel", l.parent) end
      for other in pairs(l.incompatible) do if other > n then links[#links + 1] = link("incompatible_with", "ArgLabel", other) end end
      if #links > 0 then
        blocks[#blocks + 1] = ("CONCEPT ?y%d { {type: \"ArgLabel\", name: %s} SET PROPOSITIONS { %s } }"):format(#blocks, q(n .. sfx), table.concat(links, ", "))
      end
    end
    for _, n in ipairs(m.node_names) do
      local x = m.nodes[n]
      local links = {}
      for _, l in ipairs(x.labels) do links[#links + 1] = link("has_label", "ArgLabel", l) end
      concept("ArgNode", n, { title = x.title, chunk = x.chunk, audience = x.audience }, links)
    end
    for _, n in ipairs(m.action_names) do
      local a = m.actions[n]
      concept("ArgAction", n, { handler = a.handler, required_roles = setmetatable(a.required_roles, core.array_mt), params = a.params,
        description = a.description }, { link("has_label", "ArgLabel", a.label) })
    end
    for _, n in ipairs(m.source_names) do
      local s = m.sources[n]
      local links = {}
      for _, l in ipairs(s.labels) do links[#links + 1] = link("has_label", "ArgLabel", l) end
      concept("ExternalSource", n, { connector = s.connector, description = s.description or "" }, links)
    end
    out[#out + 1] = "UPSERT {\n" .. table.concat(blocks, "\n") .. "\n} WITH METADATA { source: \"bench\", author: \"$system\" }"
    blocks = {}
    for _, e in ipairs(m.edges) do
      blocks[#blocks + 1] = ("CONCEPT ?z%d { {type: \"ArgNode\", name: %s} SET PROPOSITIONS { %s } }"):format(#blocks, q(e[2] .. sfx), link(e[1], "ArgNode", e[3]))
    end
    out[#out + 1] = "UPSERT {\n" .. table.concat(blocks, "\n") .. "\n} WITH METADATA { source: \"bench\", author: \"$system\" }"
  end
  return table.concat(out, "\n")
end

local function quantile(t, q)
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  table.sort(c)
  return c[math.max(1, math.ceil(#c * q))] or 0
end
local function median(t) return quantile(t, 0.5) end
local function mean(t)
  local s = 0
  for _, v in ipairs(t) do s = s + v end
  return #t > 0 and s / #t or 0
end

local embedder_kind
local STEPS = { "snapshot", "policy", "candidates", "weaver", "bind", "traverse", "info", "check", "action", "memory" }

local function measure(path, label)
  local nx = assert(kip.open { path = path, policies = { "default" } })
  embedder_kind = nx.embedder or "none"
  -- warm: the snapshot of the version is built once per process
  local t0 = os.clock()
  local m = assert(require("kip.arg.snapshot").get(nx))
  local build_ms = (os.clock() - t0) * 1000
  local tkey, ukey = m.profile.tenant.context_key, m.profile.tenant.user_context_key
  local function caller(c) return { roles = { c.role }, tenant = c[tkey], user = c[ukey], actor = "bench" } end
  local total, per, wall = {}, {}, {}
  for _, s in ipairs(STEPS) do per[s] = {} end
  for round = 1, 3 do
    for _, p in ipairs(prompts) do
      local w0 = core.monotonic_ms()
      local r = assert(arg.run(nx, { prompt = p.prompt, context = p.context }, { ctx = caller(p.context or {}) }))
      wall[#wall + 1] = core.monotonic_ms() - w0
      total[#total + 1] = r.timings.total
      for _, s in ipairs(STEPS) do per[s][#per[s] + 1] = r.timings[s] or 0 end
    end
  end
  nx:close()
  local med = median(total)
  local row = { label = label, labels = #m.label_names, nodes = #m.node_names, median = med, build = build_ms, steps = {},
    mean = mean(total), p95 = quantile(total, 0.95), p99 = quantile(total, 0.99), max = quantile(total, 1),
    wall = { median = median(wall), mean = mean(wall), p95 = quantile(wall, 0.95), p99 = quantile(wall, 0.99), max = quantile(wall, 1) } }
  local sum = 0
  for _, s in ipairs(STEPS) do row.steps[s] = median(per[s]); sum = sum + row.steps[s] end
  row.sum = sum
  return row
end

local base = tmpdb()
do
  local nx = assert(kip.open { path = base, policies = { "default" } })
  assert(arg.init(nx, { ontology = ontology_path, quiet = true }))
  local cap = replicate(nx, 10)
  nx:close()
  local f = assert(io.open(base .. ".x10.kip", "w"))
  f:write(cap)
  f:close()
end
local big = tmpdb()
do
  -- the fixture and its nine copies, published as one version
  local f = assert(io.open(base .. ".x10.kip", "a"))
  f:write("\n", assert(io.open(ontology_path)):read("a"))
  f:close()
  local nx = assert(kip.open { path = big, policies = { "default" } })
  local ok, err = arg.init(nx, { ontology = base .. ".x10.kip" })
  assert(ok, err and err.message)
  nx:close()
end
-- a registry grown by a long life: the fixture with UNITS Info Registry units
-- (KIP_BENCH_ARG_UNITS, default 20 000) over as many keys as the loop makes
-- (outcome type, tenant and role, label signature), written as the loop
-- writes them (capability arg.record); a request reads only its key's units
local UNITS = tonumber(os.getenv("KIP_BENCH_ARG_UNITS") or 20000)
local grown = tmpdb()
do
  local registry, guards = require "kip.arg.registry", require "kip.arg.guards"
  local nx = assert(kip.open { path = grown })
  assert(arg.init(nx, { ontology = ontology_path, quiet = true }))
  local m = require("kip.arg.snapshot").get(nx)
  local o = guards.as(nx, guards.RECORD, { actor = "bench" })
  for from = 1, UNITS, 500 do
    local blocks, params = {}, {}
    for i = from, math.min(UNITS, from + 499) do
      local key = ("%s|tenant:t%d/role:r%d|%s"):format(i % 3 == 0 and "ACTION" or "DOMAIN", i % 97, i % 5,
        m.label_names[i % #m.label_names + 1])
      blocks[#blocks + 1] = ("CONCEPT ?u%d { {type: \"InfoUnit\", name: :n%d} SET ATTRIBUTES :a%d }"):format(i, i, i)
      params["n" .. i] = registry.unit_prefix(key) .. i
      params["a" .. i] = { info_key = key, info_text = "synthetic unit " .. i, observations = 1 }
    end
    assert(nx:query("UPSERT {\n" .. table.concat(blocks, "\n") .. '\n} WITH METADATA { source: "bench", author: "$system" }', params, o))
  end
  nx:close()
end
local rows = { measure(base, "fixture"), measure(big, "10x"), measure(grown, "registry") }
print(("%d requests x 3 rounds per size, each recorded as an episode; CPU time in ms (os.clock; the loop's timings.total); embedder: %s")
  :format(#prompts, tostring(embedder_kind)))
print(("%-8s %7s %6s %9s %8s %8s %8s %8s %11s"):format("", "labels", "nodes", "median", "mean", "p95", "p99", "max", "snapshot*"))
for _, r in ipairs(rows) do
  print(("%-8s %7d %6d %9.3f %8.3f %8.3f %8.3f %8.3f %11.1f"):format(r.label, r.labels, r.nodes, r.median, r.mean, r.p95, r.p99,
    r.max, r.build))
end
print(("growth   %7.1fx %5.1fx %8.2fx %7.2fx %7.2fx %7.2fx"):format(rows[2].labels / rows[1].labels, rows[2].nodes / rows[1].nodes,
  rows[2].median / rows[1].median, rows[2].mean / rows[1].mean, rows[2].p95 / rows[1].p95, rows[2].p99 / rows[1].p99))
print("\nwall clock of the whole call (ms; the episode's write and its sync to disk included, which CPU time does not see):")
print(("%-8s %9s %8s %8s %8s %8s"):format("", "median", "mean", "p95", "p99", "max"))
for _, r in ipairs(rows) do
  local w = r.wall
  print(("%-8s %9.3f %8.3f %8.3f %8.3f %8.3f"):format(r.label, w.median, w.mean, w.p95, w.p99, w.max))
end
print(("registry: the fixture with %d Info Registry units written before it (a long-lived registry)"):format(UNITS))
print("* building the pinned snapshot of a version (once per version and process)")
print("  (step 'snapshot' below: the per-request version check and text analysis)")
print("\nshare of each step (median per step / sum of step medians):")
print(("%-11s %18s %18s %18s"):format("step", "fixture", "10x", "registry"))
for _, s in ipairs(STEPS) do
  local line = ("%-11s"):format(s)
  for _, r in ipairs(rows) do line = line .. ("%9.3f ms %4.0f%% "):format(r.steps[s], 100 * r.steps[s] / r.sum) end
  print(line)
end
for _, p in ipairs { base, big, grown } do os.remove(p); os.remove(p .. "-wal"); os.remove(p .. "-shm") end
os.remove(base .. ".x10.kip")
