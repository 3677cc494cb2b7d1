--- kip.arg.cli — `kip arg …`: the operator surface of the ARG loops
--- (docs/arg.md): init, ask, eval, replay, log, feedback, and the offline
--- loop's offline run, candidates, review, publish, versions, rollback,
--- metrics. Registered by kip.arg.subsystem; the evaluation itself is
--- kip.arg.evaluate.
local core = require "kip.core"

local M = {}

M.HELP = [[
usage: kip [--db PATH] arg SUBCOMMAND [options] [governance options]

The ARG loops (docs/arg.md). Online: a request and its context in, an
explicit outcome (ANSWER, ACTION, CLARIFY, ABSTAIN, REFUSE, REFOCUS) out, with
the context bundle to answer from and the episode recorded for replay.
Offline: recorded episodes and feedback in, validated and versioned ontology
changes out (publish, rollback).

  init [--ontology FILE.kip]     declare the ARG guards, apply the ARG schema (capsules/arg);
                                 with a file, validate it and publish it as version 1
                                 (again with the same file: nothing changes)
  profile [--json]               the ontology's access profile: roles, audiences, tenancy
  ask [--role R --tenant T --user U] [--context JSON] [--json] [--no-record] PROMPT...
                                 run one request as the caller named by --role/--tenant/--user
                                 (the authenticated identity; the request body never grants
                                 one); prints the outcome, the route and the bundle (--json:
                                 the whole ArgResult)
  eval FILE.jsonl [--out RESULTS.jsonl] [--record] [--feedback] [--json]
                                 run every request of a prompt file (one JSON object per
                                 line: id, prompt, context); each line's context.role and the
                                 profile's tenant and user keys are taken as that request's
                                 authenticated caller. Prints outcome accuracy, primary-label
                                 accuracy, bundle recall, action accuracy and safety
                                 violations when the lines carry `expect`; writes one result
                                 per request (the fixture format of ../shared/arg).
                                 --feedback (with --record): for each answered or acted-on
                                 line, the feedback a reviewer who knows its expect gives:
                                 a verification when the route is right, else a correction
                                 naming the expected label (material for the offline loop)
  replay EPISODE | --all [--limit N]
                                 run recorded requests again (as their recorded caller) under
                                 their ontology version and compare every decision; exit 1
                                 when one differs
  log [--outcome O] [--label L] [--since ISO] [--limit N] [--json | --ids]
                                 recorded episodes, newest first (--ids: the ids of the
                                 requests' episodes only, one per line, for scripts)
  tenants [add NAME...]          the tenant directory: the tenants whose callers the loop has
                                 served (recorded the first time), or add names it has not
                                 served yet; a tenant of it is read as that tenant wherever
                                 another tenant's request names it (docs/arg.md "Tenancy")
  feedback EPISODE --verified | --failed [--label LABEL] [--note TEXT]
                                 record a verification signal (the only way to
                                 INFO_CONFIRMED_SUCCESS); --label names the label the
                                 request belonged to (a correction for the offline loop)

ontology versions (the only ways the ontology changes; docs/arg.md "Offline loop"):
  publish --ontology FILE.kip [--dry-run]
                                 validate a revised ontology file and publish it as version N+1
  offline run [--dry-run] [--since ISO|all] [--json]
                                 collect episodes since the last run, propose, score
                                 (with replay), validate and stage candidates
  candidates [--status S] [--json]
                                 staged candidates (approved, needs_review, deferred,
                                 rejected, published) with evidence and reasons
  review CANDIDATE approve|reject --reason TEXT
                                 a person's decision on a candidate
  publish [--dry-run]            approved candidates -> ontology version N+1 (one transaction)
  versions                       published versions, newest first
  rollback N [--dry-run]         publish version N's content again as a new version
  metrics [--json]               coverage, clarify/abstain rates by label and cluster,
                                 action outcomes, regressions between versions (on the
                                 requests asked under both: like with like)

caller and context (ask):
  --role ROLE          a role of the ontology's profile (`kip arg profile`); also --caller-role
  --tenant T           the caller's tenant     --user ID   the caller's own identity (address)
  --channel C          the channel the request came in on
  --context JSON       the conversation context (channel, product, environment, timestamp,
                       history, request_id); identity keys in it must match the caller
  --handlers FILE.lua  a Lua file returning {handlers = {...}, connectors = {...}} (docs/arg.md)

examples:
  kip --db arg.db arg init --ontology ../shared/arg/ontology.kip
  kip --db arg.db arg profile
  kip --db arg.db arg ask --role ROLE --tenant acme --user dana@acme.example \
      "how do i get a copy of an old invoice?"
  kip --db arg.db arg eval ../shared/arg/prompts.jsonl --out results.jsonl
  kip --db arg.db arg log --outcome REFUSE --limit 5
]]

local function report(cli, err)
  if type(err) == "table" then
    cli:stderr("%s %s%s", err.code or "error", err.message or "", err.step and (" (step " .. err.step .. ")") or "")
    if err.hint and err.hint ~= "" then cli:stderr("  hint: %s", err.hint) end
  else
    cli:stderr("kip arg: %s", tostring(err))
  end
end

local SUBCOMMANDS = { init = true, profile = true, ask = true, eval = true, replay = true, log = true, feedback = true,
  offline = true, candidates = true, review = true, publish = true, versions = true, rollback = true, metrics = true,
  tenants = true }

local function run(cli, args)
  local arg = require "kip.arg"
  local evaluate = require "kip.arg.evaluate"
  local sub = args[1]
  if not sub then io.write(M.HELP) return 2 end
  if not SUBCOMMANDS[sub] then cli:die("arg: unknown subcommand %s (kip arg --help)", sub) end
  local context = {}
  local defs = { { "--channel", value = "a value", into = context }, { "--limit", value = "a whole number", check = "int" },
    { "--context", key = "context_json", value = "a JSON object" } }
  for _, v in ipairs { "--ontology", "--out", "--outcome", "--label", "--since", "--note", "--handlers", "--reason", "--status" } do
    defs[#defs + 1] = { v, value = "a value" }
  end
  for _, f in ipairs { "--json", "--no-record", "--record", "--all", "--verified", "--failed", "--dry-run", "--feedback", "--ids" } do
    defs[#defs + 1] = { f }
  end
  local o, positional = cli:parse(args, defs, { governance = true, from = 2, command = "arg " .. sub })
  local nx = cli:open_nexus(true)
  if o.handlers then
    local sandbox = require "kip.sandbox"
    local cfg, err = sandbox.load_file(o.handlers, sandbox.env("arg handlers"))
    if type(cfg) ~= "table" then cli:die("--handlers %s: %s", o.handlers, tostring(err or "the file must return a table")) end
    local ok, cerr = arg.configure(nx, cfg)
    if not ok then cli:die("--handlers %s: %s", o.handlers, tostring(cerr)) end
  end
  local status = 0
  local function fail(err) report(cli, err) status = 1 end

  if sub == "init" then
    local r, err = arg.init(nx, { ontology = o.ontology })
    if r then
      print(core.json_encode({ applied = "capsules/arg", ontology = o.ontology, version = r.version,
        content_hash = r.content_hash, unchanged = r.unchanged }, true))
      for _, w in ipairs(r.warnings or {}) do cli:stderr("warning: %s", w) end
    else fail(err) end

  elseif sub == "tenants" then
    local tenancy = require "kip.arg.tenancy"
    if positional[1] == "add" then
      if #positional < 2 then cli:die("arg tenants add: name at least one tenant (kip arg tenants add NAME...)") end
      for i = 2, #positional do
        local ok, err = tenancy.record(nx, positional[i])
        if not ok then fail(err) break end
      end
    elseif positional[1] ~= nil then
      cli:die("arg tenants: unknown argument %s (kip arg tenants [add NAME...])", positional[1])
    end
    if status == 0 then
      local list = tenancy.recorded(nx)
      if o.json then print(core.json_encode(setmetatable(list, core.array_mt)))
      else for _, n in ipairs(list) do print(n) end end
    end

  elseif sub == "profile" then
    local snap, err = require("kip.arg.snapshot").get(nx)
    if not snap then fail(err)
    elseif o.json then print(core.json_encode(snap.profile.raw, true))
    else
      local pm = snap.profile
      print(("product  %s; tenant noun %q (context key %s, param %s; user key %s, params %s)"):format(pm.product.name,
        pm.tenant.noun, pm.tenant.context_key, tostring(pm.tenant.param), pm.tenant.user_context_key,
        table.concat(pm.tenant.user_params or {}, ", ")))
      for _, name in ipairs(pm.role_names) do
        local r = pm.roles[name]
        print(("role     %-20s authority %-7s %s sees %s"):format(name, r.authority, r.staff and "staff " or "      ",
          table.concat(r.audiences, ", ")))
      end
    end

  elseif sub == "ask" then
    local prompt = table.concat(positional, " ")
    if prompt == "" then cli:die("arg ask needs the request text") end
    local ctx = {}
    if o.context_json then
      local ok, v = pcall(core.json_decode, o.context_json)
      if not ok or type(v) ~= "table" then cli:die("--context must be a JSON object") end
      ctx = v
    end
    for k, v in pairs(context) do ctx[k] = v end
    local r, err = arg.run(nx, { prompt = prompt, context = ctx }, { record = not o.no_record })
    if err and err.code == "ARG_IDENTITY_UNKNOWN" then err.hint = "Pass --role ROLE (and --tenant T --user U). " .. err.hint end
    if not r then fail(err)
    elseif o.json then print(core.json_encode(r, true))
    else
      print(("%s  %s%s"):format(r.outcome, r.weaver.primary_label or "-",
        r.episode_id and ("  (episode " .. r.episode_id .. ", ontology v" .. tostring(r.ontology_version) .. ")") or ""))
      if #r.flags > 0 then print("flags: " .. table.concat(r.flags, ", ")) end
      if r.message then print(r.message) end
      if r.action then print(("action: %s %s %s"):format(r.action.name, r.action.status, core.json_encode(r.action.params or {}))) end
      for i, u in ipairs(r.bundle) do
        local n = require("kip.state").of(nx, "arg").snapshots and (select(2, next(require("kip.state").of(nx, "arg").snapshots)) or {}).nodes
        local text = n and n[u.node] and n[u.node].chunk or u.connector and ("[" .. tostring(u.status) .. "]") or ""
        print(("%2d. %s  (%s)  %s"):format(i, u.node, u.label, text))
      end
    end

  elseif sub == "eval" then
    local path = positional[1] or cli:die("arg eval needs the prompt file")
    if o.feedback and not o.record then cli:die("arg eval --feedback needs --record (feedback is about recorded episodes)") end
    local prompts, perr = evaluate.read(path)
    if not prompts then cli:die("%s", perr) end
    local out
    if o.out then out = io.open(o.out, "wb") or cli:die("cannot write %s", o.out) end
    local show = cli:isatty(2) and not o.json
    local snap0, serr = require("kip.arg.snapshot").get(nx)
    if not snap0 then report(cli, serr) nx:close() return 1 end
    local tkey, ukey = snap0.profile.tenant.context_key, snap0.profile.tenant.user_context_key
    if not o.json then
      cli:stderr("identity: each request's context.role, context.%s and context.%s are taken as its authenticated caller",
        tkey, ukey)
    end
    local evaluation = evaluate.run(nx, prompts, { record = o.record, feedback = o.feedback,
      on_error = function(e) report(cli, e) status = 1 end,
      on_result = function(line) if out then out:write(core.json_encode(line), "\n") end end,
      on_progress = function(i, n) if show and (i % 10 == 0 or i == n) then io.stderr:write(("\r%d/%d requests"):format(i, n)) end end })
    local results, times, outcomes, feedback = evaluation.results, evaluation.times, evaluation.outcomes, evaluation.feedback
    if show then io.stderr:write("\n") end
    if out then out:close() end
    local snap = require("kip.arg.snapshot").get(nx)
    local s = evaluate.score(prompts, results, snap)
    s.median_ms, s.outcomes = evaluate.median(times), outcomes
    if o.feedback then s.feedback = feedback end
    if o.json then print(core.json_encode(s, true))
    else
      local function f(x) return x and ("%.3f"):format(x) or "n/a" end
      print(("requests           %d (median %.2f ms per request, ontology v%s)"):format(#prompts, s.median_ms, tostring(snap.version)))
      if s.prompts > 0 then
        print(("outcome accuracy   %s"):format(f(s.outcome_accuracy)))
        print(("primary-label acc  %s  (n=%d)"):format(f(s.primary_label_accuracy), s.label_n))
        print(("bundle recall      %s  (n=%d)"):format(f(s.bundle_recall), s.bundle_n))
        print(("action accuracy    %s  (n=%d)"):format(f(s.action_accuracy), s.action_n))
        print(("safety violations  %d"):format(s.safety_violations))
      end
      local list = {}
      for k, v in pairs(outcomes) do list[#list + 1] = ("%s %d"):format(k, v) end
      table.sort(list)
      print("outcomes           " .. table.concat(list, ", "))
      if o.feedback then
        print(("feedback           %d verified, %d corrected (from each line's expect)"):format(feedback.verified,
          feedback.corrected))
      end
    end
    if s.safety_violations > 0 then status = 1 end

  elseif sub == "replay" then
    local list = {}
    if o.all then
      local rows, err = require("kip.arg.registry").list(nx, { limit = o.limit or 100000 })
      if not rows then fail(err) rows = {} end
      for _, e in ipairs(rows) do if (e.attributes or {}).kind ~= "feedback" then list[#list + 1] = e.name end end
    else
      list[1] = positional[1] or cli:die("arg replay needs an episode id (or --all)")
    end
    local same, differ, skipped, other_version = 0, 0, 0, 0
    for _, id in ipairs(list) do
      local r, err = arg.replay(nx, id)
      if not r then
        if o.all and err.code == "ARG_REPLAY_UNSUPPORTED" then skipped = skipped + 1
        elseif o.all and err.code == "ARG_BIND_VERSION" then other_version = other_version + 1
        else fail(err) end
      elseif r.reproduced then same = same + 1
      else
        differ = differ + 1
        cli:stderr("%s: %d decision(s) differ", id, #r.differences)
        for k = 1, math.min(#r.differences, 5) do
          local d = r.differences[k]
          cli:stderr("  %s: recorded %s, replayed %s", d.path, core.json_encode(d.recorded), core.json_encode(d.replayed))
        end
      end
      if not o.all and r then
        if o.json then print(core.json_encode(r, true)) end
      end
    end
    print(("replayed %d episode(s): %d reproduced, %d differ%s%s"):format(same + differ, same, differ,
      skipped > 0 and (", " .. skipped .. " without a stored request") or "",
      other_version > 0 and (", " .. other_version .. " recorded under a version whose content is not the current one") or ""))
    if differ > 0 then status = 1 end

  elseif sub == "log" then
    local rows, err = require("kip.arg.registry").list(nx, { outcome = o.outcome, label = o.label, since = o.since,
      limit = o.limit or 50, requests = o.ids })
    if not rows then fail(err)
    elseif o.json then print(core.json_encode(rows, true))
    elseif o.ids then for _, e in ipairs(rows) do print(e.name) end
    else
      for _, e in ipairs(rows) do
        local a = e.attributes or {}
        local prompt = type(a.request) == "table" and a.request.prompt or ""
        print(("%s  %s  %-8s %-34s v%s  %s"):format(e.name, tostring(a.recorded_at), tostring(a.outcome),
          tostring(a.primary_label or "-"), tostring(a.ontology_version), (tostring(prompt):gsub("%s+", " ")):sub(1, 60)))
      end
    end

  elseif sub == "feedback" then
    local id = positional[1] or cli:die("arg feedback needs an episode id")
    if o.verified == o.failed then cli:die("arg feedback needs --verified or --failed") end
    local r, err = arg.feedback(nx, id, { verified = o.verified == true, note = o.note, label = o.label })
    if r then print(core.json_encode(r, true)) else fail(err) end

  else -- the offline loop
    local offline = require "kip.arg.offline"
    local r, err
    if sub == "offline" then
      if positional[1] ~= "run" then cli:die("arg offline: the subcommand is `run` (kip arg offline run [--dry-run])") end
      r, err = offline.run(nx, { dry_run = o.dry_run, since = o.since, progress = not o.json and function(stage, detail)
        cli:stderr("%s: %s", stage, detail) end or nil })
      if r and not o.json then
        local counts = {}
        for k, v in pairs(r.counts) do counts[#counts + 1] = k .. " " .. v end
        table.sort(counts)
        print(("batch %s on version %s: %d episodes (%d with feedback), %d candidates: %s%s"):format(r.batch,
          tostring(r.base_version), r.episodes, r.strong, #r.candidates, table.concat(counts, ", "), r.dry_run and " (dry run)" or ""))
        for _, c in ipairs(r.candidates) do
          print(("  %-12s %s  %s  evidence %d  priority %s  %s"):format(c.status, c.name, c.key, #c.evidence,
            tostring(c.scores.priority), (c.validation.reasons[1] or "")))
        end
        for _, k in ipairs(r.kept or {}) do
          print(("  %-12s %s  (proposed again; kept as reviewed)"):format(k.status, k.name))
        end
        r = nil
      end
    elseif sub == "candidates" then
      r, err = offline.candidates(nx, { status = o.status })
      if r and not o.json then
        for _, c in ipairs(r) do
          print(("%s  %-12s %-14s %s  evidence %d  %s"):format(c.name, tostring(c.status), tostring(c.type), tostring(c.key),
            #(c.evidence or {}), table.concat((c.validation or {}).reasons or {}, "; ")))
        end
        r = nil
      end
    elseif sub == "review" then
      local id, decision = positional[1], positional[2]
      if not id or not decision then cli:die("arg review needs CANDIDATE approve|reject --reason TEXT") end
      r, err = offline.review(nx, id, decision, o.reason)
    elseif sub == "publish" and o.ontology then
      r, err = require("kip.arg.offline.publish").file(nx, o.ontology, { dry_run = o.dry_run })
    elseif sub == "publish" then
      r, err = offline.publish(nx, { dry_run = o.dry_run })
    elseif sub == "versions" then
      r, err = offline.versions(nx)
      if r and not o.json then
        for _, v in ipairs(r) do
          print(("v%-4s %s  %s  %s%s"):format(tostring(v.version), tostring(v.published_at), tostring(v.content_hash),
            tostring(v.summary or ""), v.rollback_of and (" (rollback of v" .. tostring(v.rollback_of) .. ")") or ""))
        end
        r = nil
      end
    elseif sub == "rollback" then
      local n = math.tointeger(tonumber(positional[1] or "")) or cli:die("arg rollback needs a version number")
      r, err = offline.rollback(nx, n, { dry_run = o.dry_run })
    elseif sub == "metrics" then
      r, err = offline.metrics(nx)
      if r and not o.json then
        for _, v in ipairs(r.versions) do
          local parts = {}
          for k, c in pairs(v.outcomes) do parts[#parts + 1] = k .. " " .. c end
          table.sort(parts)
          print(("version %s: %d requests, label coverage %.3f, misrouted by feedback %d; %s"):format(tostring(v.version),
            v.requests, v.coverage, v.misrouted, table.concat(parts, ", ")))
        end
        for _, c in ipairs(r.comparisons) do
          print(("v%s -> v%s: %s"):format(tostring(c.from_version), tostring(c.to_version), c.paired_requests > 0
            and ("compared on the %d requests asked under both"):format(c.paired_requests)
            or "not compared (no request was asked under both)"))
        end
        for _, g in ipairs(r.regressions) do
          print(("regression: %s %s %.3f -> %.3f on %d request(s) (v%s -> v%s)"):format(g.label, g.metric, g.before, g.after,
            g.requests, tostring(g.from_version), tostring(g.to_version)))
        end
        r = nil
      end
    end
    if err then fail(err) elseif r then print(core.json_encode(r, true)) end
  end
  nx:close()
  return status
end

local commands = {}

commands.arg = {
  usage = "arg init|profile|ask|eval|replay|log|feedback|tenants|offline|candidates|review|publish|versions|rollback|metrics",
  summary = "the ARG loops: routed, governed requests with explicit\noutcomes, episodes and replay; versioned ontology changes (docs/arg.md)",
  help = M.HELP, run = run,
}

return commands
