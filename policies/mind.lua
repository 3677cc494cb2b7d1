-- mind.lua — the authority of the mind model (seed 004 "Promotion Gate
-- Philosophy", P50 evaluator boundary, P80 human-gated authority;
-- docs/mind.md). Knowledge changes only through the lifecycle operations
-- (lua/kip/mind/), which the host runs with ctx.mind_op set — a request
-- cannot set it (ctx comes from the host: CLI flags, HTTP headers mapped by
-- lua/kip/http.lua, never from the request body). `kip import` and `kip
-- restore` run as the operator (ctx.operator) and bring knowledge back as
-- it was exported, events still append-only. So, from any agent:
--
--  * no KML may create or change a Knowledge item, its evidence links
--    (supports, verifies, counterexample_of, teaches) or a KnowledgeEvent;
--  * KnowledgeEvents are append-only for everyone: no UPDATE, DELETE or MERGE
--    ever touches one;
--  * Evidence is recorded freely but is the citation root: no UPDATE, DELETE
--    or MERGE of Evidence outside the operations;
--  * distill creates candidates only; canonical status needs the caller's
--    `reviewer` role (ctx.roles, set by the host), never a request field.
local KNOWLEDGE_TYPES = { Knowledge = true, KnowledgeEvent = true }
local KNOWLEDGE_LINKS = { supports = true, verifies = true, counterexample_of = true, teaches = true, event_of = true }

local function has_role(ctx, role)
  for _, r in ipairs(ctx.roles or {}) do if r == role then return true end end
  return false
end

local function reads_type(req, t)
  for _, x in ipairs((req.reads or {}).types or {}) do if x == t then return true end end
  return false
end

local function block(msg) return { state = "BLOCK", reasons = { msg } } end

local GUARDED = { "Knowledge", "KnowledgeEvent", "supports", "verifies", "counterexample_of", "teaches", "event_of" }

-- the write guards: outside an operation nothing of the mind model may be
-- written but new Evidence; inside one, events and evidence stay append-only
local function guards(ctx)
  if ctx.mind_op then
    return { state = "RESTRICT", constraints = { append_only = { "KnowledgeEvent", "Evidence" } } }
  end
  return { state = "RESTRICT", constraints = { write_protected = GUARDED, append_only = { "Evidence" } } }
end

return kip.policy {
  name = "mind",
  priority = 20,
  pre_check = function(req, ctx)
    if not req.mutates then return nil end
    if ctx.operator then
      -- `kip import` / `kip restore` (ctx.operator is set by those commands
      -- only): an operator brings knowledge back from a capsule or a dump
      -- as it was; events still cannot be rewritten
      return { state = "RESTRICT", constraints = { append_only = { "KnowledgeEvent" } } }
    end
    local w = req.writes or {}
    if req.kind ~= "UPSERT" and reads_type(req, "KnowledgeEvent") then
      return block("KnowledgeEvent records are append-only: they are never updated, merged or deleted")
    end
    local touches, statuses = false, {}
    for _, c in ipairs(w.concepts or {}) do
      if KNOWLEDGE_TYPES[c.type] then
        touches = true
        if c.type == "Knowledge" then statuses[#statuses + 1] = (c.attributes or {}).status or "(unchanged)" end
      end
    end
    for _, p in ipairs(w.propositions or {}) do
      if KNOWLEDGE_LINKS[p.predicate] then touches = true end
    end
    if req.kind ~= "UPSERT" and (reads_type(req, "Knowledge") or reads_type(req, "Evidence")) then touches = true end
    if not touches then return guards(ctx) end
    local op = ctx.mind_op
    if not op then
      return block("Knowledge, its evidence and links and its events change only through the lifecycle operations " ..
        "(kip mind distill | promote | demote | retire | publish-anchor; the MCP tools mind_*): direct KML is refused")
    end
    for _, s in ipairs(statuses) do
      if op == "distill" and s ~= "candidate" then return block("distill creates candidate knowledge only") end
      if s == "canonical" and not has_role(ctx, "reviewer") then
        return block("canonical knowledge needs a human reviewer: the caller's role must include `reviewer` " ..
          "(set by the host — kip --role reviewer, or an authenticated HTTP header), not a request field")
      end
    end
    return guards(ctx)
  end,
}
