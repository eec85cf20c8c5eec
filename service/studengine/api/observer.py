"""What the API reports as it works: hands started and finished, actions applied, the
rake taken (R-RAKE), refusals by reason, sealed-state sizes, expensive work stopped because
its caller cancelled. The server passes its Prometheus metrics
(``studengine.server.metrics``, a module that fits ``Observer``); by default nothing is
reported, so the API needs nothing from the layer above it."""

from __future__ import annotations

from typing import Protocol


class Observer(Protocol):
    def hand_started(self, variant: str) -> None: ...

    def hand_finished(self, variant: str) -> None: ...

    def action_taken(self, variant: str, action: str) -> None: ...

    def rake_taken(self, variant: str, chips: int) -> None: ...

    def rejected(self, reason: str) -> None: ...

    def state_size(self, nbytes: int) -> None: ...

    def work_cancelled(self, method: str) -> None: ...


class Unobserved:
    """Reports nothing (handlers used on their own, in tests or tools)."""

    def hand_started(self, variant: str) -> None:
        pass

    def hand_finished(self, variant: str) -> None:
        pass

    def action_taken(self, variant: str, action: str) -> None:
        pass

    def rake_taken(self, variant: str, chips: int) -> None:
        pass

    def rejected(self, reason: str) -> None:
        pass

    def state_size(self, nbytes: int) -> None:
        pass

    def work_cancelled(self, method: str) -> None:
        pass
