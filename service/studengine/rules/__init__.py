"""The rules of Five Card Stud, Seven Card Stud, Razz and Seven Card Stud Hi-Lo, pure and
deterministic (no I/O, clock or randomness)."""
