-- busted specs for the ARG offline loop (seed 003 §3 A-E; docs/arg.md
-- "Offline loop"): a correction becomes an approved, published keyword and
-- the request routes right under the new version; weak-signal-only
-- candidates are never auto-published; reviews; rollback restores a
-- version's content and its episodes replay; the staging and version
-- records are governed (adversarial).
local kip = require "kip"
local arg = require "kip.arg"
local offline = require "kip.arg.offline"
local registry = require "kip.arg.registry"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

-- the authenticated callers (kip.arg.identity)
local CUSTOMER = { roles = { "customer" }, tenant = "acme", user = "dana@acme.example" }
-- requests no keyword of the small ontology names: routed wrong or clarified
local PARAPHRASE = "my paper copy for the accountant, where is it kept?"
local PARAPHRASE2 = "the accountant wants a paper copy of what we paid last year"

describe("ARG offline loop", function()
  local path, nx
  before_each(function()
    path = H.tmpdb()
    nx = assert(kip.open { path = path, policies = { "default" }, embedder = false })
    assert(arg.init(nx, { ontology = H.home() .. "/spec/fixtures/arg_small.kip" }))
  end)
  after_each(function()
    nx:close()
    H.cleanup(path)
  end)

  local function ask(prompt, ctx) return assert(nx:arg({ prompt = prompt }, { ctx = ctx or CUSTOMER })) end

  it("learns from corrections: candidate, validation, publish as version 2, then the requests route right", function()
    local r = ask(PARAPHRASE)
    assert.are_not.equal("billing.invoices", r.weaver.primary_label)
    assert(nx:arg_feedback(r.episode_id, { verified = false, label = "billing.invoices", note = "it was about invoices" }))
    -- one request's words are not evidence enough for a keyword (TAXONOMY_MIN)
    local one = assert(offline.run(nx, { dry_run = true }))
    for _, c in ipairs(one.candidates) do assert.are_not.equal("taxonomy", c.type) end
    local r2 = ask(PARAPHRASE2)
    assert(nx:arg_feedback(r2.episode_id, { verified = false, label = "billing.invoices" }))
    local report = assert(offline.run(nx))
    assert.equal(1, report.base_version)
    local tax
    for _, c in ipairs(report.candidates) do if c.type == "taxonomy" and c.target == "billing.invoices" then tax = c end end
    assert.truthy(tax, "a taxonomy candidate for the corrected label")
    assert.same({ "accountant", "copy", "paper" }, tax.after.add_keywords) -- the words both requests carry
    assert.equal(2, #tax.evidence)
    assert.equal(2, tax.scores.gain_info_confirmed)
    assert.equal(0, tax.scores.penalty_silent)
    assert.equal("approved", tax.status, table.concat(tax.validation.reasons, "; "))
    assert.is_true(tax.scores.replay.improved >= 1)
    -- staged, not visible online
    assert.are_not.equal("billing.invoices", ask(PARAPHRASE).weaver.primary_label)
    local pub = assert(offline.publish(nx))
    assert.equal(2, pub.version)
    local after = ask(PARAPHRASE)
    assert.equal(2, after.ontology_version)
    assert.equal("billing.invoices", after.weaver.primary_label)
    local versions = assert(offline.versions(nx))
    assert.equal(2, versions[1].version)
    assert.equal("published", offline.candidates(nx, { status = "published" })[1].status)
    -- rollback: version 1's content again, as version 3; its episodes replay
    local rb = assert(offline.rollback(nx, 1))
    assert.equal(3, rb.version)
    assert.equal(versions[2].content_hash, rb.content_hash)
    assert.are_not.equal("billing.invoices", ask(PARAPHRASE).weaver.primary_label)
    local rep = assert(arg.replay(nx, r.episode_id))
    assert.is_true(rep.reproduced)
    local _, err = arg.replay(nx, after.episode_id) -- recorded under version 2's content
    assert.equal("ARG_BIND_VERSION", err.code)
  end)

  it("never auto-publishes weak-signal-only candidates", function()
    -- low-margin clarifications without feedback: weak evidence only
    local weaver = require "kip.arg.steps.weaver"
    local weak, low = weaver.WEAK, weaver.LOW_MARGIN
    weaver.WEAK, weaver.LOW_MARGIN = 1000, 1
    for _ = 1, 3 do ask("subscription invoice") end
    weaver.WEAK, weaver.LOW_MARGIN = weak, low
    local report = assert(offline.run(nx))
    assert.is_true(#report.candidates >= 1)
    for _, c in ipairs(report.candidates) do
      assert.are_not.equal("approved", c.status)
      if c.type == "taxonomy" then
        assert.equal(1, c.scores.penalty_silent)
        assert.matches("weak%-signal dominated", table.concat(c.validation.reasons, " "))
      end
    end
    local pub, err = offline.publish(nx)
    assert.is_nil(pub)
    assert.equal("ARG_PUBLISH_NOTHING", err.code)
    assert.equal(1, ask("hello invoices").ontology_version)
  end)

  it("takes a person's review with a reason; a rejected candidate stays rejected", function()
    local weaver = require "kip.arg.steps.weaver"
    local weak, low = weaver.WEAK, weaver.LOW_MARGIN
    weaver.WEAK, weaver.LOW_MARGIN = 1000, 1
    ask("subscription invoice")
    ask("subscription invoice please")
    weaver.WEAK, weaver.LOW_MARGIN = weak, low
    local report = assert(offline.run(nx, { dry_run = true }))
    local c = report.candidates[1]
    -- ids come from the content: the same proposal has the same id in every run
    local again = assert(offline.run(nx))
    assert.equal(c.name, again.candidates[1].name)
    assert.matches("^cand%-v1%-taxonomy%-%x+$", c.name)
    local _, err = offline.review(nx, c.name, "approve", "")
    assert.equal("ARG_REQUEST_INVALID", err.code)
    assert(offline.review(nx, c.name, "approve", "checked the requests by hand"))
    local list = offline.candidates(nx, { status = "approved" })
    assert.equal(c.name, list[1].name)
    assert.equal("checked the requests by hand", list[1].review.reason)
    assert(offline.review(nx, c.name, "reject", "changed my mind"))
    assert.equal(0, #offline.candidates(nx, { status = "approved" }))
    -- proposed again by a later run: the person's decision is kept
    local later = assert(offline.run(nx, { since = "all" }))
    assert.equal(c.name, later.kept[1].name)
    assert.equal("rejected", offline.candidates(nx, { status = "rejected" })[1].status)
    local _, e2 = offline.review(nx, "cand-nope", "approve", "x")
    assert.equal("ARG_CANDIDATE_NOT_FOUND", e2.code)
  end)

  it("proposes a registry dedup for grey-zone units; a reviewed one is published on the registry", function()
    ask("where do I download my invoices?")
    local r = ask("where do I download invoices as PDF files?")
    local log = registry.get(nx, r.episode_id).attributes.info_registry
    assert.equal("GREY_ZONE", log.decision)
    assert.equal("UNSURE", log.compare)
    local report = assert(offline.run(nx))
    local dedup
    for _, c in ipairs(report.candidates) do if c.type == "registry_dedup" then dedup = c end end
    assert.truthy(dedup)
    assert.equal("needs_review", dedup.status)
    assert(offline.review(nx, dedup.name, "approve", "the same question"))
    assert(offline.publish(nx))
    local u = nx:execute('FIND(?u.attributes.merged_into) WHERE { ?u {type: "InfoUnit", name: :n} }', { n = log.unit },
      { ctx = { operator = true } })
    assert.equal(log.grey_zone_of, u.result[1])
  end)

  it("writes nothing on a dry run", function()
    local r = ask(PARAPHRASE)
    assert(nx:arg_feedback(r.episode_id, { verified = false, label = "billing.invoices" }))
    local report = assert(offline.run(nx, { dry_run = true }))
    assert.is_true(report.dry_run)
    assert.equal(0, #offline.candidates(nx))
    local second = assert(offline.run(nx)) -- the dry run did not move the collection window
    assert.equal(report.episodes, second.episodes)
  end)

  it("keeps staging and versions governed: agents cannot write them, versions are append-only", function()
    local agent = { actor = "agent" }
    local up = 'UPSERT { CONCEPT ?c { {type: "ArgCandidate", name: "cand-x"} SET ATTRIBUTES { type: "taxonomy", status: "approved", evidence: [] } } } WITH METADATA { source: "x", author: "x" }'
    assert.equal("KIP_4004", nx:execute(up, nil, { ctx = agent }).error.code)
    local publisher = { operator = true, roles = { "arg_publisher" } }
    local resp = nx:execute('UPDATE ?v SET ATTRIBUTES { content_hash: "forged" } WHERE { ?v {type: "ArgVersion", name: "v1"} }', nil,
      { ctx = publisher })
    assert.equal("KIP_4004", resp.error.code)
    resp = nx:execute('DELETE CONCEPT ?v DETACH WHERE { ?v {type: "ArgVersion"} }', nil, { ctx = publisher })
    assert.equal("KIP_4004", resp.error.code)
  end)

  it("computes metrics per version with regressions", function()
    ask(PARAPHRASE)
    ask("where do I download my invoices?")
    local mt = assert(offline.metrics(nx))
    assert.equal(1, #mt.versions)
    assert.equal(2, mt.versions[1].requests)
    assert.is_true(mt.versions[1].coverage > 0)
  end)

  it("compares versions like with like: only requests asked under both", function()
    local metrics = require "kip.arg.offline.metrics"
    local m = { labels = { a = { cluster = "x" } }, label_names = { "a" } }
    local function ep(version, prompt, outcome)
      return { version = version, prompt = prompt, outcome = outcome, primary = "a", candidates = {}, flags = {},
        caller = { role = "customer" } }
    end
    -- different traffic under the two versions: not compared, no regression
    local ds = { episodes = { ep(1, "p1", "ANSWER"), ep(1, "p2", "ANSWER"), ep(2, "p3", "CLARIFY") } }
    local r = metrics.run(ds, m)
    assert.equal(0, #r.regressions)
    assert.equal(0, r.comparisons[1].paired_requests)
    -- the same requests, the same decisions (identical content): no regression
    ds = { episodes = { ep(1, "p1", "ANSWER"), ep(1, "p2", "CLARIFY"), ep(2, "p1", "ANSWER"), ep(2, "p2", "CLARIFY"),
      ep(2, "p9", "CLARIFY") } }
    r = metrics.run(ds, m)
    assert.equal(0, #r.regressions)
    assert.equal(2, r.comparisons[1].paired_requests)
    -- the same requests clarified more often under version 2: a regression
    ds = { episodes = { ep(1, "p1", "ANSWER"), ep(1, "p2", "ANSWER"), ep(2, "p1", "CLARIFY"), ep(2, "p2", "ANSWER") } }
    r = metrics.run(ds, m)
    assert.equal(1, #r.regressions)
    assert.same({ "a", "clarify_rate", 0, 0.5, 2 }, { r.regressions[1].label, r.regressions[1].metric, r.regressions[1].before,
      r.regressions[1].after, r.regressions[1].requests })
  end)
end)
