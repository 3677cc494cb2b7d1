"""The evaluation fixtures the end-to-end tests measure on: $KIP_SHARED,
else ../shared beside the checkout. A missing fixture is a counted skip
(exit 77: ctest reports it skipped, scripts/test lists it), never a pass."""
import os
import sys

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def shared_dir(sub):
    d = os.path.join(os.environ.get("KIP_SHARED") or os.path.join(CHECKOUT, "..", "shared"), sub)
    if not os.path.isdir(d):
        print(f"SKIPPED: the fixture {d} is missing (set KIP_SHARED, or put ../shared beside the checkout)")
        sys.exit(77)
    return d
