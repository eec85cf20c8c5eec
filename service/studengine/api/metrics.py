"""The game's own Prometheus metrics (the gRPC server metrics live with the interceptor).

Declared once here; with several worker processes prometheus_client's multiprocess mode
(PROMETHEUS_MULTIPROC_DIR) makes them add up across workers.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

HANDS_STARTED = Counter("stud_hands_started_total", "Hands started.", ["variant"])
HANDS_FINISHED = Counter("stud_hands_finished_total", "Hands played to the end.", ["variant"])
ACTIONS = Counter("stud_actions_total", "Actions applied.", ["variant", "action"])
REJECTIONS = Counter("stud_rejections_total", "Requests refused, by reason.", ["reason"])
STATE_BYTES = Histogram(
    "stud_state_bytes",
    "Size of the sealed state returned, in bytes.",
    buckets=(256, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192),
)


def hand_started(variant: str) -> None:
    HANDS_STARTED.labels(variant=variant).inc()


def hand_finished(variant: str) -> None:
    HANDS_FINISHED.labels(variant=variant).inc()


def action_taken(variant: str, action: str) -> None:
    ACTIONS.labels(variant=variant, action=action).inc()


def rejected(reason: str) -> None:
    """``reason``: bad_request, bad_state, illegal_action, out_of_turn, stale_seq,
    hand_over, test_deck_refused, limit."""
    REJECTIONS.labels(reason=reason).inc()


def state_size(nbytes: int) -> None:
    STATE_BYTES.observe(nbytes)
