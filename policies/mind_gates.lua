-- mind_gates.lua — the promotion gates of the mind model (seed 004, Stage-1
-- thresholds; docs/mind.md). Edit the numbers: the next gate check uses them
-- (hot reload, no restart). Per tier: the status a promotion reaches and the
-- evidence it needs, by role — supporting, verification, teaching (links
-- supports / verifies / teaches from existing Evidence) — whether a
-- `reviewer` role is required, and whether any counterexample blocks.
return kip.policy {
  name = "mind_gates",
  gates = {
    dao_tian = { target = "canonical", supporting = 3, verification = 2, teaching = 1, reviewer = true, counterexamples_block = true },
    dao_ren = { target = "promoted", supporting = 2, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
    shu = { target = "promoted", supporting = 1, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
    qi = { target = "promoted", supporting = 1, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
  },
}
