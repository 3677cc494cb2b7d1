"""What the end-to-end tests share: the evaluation fixtures they measure on
($KIP_SHARED, else ../shared beside the checkout; a missing fixture is a
counted skip — exit 77: ctest reports it skipped, scripts/test lists it —
never a pass), and the tally of their named checks (Checks)."""
import os
import sys

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_dir(sub):
    d = os.path.join(os.environ.get("KIP_SHARED") or os.path.join(CHECKOUT, "..", "shared"), sub)
    if not os.path.isdir(d):
        print(f"SKIPPED: the fixture {d} is missing (set KIP_SHARED, or put ../shared beside the checkout)")
        sys.exit(77)
    return d


class Checks:
    """Named checks a test counts: check(name, cond, detail) records a pass,
    or a failure with its detail cut at `detail_chars`; finish() prints the
    failures and the tally (after `label`) and exits 1 when a check failed,
    or — with require_some — when none passed."""

    def __init__(self, detail_chars=800, label=""):
        self.detail_chars, self.label = detail_chars, label
        self.failures, self.passes = [], 0

    def check(self, name, cond, detail=""):
        if cond:
            self.passes += 1
        else:
            self.failures.append(f"FAIL {name}: {str(detail)[:self.detail_chars]}")

    def finish(self, require_some=False):
        for f in self.failures:
            print(f)
        print(f"{self.label}{self.passes} passed, {len(self.failures)} failed")
        sys.exit(1 if self.failures or (require_some and self.passes == 0) else 0)
