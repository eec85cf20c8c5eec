"""Hand state: the engine's Hand <-> internal proto (codec), sealing (key ring), key specs."""
