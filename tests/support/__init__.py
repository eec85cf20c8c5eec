"""Test support shared by the tiers: paths and tool checks, the live-server harness, the
stud-table harness (stud-table processes, a PostgreSQL on loopback), API and rules
helpers, deploy helpers. Import as ``from support.x import y`` (``tests/`` is on
``pythonpath``)."""
