--- kip.mind.mcp — the mind model's agent-facing MCP tools (docs/mind.md):
--- mind_context and mind_gate (read-only), mind_record and mind_distill
--- (evidence and candidate knowledge). Promotion, demotion and retirement
--- stay with operators (seed 004 P80: lifecycle authority is human-gated).
local core = require "kip.core"

local M = {}

local function obj(props, required)
  return { type = "object", properties = props, required = setmetatable(required or {}, core.array_mt) }
end
local str = function(d) return { type = "string", description = d } end
local list = function(d) return { type = "array", items = { type = "string" }, description = d } end

M.TOOLS = {
  { name = "mind_context", title = "Wake up governed knowledge for a task", readonly = true,
    description = "Typed context from the memory's governed knowledge for a task or question: sections dao_tian (universal law, at most 1 unless dao_tian_limit), dao_ren (domain law), shu (methods), qi (tool use), each item with its evidence by role; only promoted/canonical knowledge of this checkout, its repository and global. Read dao_tian and dao_ren for judgment, shu to choose a workflow, qi to choose tools. Also lists fields that have evidence but no knowledge (distill_suggestions).",
    inputSchema = obj({ query = str("the task or question"), limit = { type = "integer", description = "items per section (default 5)" },
      dao_tian_limit = { type = "integer", description = "dao_tian items (default 1, 0 = none)" },
      include_evidence = { type = "boolean", description = "add an evidence section" } }) },
  { name = "mind_gate", title = "Is a knowledge item ready for promotion?", readonly = true,
    description = "Read-only promotion gate report of a Knowledge item: evidence counts by role, what is missing, counterexamples, reviewer requirement.",
    inputSchema = obj({ name = str("the Knowledge item's name") }, { "name" }) },
  { name = "mind_record", title = "Record evidence",
    description = "Record a raw, source-backed observation as Evidence (what you saw, were taught, verified or saw contradicted). Evidence is not knowledge: distill knowledge from it with mind_distill.",
    inputSchema = obj({ content = str("what was observed"), domain = str("project | agent | skill | global"),
      field = str("e.g. debugging, tooling, software-engineering, epistemics"), provenance = str("runtime | research | human"),
      source_ref = str("a citation: file, URL, run id"), tags = list("free tags"),
      anchor = str("global | repo | worktree (default by provenance)") }, { "content", "domain", "provenance" }) },
  { name = "mind_distill", title = "Distill candidate knowledge from evidence",
    description = "Create a candidate Knowledge item from existing Evidence (by name). Candidates are not used in context until an operator promotes them through the gate.",
    inputSchema = obj({ statement = str("the short wake-up proposition"), tier = str("qi | shu | dao_ren | dao_tian"),
      domain = str("project | agent | skill | global"), field = str("the field"), evidence = list("supporting Evidence names"),
      content = str("rationale, boundaries"), scope_constraints = str("where it applies"), reason = str("why distilled") },
      { "statement", "tier", "domain", "evidence" }) },
}

--- offered when the nexus has the mind model's schema
function M.ready(nx) return require("kip.mind").ready(nx) end

--- the tool list (read-only ones only when readonly)
function M.list(readonly)
  local out = {}
  for _, t in ipairs(M.TOOLS) do
    if t.readonly or not readonly then
      out[#out + 1] = { name = t.name, title = t.title, description = t.description, inputSchema = t.inputSchema,
        annotations = { readOnlyHint = t.readonly or false, destructiveHint = false, idempotentHint = t.readonly or false,
          openWorldHint = false } }
    end
  end
  return out
end

--- call tool name with args as caller ctx; returns the JSON text and whether it is an error
function M.call(nx, name, args, ctx, readonly)
  local mind = require "kip.mind"
  local def
  for _, t in ipairs(M.TOOLS) do if t.name == name then def = t end end
  if not def or (readonly and not def.readonly) then return nil end
  local o = {}
  for k, v in pairs(args) do o[k] = v end
  o.ctx = ctx
  local res, err
  if name == "mind_context" then res, err = mind.context(nx, o)
  elseif name == "mind_gate" then res, err = mind.gate(nx, o)
  elseif name == "mind_record" then res, err = mind.record(nx, o)
  elseif name == "mind_distill" then
    o.supporting = args.evidence
    res, err = mind.distill(nx, o)
  end
  if not res then
    err = type(err) == "table" and err or { code = "KIP_4003", message = tostring(err) }
    return core.json_encode({ error = err }), true
  end
  return core.json_encode({ result = res }), false
end

return M
