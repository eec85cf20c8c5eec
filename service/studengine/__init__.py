"""Stud Engine: a stateless gRPC game engine for Five Card Stud, Seven Card Stud, Razz and
Seven Card Stud Hi-Lo."""

__version__ = "0.1.0"
