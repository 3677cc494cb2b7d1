-- busted specs for the mind model (seed 004; docs/mind.md): the lifecycle
-- loop end to end, the authority the policies enforce (adversarial), and
-- gates that reload when their file changes.
local kip = require "kip"
local mind = require "kip.mind"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

local HERE = { global = "global", repo = "repo:/src/app", worktree = "worktree:/src/app-feature", parent_of_worktree = "repo:/src/app" }

local function ok(r, e)
  assert(r, e and (e.code .. " " .. e.message))
  return r
end

describe("mind model", function()
  local path, dir, nx
  local agent = { actor = "agent-1", roles = { "agent" } }
  local reviewer = { actor = "ana", roles = { "reviewer" } }
  local operator = { actor = "op", roles = { "operator" } }

  before_each(function()
    path = H.tmpdb()
    dir = os.tmpname()
    os.remove(dir)
    os.execute("mkdir -p " .. dir .. " && cp " .. H.home() .. "/policies/mind_gates.lua " .. dir .. "/")
    nx = assert(kip.open { path = path, policies = { "default" }, policy_dirs = { dir }, embedder = false })
    assert(mind.init(nx))
  end)
  after_each(function()
    nx:close()
    H.cleanup(path)
    os.execute("rm -rf " .. dir)
  end)

  local function record(content, extra)
    local o = { content = content, domain = "project", field = "debugging", provenance = "runtime", here = HERE, ctx = agent }
    for k, v in pairs(extra or {}) do o[k] = v end
    return ok(mind.record(nx, o)).evidence
  end

  local function section(ctxpack, tier)
    for _, s in ipairs(ctxpack.sections) do if s.tier == tier then return s.items end end
  end

  it("walks the loop: record, distill, gate, verify, promote, context, counterexample, demote, history", function()
    local e1 = record("flaky test passed after clearing the build cache", { source_ref = "ci/run/101" })
    local k = ok(mind.distill(nx, { statement = "Clear the build cache before re-running a flaky test", tier = "shu",
      domain = "project", field = "debugging", supporting = { e1 }, here = HERE, ctx = agent }))
    assert.equal("candidate", k.status)
    assert.equal("worktree", k.anchor_kind)
    local g = ok(mind.gate(nx, { name = k.knowledge, ctx = agent }))
    assert.is_false(g.ready)
    assert.equal(1, g.missing.verification)
    local r, e = mind.promote(nx, { name = k.knowledge, reason = "seems right", ctx = operator })
    assert.is_nil(r)
    assert.equal("KIP_2002", e.code)
    assert.matches("1 more verification", e.message)
    local e2 = record("re-ran the flaky test 5 times with a clean cache: all green", { source_ref = "ci/run/102" })
    ok(mind.link(nx, { name = k.knowledge, verification = { e2 }, reason = "re-verified", ctx = agent }))
    assert.is_true(ok(mind.gate(nx, { name = k.knowledge })).ready)
    -- the gate is met, but lifecycle authority is human (seed 004 P80): the agent cannot promote
    r, e = mind.promote(nx, { name = k.knowledge, reason = "gate met", ctx = agent })
    assert.is_nil(r)
    assert.matches("needs a human caller", e.message)
    r = ok(mind.promote(nx, { name = k.knowledge, reason = "gate met", ctx = operator }))
    assert.equal("promoted", r.to)
    -- context: in the shu section, with its evidence by role
    local pack = ok(mind.context(nx, { here = HERE, ctx = agent }))
    local shu = section(pack, "shu")
    assert.equal(1, #shu)
    assert.equal(k.knowledge, shu[1].knowledge)
    assert.equal(e1, shu[1].evidence.supporting[1].name)
    assert.equal("ci/run/101", shu[1].evidence.supporting[1].source_ref)
    assert.equal(e2, shu[1].evidence.verification[1].name)
    -- a counterexample demotes it, and it leaves the default context
    local e3 = record("the flaky test failed again with a clean cache: the cache was not the cause")
    r = ok(mind.demote(nx, { name = k.knowledge, counterexamples = { e3 }, reason = "contradicted", ctx = operator }))
    assert.equal("demoted", r.to)
    assert.same({}, section(ok(mind.context(nx, { here = HERE, ctx = agent })), "shu"))
    -- the events tell the whole history
    local ev = ok(mind.events(nx, { name = k.knowledge }))
    local types = {}
    for i, x in ipairs(ev) do types[i] = x.type .. ":" .. tostring(x.to) end
    assert.same({ "created:candidate", "linked:candidate", "promoted:promoted", "demoted:demoted" }, types)
    assert.equal("agent-1", ev[1].actor)
    assert.equal("agent", ev[1].actor_kind)
    assert.equal("op", ev[3].actor)
    assert.equal("human", ev[3].actor_kind)
  end)

  it("orders sections dao_tian, dao_ren, shu, qi, prefers worktree over repo over global, keeps dao_tian sparse", function()
    local function promoted(statement, tier, kind, domain, nsup, nver, nteach, who)
      local refs = {}
      for i = 1, nsup do refs[i] = record(statement .. " support " .. i, { domain = domain }) end
      local k = ok(mind.distill(nx, { statement = statement, tier = tier, domain = domain or "project", field = "debugging",
        supporting = refs, anchor = kind, here = HERE, ctx = agent }))
      local ver, teach = {}, {}
      for i = 1, nver do ver[i] = record(statement .. " verified " .. i, { domain = domain }) end
      for i = 1, nteach do teach[i] = record(statement .. " taught " .. i, { domain = domain, provenance = "human", ctx = operator }) end
      ok(mind.promote(nx, { name = k.knowledge, verification = ver, teaching = teach, ctx = who or operator }))
      return k.knowledge
    end
    local law1 = promoted("Evidence precedes assertion", "dao_tian", "global", "global", 3, 2, 1, reviewer)
    promoted("Prefer reversible changes", "dao_tian", "global", "global", 3, 2, 1, reviewer)
    local dr = promoted("Flaky tests hide ordering bugs", "dao_ren", "repo", "project", 2, 1, 0)
    local s_repo = promoted("Bisect with the cache cleared", "shu", "repo", "project", 1, 1, 0)
    local s_wt = promoted("Bisect this branch with --first-parent", "shu", "worktree", "project", 1, 1, 0)
    local q = promoted("kip explain shows the plan", "qi", "worktree", "project", 1, 1, 0)
    local pack = ok(mind.context(nx, { here = HERE }))
    local tiers = {}
    for i, s in ipairs(pack.sections) do tiers[i] = s.tier end
    assert.same({ "dao_tian", "dao_ren", "shu", "qi" }, tiers)
    assert.equal(1, #section(pack, "dao_tian")) -- sparse by default
    assert.equal(law1 and 1 or 1, #section(pack, "dao_tian"))
    assert.equal(dr, section(pack, "dao_ren")[1].knowledge)
    assert.same({ s_wt, s_repo }, { section(pack, "shu")[1].knowledge, section(pack, "shu")[2].knowledge })
    assert.equal(q, section(pack, "qi")[1].knowledge)
    assert.equal(2, #section(ok(mind.context(nx, { here = HERE, dao_tian_limit = 5 })), "dao_tian"))
    assert.same({}, section(ok(mind.context(nx, { here = HERE, dao_tian_limit = 0 })), "dao_tian"))
    -- another checkout of another repo sees only the global items
    local other = { global = "global", repo = "repo:/src/other", worktree = "worktree:/src/other" }
    pack = ok(mind.context(nx, { here = other, dao_tian_limit = 5 }))
    assert.equal(2, #section(pack, "dao_tian"))
    assert.same({}, section(pack, "shu"))
  end)

  it("publishes outward worktree -> repo -> global only for active, global-domain knowledge", function()
    local e = record("x")
    local k = ok(mind.distill(nx, { statement = "s", tier = "qi", domain = "project", field = "tooling", supporting = { e },
      here = HERE, ctx = agent }))
    local r, err = mind.publish_anchor(nx, { name = k.knowledge, ctx = operator })
    assert.is_nil(r)
    assert.matches("only promoted or canonical", err.message)
    ok(mind.promote(nx, { name = k.knowledge, verification = { record("y") }, ctx = operator }))
    r, err = mind.publish_anchor(nx, { name = k.knowledge, reason = "shared", ctx = agent })
    assert.matches("needs a human caller", err.message)
    r = ok(mind.publish_anchor(nx, { name = k.knowledge, reason = "shared by the team", ctx = operator }))
    assert.equal("repo:/src/app", r.to_anchor)
    r, err = mind.publish_anchor(nx, { name = k.knowledge, ctx = operator })
    assert.matches("domain=global", err.message)
    local ev = ok(mind.events(nx, { name = k.knowledge }))
    assert.equal("published_anchor", ev[#ev].type)
  end)

  it("suggests fields with enough evidence and no active knowledge", function()
    for i = 1, 5 do record("observation " .. i, { field = "performance" }) end
    local pack = ok(mind.context(nx, { here = HERE }))
    assert.same({ { field = "performance", evidence = 5 } }, pack.distill_suggestions)
  end)

  it("keeps its indexes in the transaction of each change, and rebuilds them", function()
    local function shelf_of(name)
      local r = nx:execute('FIND(?s.name) WHERE { ({type: "Knowledge", name: :n}, "shelved_in", ?s) }', { n = name })
      return r.result
    end
    local function card(field)
      local r = nx:execute('FIND(?f.attributes) WHERE { ?f {type: "MindField", name: :f} }', { f = field })
      return r.result[1] or {}
    end
    local k = ok(mind.distill(nx, { statement = "Pin the toolchain", tier = "shu", domain = "project", field = "build",
      supporting = { record("a", { field = "build" }) }, here = HERE, ctx = agent })).knowledge
    assert.same({ "shu|candidate|" .. HERE.worktree }, shelf_of(k))
    assert.same({ evidence_count = 1 }, card("build"))
    ok(mind.promote(nx, { name = k, verification = { record("b", { field = "build" }) }, ctx = operator }))
    assert.same({ "shu|promoted|" .. HERE.worktree }, shelf_of(k))
    assert.same({ evidence_count = 2, active_knowledge = 1 }, card("build"))
    ok(mind.publish_anchor(nx, { name = k, reason = "team-wide", ctx = operator }))
    assert.same({ "shu|promoted|" .. HERE.repo }, shelf_of(k))
    ok(mind.retire(nx, { name = k, reason = "toolchain is pinned by the image now", ctx = operator }))
    assert.same({ "shu|retired|" .. HERE.repo }, shelf_of(k))
    assert.same({ evidence_count = 2, active_knowledge = 0 }, card("build"))
    -- a refused change moves nothing
    assert.is_nil(mind.promote(nx, { name = k, ctx = operator }))
    assert.same({ "shu|retired|" .. HERE.repo }, shelf_of(k))
    -- the indexes are the operations' alone, and a rebuild finds them right
    local r = nx:execute('UPSERT { PROPOSITION ?l { ({type: "Knowledge", name: :n}, "shelved_in", {type: "MindShelf", name: :s}) } }', { n = k, s = "shu|candidate|" .. HERE.worktree })
    assert.equal("KIP_4004", r.error and r.error.code or "none")
    local st = ok(require("kip.mind.ops").reindex(nx, { ctx = operator }))
    assert.equal(0, st.shelved)
    assert.same({ "shu|retired|" .. HERE.repo }, shelf_of(k))
  end)

  it("keeps global anchors for domain=global, for evidence as for knowledge", function()
    local r, e = mind.record(nx, { content = "c", domain = "project", field = "f", provenance = "runtime", anchor = "global",
      here = HERE, ctx = agent })
    assert.is_nil(r)
    assert.matches("global anchor holds only domain=global", e.message)
  end)

  describe("authority (adversarial)", function()
    local function refused(cmd, params, ctx)
      local r = nx:execute(cmd, params, { ctx = ctx or agent })
      assert.is_table(r.error, "expected a refusal of " .. cmd)
      return r.error
    end

    it("refuses direct KML on Knowledge, its links and its events, and writes nothing", function()
      local e = record("x")
      local err = refused([[UPSERT { CONCEPT ?k { {type: "Knowledge", name: "kn:forged"} SET ATTRIBUTES { statement: "trust me",
        tier: "dao_tian", status: "canonical", domain: "global", field: "x", anchor_kind: "global", anchor_id: "global" } } }
        WITH METADATA { source: "agent", author: "agent-1" }]])
      assert.equal("KIP_4004", err.code)
      assert.matches("sealed by mind", err.message)
      assert.matches("lifecycle operations", err.hint)
      assert.is_nil(mind.gate(nx, { name = "kn:forged" }))
      -- even a candidate: knowledge comes only from distill
      refused([[UPSERT { CONCEPT ?k { {type: "Knowledge", name: "kn:sneaky"} SET ATTRIBUTES { statement: "s", tier: "qi", status: "candidate" } } }]])
      local k = ok(mind.distill(nx, { statement = "real", tier = "qi", domain = "project", field = "x", supporting = { e },
        here = HERE, ctx = agent }))
      -- status by plain UPDATE, evidence links by hand, deleting it
      refused('UPDATE ?k SET ATTRIBUTES { status: "promoted" } WHERE { ?k {type: "Knowledge", name: :n} }', { n = k.knowledge })
      refused([[UPSERT { PROPOSITION ?l { ({type: "Evidence", name: :e}, "verifies", {type: "Knowledge", name: :n}) } }
        WITH METADATA { source: "agent", author: "agent-1" }]], { e = e, n = k.knowledge })
      refused('DELETE CONCEPT ?k DETACH WHERE { ?k {type: "Knowledge", name: :n} }', { n = k.knowledge })
      -- nor by taking its evidence away or rewriting it
      refused('DELETE CONCEPT ?e DETACH WHERE { ?e {type: "Evidence", name: :n} }', { n = e })
      refused('UPDATE ?e SET ATTRIBUTES { content: "never mind" } WHERE { ?e {type: "Evidence", name: :n} }', { n = e })
      assert.equal("candidate", ok(mind.gate(nx, { name = k.knowledge })).status)
      -- nor by id, through a cascade or a merge: the core's write guards refuse every row
      local kid = nx:execute('FIND(?k.id) WHERE { ?k {type: "Knowledge", name: :n} }', { n = k.knowledge }).result[1]
      local eid = nx:execute('FIND(?e.id) WHERE { ?e {type: "Evidence", name: :n} }', { n = e }).result[1]
      local err2 = refused('UPDATE ?k SET ATTRIBUTES { status: "canonical" } WHERE { ?k {id: :id} }', { id = kid })
      assert.equal("KIP_4004", err2.code)
      assert.matches("Knowledge", err2.message)
      refused('UPSERT { CONCEPT ?k { {id: :id} SET ATTRIBUTES { status: "canonical" } } } WITH METADATA { source: "a", author: "b" }', { id = kid })
      refused('DELETE CONCEPT ?x DETACH WHERE { ?x {id: :id} }', { id = eid })
      refused('DELETE CONCEPT ?x DETACH WHERE { ?x {id: :id} }', { id = kid })
      local _ = nx:execute([[UPSERT { CONCEPT ?n { {type: "Evidence", name: "ev:twin"} SET ATTRIBUTES { content: "x" } } }
        WITH METADATA { source: "a", author: "b" }]], nil, { ctx = agent })
      refused('MERGE CONCEPT ?a INTO ?b WHERE { ?a {type: "Evidence", name: "ev:twin"} ?b {id: :id} }', { id = eid })
      assert.equal("candidate", ok(mind.gate(nx, { name = k.knowledge })).status)
      assert.equal(1, ok(mind.gate(nx, { name = k.knowledge })).counts.supporting)
      -- events are append-only, for everyone, even inside an operation
      local ev = ok(mind.events(nx, { name = k.knowledge }))[1].event
      for _, who in ipairs { agent, reviewer, { actor = "op", roles = { "reviewer" }, mind_op = "promote" } } do
        refused('UPDATE ?e SET ATTRIBUTES { reason: "rewritten" } WHERE { ?e {type: "KnowledgeEvent", name: :n} }', { n = ev }, who)
        refused('DELETE CONCEPT ?e DETACH WHERE { ?e {type: "KnowledgeEvent", name: :n} }', { n = ev }, who)
      end
      assert.equal(1, #ok(mind.events(nx, { name = k.knowledge })))
    end)

    it("needs the reviewer role (never a field) to canonize dao_tian", function()
      local refs, ver = {}, {}
      for i = 1, 3 do refs[i] = record("law support " .. i, { domain = "global" }) end
      for i = 1, 2 do ver[i] = record("law verified " .. i, { domain = "global" }) end
      local teach = record("a human taught it", { domain = "global", provenance = "human", ctx = operator })
      local k = ok(mind.distill(nx, { statement = "Evidence precedes assertion", tier = "dao_tian", domain = "global",
        field = "epistemics", supporting = refs, here = HERE, ctx = agent }))
      -- a reviewer claimed in a field is ignored
      local r, e = mind.promote(nx, { name = k.knowledge, verification = ver, teaching = { teach }, reviewer = "ana",
        ctx = { actor = "agent-1", roles = { "agent" }, reviewer = "ana" } })
      assert.is_nil(r)
      assert.equal("KIP_4004", e.code)
      assert.matches("reviewer", e.message)
      assert.equal("candidate", ok(mind.gate(nx, { name = k.knowledge })).status)
      r = ok(mind.promote(nx, { name = k.knowledge, verification = ver, teaching = { teach }, ctx = reviewer }))
      assert.equal("canonical", r.to)
      assert.same({ "reviewer" }, ok(mind.events(nx, { name = k.knowledge }))[2].roles)
    end)

    it("accepts only existing Evidence as refs", function()
      local e = record("x")
      local k = ok(mind.distill(nx, { statement = "a", tier = "qi", domain = "project", field = "x", supporting = { e }, here = HERE }))
      local r, err = mind.distill(nx, { statement = "b", tier = "qi", domain = "project", field = "x", supporting = { k.knowledge }, here = HERE })
      assert.is_nil(r)
      assert.equal("KIP_2001", err.code)
      r, err = mind.promote(nx, { name = k.knowledge, verification = { "ev:nope" }, ctx = operator })
      assert.equal("KIP_3002", err.code)
      r, err = mind.demote(nx, { name = k.knowledge, reason = "no evidence", ctx = operator })
      assert.equal("KIP_2002", err.code)
      r, err = mind.distill(nx, { statement = "c", tier = "qi", domain = "project", field = "x", supporting = {}, here = HERE })
      assert.equal("KIP_2002", err.code)
    end)
  end)

  it("uses gate thresholds edited in the policy file without a restart", function()
    local e = record("x")
    local k = ok(mind.distill(nx, { statement = "q", tier = "qi", domain = "project", field = "x", supporting = { e }, here = HERE }))
    assert.is_false(ok(mind.gate(nx, { name = k.knowledge })).ready)
    local f = assert(io.open(dir .. "/mind_gates.lua"))
    local text = f:read("a")
    f:close()
    text = text:gsub("qi = { target = \"promoted\", supporting = 1, verification = 1", "qi = { target = \"promoted\", supporting = 1, verification = 0")
    f = assert(io.open(dir .. "/mind_gates.lua", "w"))
    f:write(text)
    f:close()
    os.execute("sleep 1.2") -- the policy set looks at its files at most once per second
    assert.is_true(ok(mind.gate(nx, { name = k.knowledge })).ready)
    assert.equal("promoted", ok(mind.promote(nx, { name = k.knowledge, ctx = operator })).to)
  end)

  describe("gates an agent cannot satisfy alone (adversarial)", function()
    it("counts one Evidence in one role, and teaching only from a human", function()
      local e1, e2 = record("seen once"), record("seen twice")
      local k = ok(mind.distill(nx, { statement = "twice", tier = "qi", domain = "project", supporting = { e1 }, here = HERE, ctx = agent }))
      -- the supporting evidence cited again as its verification
      local r, err = mind.promote(nx, { name = k.knowledge, verification = { e1 }, ctx = operator })
      assert.is_nil(r)
      assert.matches("one Evidence fills one role", err.message)
      r, err = mind.link(nx, { name = k.knowledge, supporting = { e2 }, verification = { e2 }, ctx = agent })
      assert.matches("one Evidence fills one role", err.message)
      assert.equal(1, ok(mind.gate(nx, { name = k.knowledge })).counts.supporting)
      assert.equal(0, ok(mind.gate(nx, { name = k.knowledge })).counts.verification)
      -- teaching is a human's: runtime evidence is refused, and an agent cannot record human evidence
      r, err = mind.link(nx, { name = k.knowledge, teaching = { e2 }, ctx = agent })
      assert.matches("not a human's teaching", err.message)
      r, err = mind.record(nx, { content = "trust me, I am human", domain = "project", provenance = "human", here = HERE, ctx = agent })
      assert.is_nil(r)
      assert.equal("KIP_4004", err.code)
      -- nor fields Evidence must not carry, nor a back-dated time
      r, err = mind.record(nx, { content = "c", domain = "project", provenance = "runtime", tier = "dao_tian", status = "canonical",
        recorded_at = "2001-01-01T00:00:00Z", here = HERE, ctx = agent })
      assert.is_nil(r)
      assert.matches("does not take recorded_at, status, tier", err.message)
    end)

    it("has no agent-only path to promoted or canonical, with or without policies", function()
      local e1, e2, e3, e4 = record("a"), record("b"), record("c"), record("d")
      local k = ok(mind.distill(nx, { statement = "agent made", tier = "qi", domain = "project", supporting = { e1 }, here = HERE, ctx = agent }))
      ok(mind.link(nx, { name = k.knowledge, verification = { e2 }, ctx = agent }))
      assert.is_true(ok(mind.gate(nx, { name = k.knowledge })).ready)
      for _, op in ipairs { "promote", "raise", "publish_anchor", "retire", "restore", "demote", "unlink" } do
        local r = mind[op](nx, { name = k.knowledge, reason = "r", counterexamples = { e3 }, evidence = e2, role = "verification",
          verification = { e4 }, ctx = agent })
        assert.is_nil(r, op)
      end
      -- the Lua API's default open has no policies: the core's guards still hold
      local raw = assert(kip.open { path = path, embedder = false })
      for _, cmd in ipairs {
        'UPDATE ?k SET ATTRIBUTES { status: "canonical" } WHERE { ?k {type: "Knowledge"} }',
        'UPSERT { CONCEPT ?e { {type: "Evidence", name: "ev:forged"} SET ATTRIBUTES { provenance: "human" } } }',
        'UPSERT { PROPOSITION ?l { ({type: "Evidence", name: "' .. e3 .. '"}, "verifies", {type: "Knowledge", name: "' .. k.knowledge .. '"}) } }',
        'UPSERT { CONCEPT ?e { {type: "KnowledgeEvent", name: "kev:forged"} SET ATTRIBUTES { event_type: "promoted", to_status: "canonical" } } }',
        'DELETE CONCEPT ?e DETACH WHERE { ?e {type: "KnowledgeEvent"} }',
      } do
        local r = raw:execute(cmd)
        assert.is_table(r.error, cmd)
        assert.equal("KIP_4004", r.error.code)
      end
      raw:close()
      assert.equal("candidate", ok(mind.gate(nx, { name = k.knowledge })).status)
    end)

    it("raises tiers one step through their own gate, and re-promotes only after new verification", function()
      local sup, ver = { record("s1") }, { record("v1") }
      local k = ok(mind.distill(nx, { statement = "method", tier = "qi", domain = "project", supporting = sup, here = HERE, ctx = agent }))
      ok(mind.promote(nx, { name = k.knowledge, verification = ver, ctx = operator }))
      local r, err = mind.raise(nx, { name = k.knowledge, ctx = operator })
      assert.matches("raise gate", err.message:gsub("qi %-> shu", "raise"))
      r = ok(mind.raise(nx, { name = k.knowledge, supporting = { record("s2") }, verification = { record("v2") }, ctx = operator }))
      assert.same({ "qi", "shu", "candidate" }, { r.from_tier, r.to_tier, r.to })
      ok(mind.promote(nx, { name = k.knowledge, ctx = operator }))
      -- a counterexample demotes it; the old verification does not resolve it, new verification does
      local cx = record("it failed on another repo")
      ok(mind.demote(nx, { name = k.knowledge, counterexamples = { cx }, reason = "contradicted", ctx = operator }))
      r, err = mind.promote(nx, { name = k.knowledge, ctx = operator })
      assert.matches("counterexample", err.message)
      r, err = mind.unlink(nx, { name = k.knowledge, evidence = cx, role = "counterexample", verification = ver, reason = "old", ctx = operator })
      assert.matches("recorded after it", err.message)
      local v3 = record("re-verified on both repos after the fix")
      ok(mind.unlink(nx, { name = k.knowledge, evidence = cx, role = "counterexample", verification = { v3 }, reason = "resolved", ctx = operator }))
      assert.equal("promoted", ok(mind.promote(nx, { name = k.knowledge, ctx = operator })).to)
      -- retired: nothing but restore leads out
      ok(mind.retire(nx, { name = k.knowledge, reason = "superseded", ctx = operator }))
      assert.is_nil(mind.demote(nx, { name = k.knowledge, counterexamples = { cx }, ctx = operator }))
      assert.is_nil(mind.promote(nx, { name = k.knowledge, ctx = operator }))
      assert.equal("candidate", ok(mind.restore(nx, { name = k.knowledge, reason = "needed", ctx = operator })).to)
      local types = {}
      for _, x in ipairs(ok(mind.events(nx, { name = k.knowledge }))) do types[#types + 1] = x.type end
      assert.same({ "created", "promoted", "promoted", "promoted", "demoted", "unlinked", "promoted", "retired", "updated" }, types)
    end)
  end)
end)
