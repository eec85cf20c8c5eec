"""Rate limits on the requests a client can repeat cheaply (join, act, bots, resume): a
token bucket per route and client, refused with 429, reason ``rate_limited`` and a
``Retry-After`` header (whole seconds). Buckets live in each replica's memory: with N
replicas behind a balancer a client gets at most N times the rate, which is what they
are for (a flood, not an accounting)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from studclients.table import metrics
from studclients.table.errors import ApiError

#: The default limits: route -> (requests, per seconds). A bucket holds ``requests`` and
#: refills at requests / seconds a second.
DEFAULTS: dict[str, tuple[int, float]] = {
    "join": (10, 60.0),
    "act": (20, 10.0),
    "bots": (10, 60.0),
    "resume": (20, 60.0),
    "download": (10, 60.0),  # a history or a proof: a table's hands read and packed
}
#: Buckets kept before full (idle) ones are forgotten.
MAX_BUCKETS = 10_000


class RateLimited(ApiError):
    """429 with the seconds to wait (``Retry-After``)."""

    def __init__(self, route: str, retry_after: float) -> None:
        self.retry_after = max(1, math.ceil(retry_after))
        super().__init__(
            429,
            "rate_limited",
            f"too many {route} requests: try again in {self.retry_after} s",
        )


@dataclass
class Bucket:
    tokens: float
    at: float


@dataclass
class RateLimits:
    """Token buckets by (route, client key)."""

    limits: dict[str, tuple[int, float]] = field(default_factory=lambda: dict(DEFAULTS))
    buckets: dict[tuple[str, str], Bucket] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> RateLimits:
        """``join=10/60,act=20/10`` (requests/seconds; 0 requests: no limit) over the
        defaults; ValueError naming the part that is wrong."""
        limits = dict(DEFAULTS)
        for part in filter(None, (p.strip() for p in text.split(","))):
            route, _, rate = part.partition("=")
            requests, _, seconds = rate.partition("/")
            if route not in DEFAULTS:
                raise ValueError(f"--rate-limits: {route!r} is not one of {', '.join(DEFAULTS)}")
            try:
                count, per = int(requests), float(seconds)
            except ValueError:
                raise ValueError(f"--rate-limits: {part!r} is not ROUTE=REQUESTS/SECONDS") from None
            if count < 0 or per <= 0:
                raise ValueError(f"--rate-limits: {part!r} needs requests >= 0, seconds > 0")
            limits[route] = (count, per)
        return cls(limits)

    def check(self, route: str, key: str, now: float | None = None) -> None:
        """Takes one token from the client's bucket, or raises RateLimited."""
        count, per = self.limits[route]
        if count == 0:
            return
        now = time.monotonic() if now is None else now
        rate = count / per
        bucket = self.buckets.get((route, key))
        if bucket is None:
            self._forget_idle(now)
            bucket = self.buckets[(route, key)] = Bucket(float(count), now)
        bucket.tokens = min(float(count), bucket.tokens + (now - bucket.at) * rate)
        bucket.at = now
        if bucket.tokens < 1.0:
            metrics.RATE_LIMITED.labels(route).inc()
            raise RateLimited(route, (1.0 - bucket.tokens) / rate)
        bucket.tokens -= 1.0

    def _forget_idle(self, now: float) -> None:
        """Past MAX_BUCKETS, drops the buckets that have refilled (they hold nothing)."""
        if len(self.buckets) < MAX_BUCKETS:
            return
        for key, bucket in list(self.buckets.items()):
            count, per = self.limits[key[0]]
            if bucket.tokens + (now - bucket.at) * count / per >= count:
                del self.buckets[key]
