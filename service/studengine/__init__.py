"""Stud Engine: a stateless gRPC game engine for Five Card Stud and Seven Card Stud."""

__version__ = "0.1.0"
