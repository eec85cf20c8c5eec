"""Stud Engine: a stateless gRPC game engine for Five Card Stud, Seven Card Stud, Razz and
Seven Card Stud Hi-Lo."""

from studengine import compiled

__version__ = "0.1.0"

compiled.choose()  # the mypyc-compiled hot modules, or their .py sources (compiled.py)
