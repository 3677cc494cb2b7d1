--- kip.ui.cli — `kip ui`: the web inspector on 127.0.0.1 (issue 41;
--- docs/ui.md). Registered by kip.ui.subsystem.
local commands = {}

commands.ui = {
  usage = "ui [--port N] [--operator] [--writes] [governance options]",
  summary = "the web inspector on 127.0.0.1: graph, console, ARG episodes, sleep cycles,\nthe mind model, policies (docs/ui.md)",
  help = [[
usage: kip [--db PATH] ui [--port N] [--operator] [--writes] [-q] [governance options]

Starts the inspector on http://127.0.0.1:N/ (default port 7411; 0 picks a
free one) and prints the link to open, which carries a one-time token: the
first visit trades it for a session cookie, so nobody else on the machine
can use the server. Ctrl-C stops it.

Every page reads through the same policies as every other interface, as
the caller the governance options name (--role, --tenant, --user, ...):
the inspector shows what that identity may see, nothing more.
  --operator   the viewer is the operator: the ARG registry (episodes,
               replay, reviews, publish, rollback), a sleep cycle's dry
               run, the policy decision log, promotions through a mind
               gate (with a human role of the gates: --role reviewer)
  --writes     the console may write (KML); read-only by default
  --port N     the port (127.0.0.1 only; publish the inspector through
               nginx behind your own authentication: docs/ui.md)
  -q           no request log on stderr

The pages are served from disk, the drawing library (Cytoscape.js) from
the build tree's npm packages (scripts/setup-deps BUILD_DIR), an installed
share/kipnexus/ui/vendor, or $KIP_UI_VENDOR (a node_modules directory).
]],
  run = function(cli, args)
    local o = cli:parse(args, { { "--port", value = "a port from 0 to 65535", check = function(v)
      local n = tonumber(v)
      if not n or n ~= math.floor(n) or n < 0 or n > 65535 then return nil, "a port from 0 to 65535" end
      return n
    end }, { "--operator" }, { "--writes" }, { "-q" } }, { governance = true })
    local ok, socket = pcall(require, "socket")
    if not ok or not socket then
      cli:die("ui needs LuaSocket (Debian: apt-get install lua-socket; scripts/setup-deps installs it)")
    end
    local ctx = cli:audit_caller()
    if o.operator then ctx.operator = true end
    ctx.channel = ctx.channel or "ui"
    local nx = cli:open_nexus(true)
    local server = require "kip.ui.server"
    local s, err = server.new(nx, { port = o.port or 7411, view = { ctx = ctx, writes = o.writes == true },
      log = not o.q and function(fmt, ...) io.stderr:write("kip ui: ", fmt:format(...), "\n") end or nil })
    if not s then
      nx:close()
      cli:die("%s (--port N picks another port; --port 0 any free one)", err)
    end
    for name, present in pairs(s.view.vendor) do
      if not present then
        cli:stderr("kip ui: warning: %s is not installed (scripts/setup-deps BUILD_DIR): graphs are drawn as lists", name)
      end
    end
    io.stdout:write(("kip ui: %s\n  open this link (one-time token); Ctrl-C stops the inspector\n"):format(s.url))
    io.stdout:flush()
    s:serve()
    nx:close()
    return 0
  end,
}

return commands
