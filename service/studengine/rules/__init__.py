"""The rules of Five and Seven Card Stud, pure and deterministic (no I/O, clock or randomness)."""
