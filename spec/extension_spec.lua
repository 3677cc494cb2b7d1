-- The one extension mechanism (kip.extension), the one option parser
-- (kip.cli.options), subsystem state (kip.state) and the subsystem
-- registry (kip.subsystems): docs/extending.md.
local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]+$") or ".") .. "/helpers.lua")
local extension = require "kip.extension"
local options = require "kip.cli.options"

local function file(text)
  local p = os.tmpname() .. ".lua"
  local f = assert(io.open(p, "w"))
  f:write(text)
  f:close()
  return p
end

describe("kip.cli.options", function()
  local defs = { { "--json" }, { "--limit", value = "N", check = "int" }, { "--tag", value = "T", multi = true },
    { "--quiet", "-q" }, { "--out", "-o", key = "file", value = "F" } }

  it("parses flags, values, repeats, = and short names", function()
    local o, pos = assert(options.parse({ "a", "--json", "--limit", "5", "--tag=x", "--tag", "y", "-q", "-o", "f.txt", "b" }, defs))
    assert.same({ "a", "b" }, pos)
    assert.is_true(o.json)
    assert.equal(5, o.limit)
    assert.same({ "x", "y" }, o.tag)
    assert.is_true(o.quiet)
    assert.equal("f.txt", o.file)
  end)

  it("treats text with spaces, numbers, - and everything after -- as positional", function()
    local o, pos = assert(options.parse({ "--force it through", "-12", "-", "--", "--json", "-q" }, defs))
    assert.same({ "--force it through", "-12", "-", "--json", "-q" }, pos)
    assert.is_nil(o.json)
  end)

  it("names the culprit of a bad option", function()
    local o, err = options.parse({ "--force" }, defs, { command = "arg ask" })
    assert.is_nil(o)
    assert.matches("arg ask: unknown option %-%-force", err)
    assert.matches("goes after %-%-", err)
    o, err = options.parse({ "--limit", "many" }, defs)
    assert.is_nil(o)
    assert.matches("%-%-limit needs a whole number, not many", err)
    o, err = options.parse({ "--limit" }, defs)
    assert.matches("%-%-limit needs N", err)
    o, err = options.parse({ "--json=yes" }, defs)
    assert.matches("%-%-json takes no value", err)
  end)

  it("keeps a script's own arguments (stop_at_positional) and sees --help", function()
    local o, pos = assert(options.parse({ "--json", "script.lua", "--limit", "x" }, defs, { stop_at_positional = true }))
    assert.is_true(o.json)
    assert.same({ "script.lua", "--limit", "x" }, pos)
    assert.is_true(options.parse({ "-h" }, defs).help)
  end)

  it("lets a command's own option win over a shared group's", function()
    local mine, shared = {}, {}
    local o = assert(options.parse({ "--channel", "email" }, { { { "--channel", value = "C", into = mine } },
      { { "--channel", value = "C", into = shared } } }))
    assert.equal("email", mine.channel)
    assert.is_nil(shared.channel)
    assert.is_nil(o.channel)
  end)
end)

