-- An ARG step added after the Context Weaver (docs/extending.md "ARG
-- steps"): a routed request whose top two labels are close is flagged for
-- a reviewer. It reads the state the weaver left and adds a flag; the
-- outcome rules are the loop's own.
return {
  after = "weaver",
  run = function(st)
    local w = st.weaver
    if w and w.primary and w.margin and w.margin < 0.05 then
      w.flags[#w.flags + 1] = "OPERATOR_REVIEW_MARGIN"
    end
  end,
}
