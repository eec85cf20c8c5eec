"""``librt.strings.BytesWriter``'s methods that ``state.wire`` uses, on a bytearray: what
the pure-Python sources write into where librt (mypyc's runtime library, a dependency of
the compiled build) is not installed. The tests hold the two to the same bytes."""

from __future__ import annotations


class BytesWriter(bytearray):
    """A growing buffer of bytes: ``append`` one byte, ``write`` many, ``getvalue``."""

    def write(self, data: bytes | bytearray, /) -> None:
        self.extend(data)

    def getvalue(self) -> bytes:
        return bytes(self)

    def truncate(self, size: int, /) -> None:
        del self[size:]
