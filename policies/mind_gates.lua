-- mind_gates.lua — the promotion gates of the mind model (seed 004, Stage-1
-- thresholds; docs/mind.md). Edit the numbers: the next gate check uses them
-- (hot reload, no restart). Evidence is counted by role — supporting,
-- verification, teaching (links supports / verifies / teaches from existing
-- Evidence); one Evidence counts in one role only; teaching evidence must
-- have provenance human.
--
--   gates        per tier: the status a promotion reaches, the evidence it
--                needs, whether a `reviewer` role is required, whether any
--                counterexample blocks
--   raise        tier promotion (kip mind raise), per target tier: the tier
--                it comes from and its own thresholds; the raised item starts
--                the new tier as a candidate
--   human_roles  the caller roles (set by the host: --role, an authenticated
--                header) that may change the lifecycle and record human
--                evidence; agents record evidence and distill candidates only
return kip.policy {
  name = "mind_gates",
  gates = {
    dao_tian = { target = "canonical", supporting = 3, verification = 2, teaching = 1, reviewer = true, counterexamples_block = true },
    dao_ren = { target = "promoted", supporting = 2, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
    shu = { target = "promoted", supporting = 1, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
    qi = { target = "promoted", supporting = 1, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
  },
  raise = {
    shu = { from_tier = "qi", supporting = 2, verification = 2, teaching = 0, reviewer = false, counterexamples_block = true },
    dao_ren = { from_tier = "shu", supporting = 3, verification = 2, teaching = 0, reviewer = false, counterexamples_block = true },
    dao_tian = { from_tier = "dao_ren", supporting = 4, verification = 3, teaching = 1, reviewer = true, counterexamples_block = true },
  },
  human_roles = { "operator", "reviewer" },
}
