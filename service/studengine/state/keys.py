"""Sealing-key specs: ``kid:base64key`` (32-byte AES-256 key, standard base64).

A key file holds one spec a line (blank lines and ``#`` comments ignored); an
environment value holds them comma-separated. The first key seals, all open. Make a new
key with ``stud-keygen`` or ``python -m studengine.state.keys --new``; never commit one.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import secrets
import time
from collections.abc import Iterable
from pathlib import Path

from studengine.state.sealing import KEY_BYTES, KID_RE, KeyRing


class KeySpecError(ValueError):
    """A key spec that does not parse (the message never includes key material)."""


def parse_key_spec(spec: str) -> tuple[str, bytes]:
    kid, sep, encoded = spec.strip().partition(":")
    if not sep:
        raise KeySpecError("a key spec is kid:base64key")
    if not KID_RE.match(kid):
        raise KeySpecError(f"key id {kid!r}: 1 to 32 of A-Z a-z 0-9 . _ -")
    try:
        key = base64.b64decode(encoded.strip(), validate=True)
    except (binascii.Error, ValueError):
        raise KeySpecError(f"key {kid!r}: not valid base64") from None
    if len(key) != KEY_BYTES:
        raise KeySpecError(f"key {kid!r}: must decode to {KEY_BYTES} bytes, got {len(key)}")
    return kid, key


def parse_key_specs(specs: Iterable[str]) -> list[tuple[str, bytes]]:
    keys = [parse_key_spec(s) for s in specs if s.strip() and not s.strip().startswith("#")]
    if not keys:
        raise KeySpecError("no sealing keys given")
    kids = [kid for kid, _ in keys]
    if len(set(kids)) != len(kids):
        raise KeySpecError("a key id appears twice")
    return keys


def keys_from_env_value(value: str) -> list[tuple[str, bytes]]:
    """Keys from a comma-separated environment value."""
    return parse_key_specs(value.split(","))


def keys_from_file(path: str | Path) -> list[tuple[str, bytes]]:
    """Keys from a file, one spec a line."""
    return parse_key_specs(Path(path).read_text().splitlines())


def keyring_from_specs(specs: Iterable[str]) -> KeyRing:
    return KeyRing(parse_key_specs(specs))


def new_key_spec(kid: str | None = None) -> str:
    """A fresh random key as a spec line."""
    kid = kid or f"k{time.strftime('%Y%m%d', time.gmtime())}-{secrets.token_hex(3)}"
    if not KID_RE.match(kid):
        raise KeySpecError(f"key id {kid!r}: 1 to 32 of A-Z a-z 0-9 . _ -")
    return f"{kid}:{base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode('ascii')}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="stud-keygen", description="Print a new sealing key spec (kid:base64key)."
    )
    parser.add_argument("--new", action="store_true", help="print a new key (the default)")
    parser.add_argument("--kid", help="the key id (default: k<date>-<random>)")
    options = parser.parse_args(argv)
    try:
        print(new_key_spec(options.kid))
    except KeySpecError as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