describe("kip.extension", function()
  extension.kind("spec_thing", { label = "spec thing", globals = function(name) return { greeting = "hello " .. name } end,
    check = function(v)
      if type(v) ~= "table" or type(v.run) ~= "function" then return nil, "must return {run = function}" end
      return v
    end })

  it("loads a file sandboxed with its kind's globals and calls it under the budget", function()
    local p = file("return { run = function(x) return greeting .. ' ' .. x end }")
    local ext = assert(extension.load("spec_thing", p, "demo"))
    assert.equal("spec_thing", ext.kind)
    assert.equal(p, ext.path)
    local ok, res = extension.call(ext, "run", nil, "there")
    assert.is_true(ok)
    assert.equal("hello demo there", res)
    os.remove(p)
  end)

  it("refuses a file that reaches outside, loops, or has the wrong shape, naming it", function()
    local p = file("return { run = function() return io.open('/etc/passwd') end }")
    local ext = assert(extension.load("spec_thing", p))
    local ok, err = extension.call(ext, "run")
    assert.is_false(ok)
    assert.matches("spec thing '.-' run failed: .-%.lua:1:", err)
    os.remove(p)
    p = file("return { run = function() while true do end end }")
    ext = assert(extension.load("spec_thing", p))
    ok, err = extension.call(ext, "run", 100000)
    assert.is_false(ok)
    assert.matches("instruction budget exceeded", err)
    os.remove(p)
    p = file("return 42")
    local none, why = extension.load("spec_thing", p)
    assert.is_nil(none)
    assert.matches("must return {run = function}", why)
    os.remove(p)
    p = file("return")
    none, why = extension.load("spec_thing", p)
    assert.matches("the file returns nothing", why)
    os.remove(p)
  end)

  it("reloads a changed file in place and keeps the previous version when the new one fails", function()
    local p = file("return { run = function() return 1 end }")
    local ext = assert(extension.load("spec_thing", p))
    local f = assert(io.open(p, "w")); f:write("return { run = function() return 2 end }"); f:close()
    assert.is_true(extension.refresh(ext, true))
    assert.equal(2, select(2, extension.call(ext, "run")))
    f = assert(io.open(p, "w")); f:write("return { run = "); f:close()
    local logged
    local changed, err = extension.refresh(ext, true, function(m) logged = m end)
    assert.is_false(changed)
    assert.truthy(err)
    assert.matches("keeping the previous version", logged)
    assert.equal(2, select(2, extension.call(ext, "run")))
    os.remove(p)
  end)

  it("wraps a host's values too: functions run under the same limits", function()
    local ext = assert(extension.from("spec_thing", { run = function() while true do end end }, "inline"))
    local ok, err = extension.call(ext, "run", 50000)
    assert.is_false(ok)
    assert.matches("spec thing 'inline' run failed", err)
  end)

  it("turns judgment hooks into plain functions that raise on failure", function()
    local hooks = assert(extension.hooks({ classify = function(x) return x * 2 end, bad = function() error("nope") end }))
    assert.equal(4, hooks.classify(2))
    assert.has_error(function() hooks.bad() end)
    local none, err = extension.hooks({ classify = 3 })
    assert.is_nil(none)
    assert.matches("classify is a number", err)
  end)

  it("has one budget table naming every kind", function()
    for _, k in ipairs { "policy", "arg_step", "sleep_phase", "handler", "connector_per_ms", "embedder", "hook", "command",
      "mcp_tool" } do
      assert.is_number(extension.BUDGETS[k], k)
    end
  end)
end)

describe("subsystem state and registry", function()
  local nx = H.fresh_nexus(before_each, after_each, { embedder = false })

  it("keeps each subsystem's state beside the nexus, not in it", function()
    local state = require "kip.state"
    state.of(nx(), "spec").x = 1
    assert.equal(1, state.of(nx(), "spec").x)
    assert.is_nil(rawget(nx(), "spec"))
    for k in pairs(nx()) do assert.is_falsy(tostring(k):match("^_arg") or tostring(k):match("^_mind"), k) end
  end)

  it("adds each subsystem's methods, policies and MCP providers", function()
    local subsystems = require "kip.subsystems"
    assert.is_function(nx().arg)
    assert.is_function(nx().query)
    local names = {}
    for _, p in ipairs(subsystems.policies()) do names[p] = true end
    assert.is_true(names.arg and names.mind_gates)
    assert.is_true(#subsystems.mcp_providers() >= 3)
    local cmds = subsystems.commands()
    assert.is_table(cmds.sleep)
    assert.is_table(cmds.mind)
    assert.is_table(cmds.arg)
  end)

  it("answers nx:query with the result, or nil and the error", function()
    local r = assert(nx():query('FIND(COUNT(?p)) WHERE { ?p {type: "Person"} }'))
    assert.is_true((type(r) == "table" and r[1] or r) >= 1)
    local none, err = nx():query("FIND(")
    assert.is_nil(none)
    assert.equal("KIP_1001", err.code)
    assert.truthy(err.hint)
  end)
end)

describe("ARG steps and sleep phases added by position", function()
  local nx = H.fresh_nexus(before_each, after_each, { embedder = false })

  it("inserts an added sleep phase where it says, and refuses an unknown anchor", function()
    local sleep = require "kip.sleep"
    local names = sleep.with_added { { name = "mine", after = "orphans", run = function() return {} end } }
    local at
    for i, n in ipairs(names) do if type(n) == "table" and n.name == "mine" then at = i end end
    assert.equal("orphans", names[at - 1])
    local report = sleep.run(nx(), { now = "2026-11-20T00:00:00Z",
      add_phases = { { name = "mine", before = "finalize", run = function() return { seen = 1 } end } } })
    local got
    for _, p in ipairs(report.phases) do if p.phase == "mine" then got = p.counts end end
    assert.same({ seen = 1 }, got)
    assert.has_error(function() sleep.with_added { { name = "x", after = "nowhere", run = function() end } } end)
  end)
end)
