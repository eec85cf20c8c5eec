"""Hand state: the engine's Hand <-> internal proto (``codec``, with ``messages`` and
``wire``), sealing (key ring), key specs."""
