-- A policy kept in the extension folder (docs/extending.md "Policies"):
-- active when named (kip --extensions DIR exec --policy default --policy
-- no_bot_writes …). Callers whose actor starts with "bot:" may read only.
return kip.policy {
  name = "no_bot_writes",
  priority = 50,
  pre_check = function(req, ctx)
    if type(ctx.actor) == "string" and ctx.actor:find("^bot:") and req.mutates then
      return { state = "BLOCK", reasons = { "bots may not write to this memory" } }
    end
  end,
}
