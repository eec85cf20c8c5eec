"""The conformance runner: scripted hands (``../shared/conformance/*.json``) played
in-process or against a live server (``stud-conformance``)."""

from studengine.conformance.local import LocalDriver
from studengine.conformance.runner import (
    ActionRefused,
    Driver,
    Snapshot,
    play_vector,
    vector_files,
)

__all__ = ["ActionRefused", "Driver", "LocalDriver", "Snapshot", "play_vector", "vector_files"]
