-- busted specs for the web inspector's server side (docs/ui.md): the
-- endpoints of kip.ui.api (errors, read-only console, the operator's views),
-- the neighbourhood's summaries, and the trust rules of kip ui's own server
-- (one-time token, session cookie, Host and Origin checks, static files) —
-- answered on a fake connection, so no socket is needed. The browser test is
-- tests/e2e_ui.mjs.
local core = require "kip.core"
local api = require "kip.ui.api"
local graph = require "kip.ui.graph"
local server = require "kip.ui.server"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

local DATA = [[UPSERT {
  CONCEPT ?t { {type: "$ConceptType", name: "Stop"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "CoreSchema"}) } }
  CONCEPT ?p { {type: "$PropositionType", name: "next_to"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "CoreSchema"}) } }
  CONCEPT ?d { {type: "Domain", name: "Lines"} }
  CONCEPT ?hub { {type: "Stop", name: "Hub"} SET PROPOSITIONS { ("belongs_to_domain", ?d) } }
} WITH METADATA { source: "spec", author: "spec" }]]

local function stops(n)
  local parts = { "UPSERT {" }
  for i = 1, n do
    parts[#parts + 1] = ('CONCEPT ?s%d { {type: "Stop", name: "Stop %d"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Lines"}) ("next_to", {type: "Stop", name: "Hub"}) } }'):format(i, i)
  end
  parts[#parts + 1] = '} WITH METADATA { source: "spec", author: "spec" }'
  return table.concat(parts, "\n")
end

local function call(nx, method, path, query, body, view)
  local status, ctype, text = api.handle(nx, { method = method, path = path, query = query or {}, body = body },
    view or { ctx = {} })
  return status, core.json_decode(text), ctype
end

describe("kip.ui.api", function()
  local nx = H.fresh_nexus(before_each, after_each)
  before_each(function()
    assert.is_nil(nx():execute(DATA).error)
    assert.is_nil(nx():execute(stops(12)).error)
  end)

  it("names what is wrong: unknown endpoint, wrong method, bad JSON, bad id, missing query", function()
    local s, r = call(nx(), "GET", "/api/nothing")
    assert.same({ 404, "KIP_1001" }, { s, r.error.code })
    s, r = call(nx(), "GET", "/api/kip")
    assert.same({ 405, "KIP_1001" }, { s, r.error.code })
    s, r = call(nx(), "POST", "/api/kip", nil, "{not json")
    assert.same({ 400, "KIP_1001" }, { s, r.error.code })
    s, r = call(nx(), "GET", "/api/element", { id = "DROP TABLE" })
    assert.same({ 200, "KIP_1001" }, { s, r.error.code })
    assert.truthy(r.error.hint:find("C:123", 1, true))
    s, r = call(nx(), "GET", "/api/search", {})
    assert.same({ 400, "KIP_1001" }, { s, r.error.code })
    s, r = call(nx(), "GET", "/api/element", { id = "C:999999" })
    assert.equal("KIP_3002", r.error.code)
  end)

  it("runs the console read-only unless writes are on", function()
    local cmd = core.json_encode { command = 'UPSERT { CONCEPT ?s { {type: "Stop", name: "New"} } } WITH METADATA { source: "ui", author: "spec" }' }
    local _, r = call(nx(), "POST", "/api/kip", nil, cmd, { ctx = {} })
    assert.equal("KIP_4004", r.error.code)
    _, r = call(nx(), "POST", "/api/kip", nil, cmd, { ctx = {}, writes = true })
    assert.is_nil(r.error)
    _, r = call(nx(), "POST", "/api/kip", nil, core.json_encode { command = 'FIND(?s.name) WHERE { ?s {type: "Stop", name: "New"} }' })
    assert.same({ "New" }, r.result)
  end)

  it("keeps the registry, replay, publish and the sleep dry run to the operator", function()
    for _, e in ipairs { { "GET", "/api/arg/episodes" }, { "GET", "/api/arg/offline" }, { "POST", "/api/arg/replay", "{}" },
      { "POST", "/api/arg/publish", "{}" }, { "POST", "/api/arg/rollback", '{"version": 1}' },
      { "POST", "/api/arg/review", "{}" }, { "POST", "/api/sleep/dry-run", "{}" } } do
      local _, r = call(nx(), e[1], e[2], nil, e[3], { ctx = { roles = { "operator" } } }) -- a role is not the operator
      assert.equal("KIP_3004", r.error.code, e[2])
      assert.truthy(r.error.hint:find("--operator", 1, true))
    end
  end)

  it("says what to run on a nexus without the ARG loop, the mind model or a sleep cycle yet", function()
    local op = { ctx = { operator = true } }
    local _, r = call(nx(), "GET", "/api/arg/episodes", nil, nil, op)
    assert.equal("ARG_BIND_NO_ONTOLOGY", r.error.code)
    assert.truthy(r.error.hint:find("kip arg init", 1, true))
    _, r = call(nx(), "GET", "/api/arg/offline", nil, nil, op)
    assert.equal("ARG_BIND_NO_ONTOLOGY", r.error.code)
    _, r = call(nx(), "GET", "/api/mind/items")
    assert.truthy(r.error.hint:find("kip mind init", 1, true))
    _, r = call(nx(), "GET", "/api/sleep/cycles")
    assert.same({}, r.result) -- no cycle yet: an empty list
  end)

  it("lists the policies, and the decision log to the operator only", function()
    local _, r = call(nx(), "GET", "/api/policies")
    assert.same({ false, false }, { r.result.governed, r.result.decisions_visible })
    assert.equal(0, #r.result.decisions)
    _, r = call(nx(), "GET", "/api/policies", nil, nil, { ctx = { operator = true } })
    assert.is_true(r.result.decisions_visible)
  end)

  it("draws a neighbourhood and summarises what it does not draw", function()
    local hub = nx():execute('FIND(?h) WHERE { ?h {type: "Stop", name: "Hub"} }').result[1]
    local _, r = call(nx(), "GET", "/api/neighbourhood", { id = hub.id, per_node = "5" })
    local g = r.result
    assert.equal(7, #g.nodes) -- the hub, its Domain and five of its twelve stops
    assert.equal(6, #g.edges)
    local more = {}
    for _, m in ipairs(g.more) do more[m.direction .. " " .. m.predicate] = m.count end
    assert.same({ ["in next_to"] = 7 }, more) -- the seven stops not drawn, counted
    -- filters: only belongs_to_domain, two hops
    _, r = call(nx(), "GET", "/api/neighbourhood", { id = hub.id, predicate = "belongs_to_domain", hops = "2", per_node = "100" })
    local names = {}
    for _, n in ipairs(r.result.nodes) do names[#names + 1] = n.label end
    table.sort(names)
    assert.equal(14, #names) -- the hub, the Domain, the 12 stops in it
    -- a capped drawing says so
    local cut = graph.neighbourhood(nx(), hub.id, { per_node = 100, max_nodes = 4 }, { readonly = true })
    assert.same({ 4, true }, { #cut.nodes, cut.truncated })
  end)
end)

describe("kip ui's server", function()
  local nx = H.fresh_nexus(before_each, after_each)
  local s, sent
  local conn = { send = function(_, text) sent = text end }
  before_each(function()
    s = setmetatable({ nx = nx(), port = 7411, token = "t0ken", sessions = {}, view = { ctx = {} }, log = function() end,
      hosts = { ["127.0.0.1:7411"] = true, ["localhost:7411"] = true } }, { __index = server })
  end)
  local function get(target, headers, method, body)
    sent = nil
    local h = { host = "127.0.0.1:7411" }
    for k, v in pairs(headers or {}) do h[k] = v end
    s:answer(conn, { method = method or "GET", target = target, headers = h, body = body })
    return tonumber(sent:match("^HTTP/1%.1 (%d+)")), sent
  end

  it("trades the one-time token for a session, once", function()
    local status, text = get("/?token=wrong")
    assert.equal(403, status)
    status, text = get("/?token=t0ken")
    assert.equal(302, status)
    local sid = text:match("Set%-Cookie: kip_ui=(%x+); HttpOnly; SameSite=Strict")
    assert.truthy(sid)
    assert.equal(403, (get("/?token=t0ken"))) -- used
    assert.equal(403, (get("/api/info")))     -- no cookie
    status, text = get("/api/info", { cookie = "other=1; kip_ui=" .. sid })
    assert.equal(200, status)
    assert.truthy(text:find('"writes":false', 1, true))
    -- another site's page cannot post with the cookie, nor reach it by another name
    assert.equal(403, (get("/api/kip", { cookie = "kip_ui=" .. sid, origin = "http://evil.example" }, "POST", "{}")))
    assert.equal(421, (get("/api/info", { cookie = "kip_ui=" .. sid, host = "evil.example:7411" })))
    status = get("/api/kip", { cookie = "kip_ui=" .. sid, origin = "http://127.0.0.1:7411" }, "POST",
      core.json_encode { command = 'DESCRIBE PRIMER' })
    assert.equal(200, status)
  end)

  it("serves its own files and nothing else", function()
    local status, text = get("/app.js")
    assert.equal(200, status)
    assert.truthy(text:find("Content-Type: text/javascript", 1, true))
    assert.equal(404, (get("/../lua/kip/ui/api.lua")))
    assert.equal(404, (get("/package.json")))
    assert.equal(404, (get("/vendor/evil.js")))
    assert.equal(405, (get("/app.js", nil, "POST")))
    local _, head = get("/app.js", nil, "HEAD")
    assert.same({ text:match("Content%-Length: (%d+)"), "" }, { head:match("Content%-Length: (%d+)"), head:match("\r\n\r\n(.*)$") })
    assert.equal(403, (get("/"))) -- the page itself needs the session too
  end)

  it("splits and decodes a request target", function()
    local path, q = server.split_target("/api/search?q=a+b%21&mode=keyword&x")
    assert.equal("/api/search", path)
    assert.same({ q = "a b!", mode = "keyword", x = "" }, q)
  end)
end)
