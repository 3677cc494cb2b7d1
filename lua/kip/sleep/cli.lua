--- kip.sleep.cli — `kip sleep`: one $system sleep cycle from the command
--- line (docs/sleep.md; SystemInstructions.md "Sleep Cycle Workflow"), its
--- --check/--if-needed decision and the report for people (grouped flags)
--- and for tools (--json, --log). Registered by kip.sleep.subsystem.
local core = require "kip.core"

local commands = {}

local SLEEP_REPORT_GROUPS = 60 -- flag lines of the terminal report

commands.sleep = {
  usage = "sleep [--now ISO] [--dry-run] [--phase P]... [--full | --incremental] [--if-needed | --check] [--json] [-q]",
  summary = "run a $system maintenance (sleep) cycle (docs/sleep.md)",
  help = [[
usage: kip [--db PATH] sleep [--now ISO] [--dry-run] [--phase P]... [--full | --incremental] [--if-needed | --check] [--measure]
                             [--sweep N] [--hooks FILE.lua]
                             [--log FILE.jsonl] [--json] [-q] [governance options]

Runs one $system sleep cycle: SleepTasks, the Unsorted inbox, orphans, stale
Events, duplicates, contradictions, memory-strength decay, Domain health, TTL
reclamation, then a SleepCycle report and $system's maintenance_log. Every
write is KIP issued by actor $system through the policies. Deterministic: no
judgment hook is configured from the command line, so what no rule decides is
flagged in the report, never guessed (--hooks plugs judgment in). A second
run right after writes nothing but the report. An interrupted cycle resumes
with its own clock when run again.

  --now ISO      the cycle's clock (default: now), e.g. 2026-11-20T00:00:00Z
  --dry-run      list the KIP commands the cycle would send; change nothing
  --phase P      run only these phases (repeatable): assess tasks unsorted orphans
                 events duplicates contradictions decay domains ttl finalize
  --full         read the whole graph even when the memory changed little
                 since the last complete cycle (see below)
  --incremental  work from the change log whenever it can, even when so much
                 changed that reading everything would cost less
  --sweep N      concepts an incremental cycle visits beside what changed
                 (default 500; 0: none)
  --if-needed    run only when a health threshold is crossed (Unsorted > 20,
                 orphans > 10, stale Events > 30, pending SleepTasks >= 10);
                 when nothing changed since the last cycle its record decides,
                 else the store counts, cheapest first, until one is crossed
  --check        say whether a cycle is needed and why (the metrics with
                 --json), change nothing; exit 0 needed, 3 not needed. When the
                 memory changed since the last cycle the store counts the four
                 trigger metrics; --measure reads the graph for all of them
  --hooks FILE   a Lua file returning judgment hooks {classify=, consolidate=,
                 duplicates=, contradiction=, domain=, task=} (docs/sleep.md),
                 run sandboxed like every operator file; or the name of a Lua
                 module on the Lua path (trusted code: a hook that calls a
                 model or a service)
  --log FILE     write every decision (phase, reason, KIP command, parameters)
                 and every flagged item as JSON lines, to audit or replay the cycle

A nexus whose memory did not change since the last cycle, with nothing due
(no Event turned stale, nothing expired), skips the phases: the cycle
records its decay epoch and the last cycle's findings, which still stand.
One that changed since a complete cycle runs incrementally: the phases judge
what the change log names (with its neighbours, what turned stale or
expired, and a sweep of 500 other concepts), not the whole graph; a full
cycle runs when a Domain or a definition changed, a waiting SleepTask or its
target changed, more than 50 000 elements (or a 60th of the memory) changed,
or the last full cycle is 7 days old.
The terminal report groups the flagged items by kind (at most 60 lines);
--json, --log and the SleepCycle record hold every item.
  --json         print the report as JSON
  -q, --quiet    no per-phase progress
]],
  run = function(cli, args)
    local o, extra = cli:parse(args, { { "--now", value = "an ISO-8601 time" }, { "--dry-run" },
      { "--phase", key = "phases", value = "a phase name", multi = true }, { "--full" }, { "--incremental" }, { "--sweep", value = "a number of concepts" }, { "--if-needed" }, { "--check" }, { "--measure" },
      { "--hooks", value = "a Lua file or module name" }, { "--log", value = "a file" }, { "--json" }, { "--quiet", "-q" } },
      { governance = true })
    if #extra > 0 then cli:die("sleep: unexpected argument %s (kip sleep --help)", extra[1]) end
    local opts = { now = o.now, dry_run = o.dry_run, phases = o.phases, measure = o.measure, full = o.full, incremental = o.incremental }
    if o.sweep then
      local n = tonumber(o.sweep)
      if not n or n < 0 or n ~= math.floor(n) then cli:die("--sweep: %q is not a number of concepts (e.g. 2000)", o.sweep) end
      opts.params = { sweep_concepts = n }
    end
    if o.hooks then
      local ok, err = require("kip.extension").hooks(o.hooks, "sleep hooks")
      if not ok then cli:die("--hooks: %s", err) end
      opts.hooks = o.hooks
    end
    local sleep = require "kip.sleep"
    local DECIDED_BY = { recorded = "nothing changed since the last cycle: its record decides",
      logged = "the last cycle's record and what changed since (the change log)",
      counted = "counted by the store", measured = "measured over the graph" }
    local nx = cli:open_nexus(true)
    if o.check then
      local ok, needed, why, m, how = pcall(sleep.check, nx, opts)
      nx:close()
      if not ok then cli:die("sleep: %s", tostring(needed)) end
      if o.json then
        print(core.json_encode { needed = needed, why = setmetatable(why, core.array_mt), metrics = m, decided_by = how })
      else
        print(("%s (%s)"):format(needed and ("needed: " .. table.concat(why, ", ")) or "not needed: no health threshold crossed",
          DECIDED_BY[how]))
      end
      return needed and 0 or 3
    end
    if o.if_needed then
      opts.until_needed = true -- whether, not how much: the first threshold crossed decides
      local ok, needed, why, _, how = pcall(sleep.check, nx, opts)
      if not ok then nx:close() cli:die("sleep: %s", tostring(needed)) end
      if not needed then
        nx:close()
        if not o.quiet then
          cli:stderr("sleep: not needed (no health threshold crossed; %s)", DECIDED_BY[how])
        end
        return 0
      end
      opts.trigger = "threshold: " .. table.concat(why, ", ")
    end
    opts.trigger = opts.trigger or "manual"
    -- the audit names who started the cycle: --user/--actor and roles, else the account
    opts.caller = { actor = cli.gov.ctx.user or cli.gov.ctx.actor or os.getenv("USER") or os.getenv("LOGNAME"), roles = cli.gov.ctx.roles }
    if not o.quiet and not o.json then
      opts.progress = function(name, title, counts, secs)
        local parts = {}
        for k, v in pairs(type(counts) == "table" and counts or {}) do parts[#parts + 1] = k .. "=" .. tostring(v) end
        table.sort(parts)
        io.stderr:write(("  %-15s %-40s %6.2fs  %s\n"):format(name, title, secs, table.concat(parts, " ")))
      end
    end
    local ok, report = pcall(sleep.run, nx, opts)
    nx:close()
    if not ok then cli:die("sleep: %s", tostring(report)) end
    if o.log then
      local f, err = io.open(o.log, "a")
      if not f then cli:die("--log: %s", err) end
      for _, d in ipairs(report.decisions or {}) do
        f:write(core.json_encode { now = report.now, phase = d.phase, why = d.why, command = d.command, parameters = d.parameters }, "\n")
      end
      for _, fl in ipairs(report.flagged or {}) do
        f:write(core.json_encode { now = report.now, phase = fl.phase, flagged = fl.name, reason = fl.reason, kind = fl.kind }, "\n")
      end
      f:close()
    end
    if o.json then
      print(core.json_encode(report))
    else
      if opts.dry_run then
        for _, p in ipairs(report.planned or {}) do
          print(("-- [%s] %s"):format(p.phase, p.why or ""))
          print(p.command)
          if p.parameters and next(p.parameters) then print("-- parameters: " .. core.json_encode(p.parameters)) end
        end
      end
      if not o.quiet then
        cli:stderr("sleep cycle %s: %d write(s), %d flagged, %d error(s)%s", report.now, report.writes or 0,
          #(report.flagged or {}), #(report.errors or {}), opts.dry_run and " (dry run: nothing changed)" or "")
        local m = report.metrics_after or report.metrics_before
        if m and m.links_with_strength and m.links_with_strength > 0 then
          cli:stderr("  memory strength: average %.3f over %d link(s); %d weak (below %.2f)%s",
            m.average_memory_strength or 0, m.links_with_strength, m.weak_links or 0, require("kip.sleep.cycle").DEFAULTS.weak_strength,
            m.memory_strength_as_of and (" (as of " .. m.memory_strength_as_of .. ")") or "")
        end
        -- flags of one kind on one line, the largest groups first: a cycle that
        -- flags 40 000 items prints at most SLEEP_REPORT_GROUPS lines of them
        local groups = report.flag_groups or require("kip.sleep.cycle").group_flags(report.flagged or {}, 3)
        local total = 0
        for _, g in ipairs(groups) do total = total + g.count end
        local inc = report.incremental
        if type(inc) == "table" then
          cli:stderr("  incremental: %d changed element(s) since the cycle of %s; %d concept(s) judged (%d swept, %d turned stale, %d expired); "
            .. "the flags of the rest stand as of that cycle (kip sleep --full reads everything)", inc.changed, inc.since,
            inc.focus, inc.swept, inc.turned_stale, inc.expired)
        elseif report.full_why then
          cli:stderr("  full cycle: %s", report.full_why)
        end
        if report.unchanged_since then
          cli:stderr("  nothing changed since the cycle of %s and nothing is due: its phases were skipped; its %d flagged item(s) stand",
            report.unchanged_since, total)
        end
        local shown, items = 0, 0
        for _, g in ipairs(groups) do
          if shown == SLEEP_REPORT_GROUPS then break end
          shown, items = shown + 1, items + g.count
          if g.count == 1 then
            cli:stderr("  flagged [%s] %s: %s", g.phase or "", g.examples[1], g.reason)
          else
            cli:stderr("  flagged [%s] %d× %s — e.g. %s", g.phase or "", g.count, g.kind, table.concat(g.examples, ", "))
          end
        end
        if shown < #groups then
          cli:stderr("  … %d more kind(s), %d item(s): every item is in kip sleep --json, --log FILE and the SleepCycle record",
            #groups - shown, total - items)
        end
      end
    end
    return #(report.errors or {}) > 0 and 1 or 0
  end,
}

return commands
