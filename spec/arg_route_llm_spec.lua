-- kip.arg.route_llm: the chat-completions route hook's settings, request and
-- reading of replies (the service itself: tests/e2e_arg_route_llm.py)
local route = require "kip.arg.route_llm"
local core = require "kip.core"

describe("the chat-completions route hook", function()
  local S = { url = "http://127.0.0.1:9/v1/chat/completions", model = "m" }
  local Q = { prompt = "my password: hunter2x, which plan?", candidates = {
    { label = "a.one", description = "First" }, { label = "b.two", description = "Second" } },
    context = { history = { "t1", "t2", "t3", { content = "t4" } } } }

  it("checks its settings and names the culprit", function()
    assert.same({ url = S.url, model = "m", timeout_ms = route.TIMEOUT_MS }, assert(route.check(S)))
    for spec, needle in pairs {
      [{ url = "ftp://x", model = "m" }] = "not an http%(s%) URL",
      [{ url = S.url }] = "model",
      [{ url = S.url, model = "m", key_env = "A B" }] = "not the name of an environment variable",
      [{ url = S.url, model = "m", timeout_ms = 0 }] = "timeout_ms",
      [{ url = S.url, model = "m", timeout_ms = 1.5 }] = "timeout_ms",
      [{ url = S.url, model = "m", temperature = 1 }] = 'unknown setting "temperature"',
    } do
      local ok, err = route.check(spec)
      assert.is_nil(ok)
      assert.matches(needle, err)
    end
    local ok, err = route.new { url = S.url, model = "m", key_env = "KIP_NO_SUCH_VARIABLE_SET" }
    assert.is_nil(ok)
    assert.matches("KIP_NO_SUCH_VARIABLE_SET is not set", err)
  end)

  it("asks for one of the candidates' ids or null, with the request's secrets redacted", function()
    local body = core.json_decode(core.json_encode(route.request(assert(route.check(S)), Q)))
    assert.equal(0, body.temperature)
    local label = body.response_format.json_schema.schema.properties.label
    assert.same({ "a.one", "b.two", core.null }, label.enum)
    local user = body.messages[2].content
    assert.is_nil(user:find("hunter2x", 1, true))
    assert.matches("%[redacted: password%]", user)
    assert.matches("a.one: First", user)
    -- the newest HISTORY_TURNS turns only
    assert.is_nil(user:find("t1", 1, true))
    assert.truthy(user:find("> t4", 1, true))
  end)

  it("reads an answer, a refusal or null as declined, and refuses anything else", function()
    local function reply(content, extra)
      local msg = { role = "assistant", content = content }
      for k, v in pairs(extra or {}) do msg[k] = v end
      return core.json_encode { choices = { { message = msg } } }
    end
    local ids = { "a.one", "b.two" }
    assert.equal("b.two", route.answer("u", 200, reply('{"label":"b.two"}'), ids))
    assert.equal("a.one", route.answer("u", 200, reply(" a.one\n"), ids))
    assert.is_nil(route.answer("u", 200, reply('{"label":null}'), ids))
    assert.is_nil(route.answer("u", 200, reply("null"), ids))
    assert.is_nil(route.answer("u", 200, reply(core.null, { refusal = "no" }), ids))
    for _, case in ipairs {
      { 200, reply('{"label":"c.three"}'), "not one of the candidates" },
      { 200, reply("I think a.one"), "not one of the candidates" },
      { 503, "busy", "HTTP 503" },
      { 200, "<html>", "not a chat completion" },
      { 200, core.json_encode { choices = { { message = { role = "assistant" } } } }, "without content" },
    } do
      local ok, err = pcall(route.answer, "u", case[1], case[2], ids)
      assert.is_false(ok)
      assert.matches(case[3], err)
    end
  end)

  it("reports a service that cannot be reached as an error, quickly", function()
    local hook = assert(route.new { url = "http://127.0.0.1:9/v1/chat/completions", model = "m", timeout_ms = 500 })
    local ok, err = pcall(hook, Q)
    assert.is_false(ok)
    assert.matches("route hook: http://127.0.0.1:9/", err)
  end)
end)
