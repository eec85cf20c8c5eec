"""Test support shared by the tiers: paths and tool checks, the live-server harness, API
and rules helpers, deploy helpers. Import as ``from support.x import y`` (``tests/`` is on
``pythonpath``)."""
