"""The refusals, compiled (issue 22: ``api/errors.py`` is in setup.py's COMPILED) and from
the source (``STUDENGINE_PURE=1``), alike: each refusal of the handlers' catalogue, each
the ports make, and random sets of violations (every reason, past ``MAX_VIOLATIONS``,
none) give the same status code, message, metric label and rich status (its details in
order, ErrorInfo's metadata as a map: the wire's order of map entries is upb's hash
order, which differs between two processes of one build) in a process that runs the
compiled build and in one that runs the ``.py`` files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from studengine import compiled
from support.paths import REPO

#: Run in a fresh process: every refusal, one JSON list per line.
CHILD = """
import json, random, sys
sys.path.insert(0, sys.argv[1])
from studengine.api import errors
from studengine.api.errors import ApiError, Reason, Violations, rich_status
from studengine.api.handlers import Handlers
from studengine.rules.types import InvalidHand
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key
from support.refusals import REFUSALS, outcome_of

METHODS = {"StartHand": "start_hand", "Act": "act", "GetView": "get_view",
           "Evaluate": "evaluate", "Equity": "equity", "GetHandHistory": "get_hand_history",
           "CreateDealTicket": "create_deal_ticket"}

def show(name, error):
    status = rich_status(error)
    details = [(d.type_url, d.value.hex()) for d in status.details[1:]]  # after ErrorInfo
    outcome = vars(outcome_of(error.code.name, status))
    print(json.dumps([name, error.metric_label, str(error), status.code, outcome, details],
                     sort_keys=True))

def refused(name, make):
    try:
        make()
    except ApiError as error:
        show(name, error)
    else:
        print(json.dumps([name, "not refused"]))

keyring = KeyRing([new_key("k1")])
for case in REFUSALS:
    def call(method, request, handlers=Handlers(keyring, case.test_decks)):
        return getattr(handlers, METHODS[method])(request)
    def setup(method, request, handlers=Handlers(keyring, True)):
        return getattr(handlers, METHODS[method])(request)
    method, request = case.make(setup)
    refused(case.name, lambda: call(method, request))

for name, error in [
    ("too_many_calls", errors.too_many_calls("Act", 4)),
    ("overloaded", errors.overloaded("Equity", 32)),
    ("no_time_left", errors.no_time_left("no time left for Equity", "Equity")),
    ("receive_timeout", errors.receive_timeout("Act", 1.5)),
    ("too_large", errors.too_large("Evaluate", 2048, 1024)),
    ("draining", errors.draining("StartHand")),
    ("work_cancelled", errors.work_cancelled("stopped", "Equity")),
    ("hand_not_over", errors.hand_not_over(3)),
    ("stale_seq", errors.stale_seq(4, 5)),
    ("bad_state", errors.bad_state()),
    ("limit", errors.limit("hands", "at most 2")),
]:
    show(name, error)

rng = random.Random(22)
reasons = [Reason.INVALID_REQUEST, Reason.LIMIT_EXCEEDED, Reason.TEST_DECK_REFUSED]
for case in range(300):
    found = Violations()
    for index in range(rng.choice([0, 1, 2, 5, 19, 20, 21, 30])):
        way = rng.randrange(4)
        field = f"players[{index}].{rng.choice(['id', 'stack'])}"
        if way == 0:
            found.add(field, f"problem {rng.randrange(100)}", rng.choice(reasons))
        elif way == 1:
            found.limit(field, "must be at most 10")
        elif way == 2:
            found.invalid_hand(InvalidHand("deck", "a card twice"), rng.choice(["", "test_"]))
        elif rng.randrange(10) == 0:
            found.bad_state()
    print(json.dumps([f"violations {case}", len(found)]))
    refused(f"violations {case}", found.check)
print(json.dumps(["errors module", errors.__file__.endswith(".py")]))
"""


def _refusals(pure: bool) -> list[list[object]]:
    env = {**os.environ, compiled.PURE_SWITCH: "1" if pure else ""}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(REPO / "tests")],
        env=env, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_compiled_refusals_are_the_sources() -> None:
    built, source = _refusals(pure=False), _refusals(pure=True)
    assert source[-1] == ["errors module", True]  # the pure run ran the .py file
    if "studengine.api.errors" in compiled.recorded()[1]:
        assert built[-1] == ["errors module", False]  # and this one the compiled module
    assert built[:-1] == source[:-1]
    assert sum(line[1] == "not refused" for line in built) > 10  # some sets were empty
    assert len(built) > 600
