"""A raw HTTP/2 client (the ``h2`` package) that opens gRPC calls and never finishes their
request bodies: each stream gets its headers and a length prefix announcing more bytes
than are sent. What a slow or hostile client does to a server's request reading."""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass, field

import h2.config
import h2.connection
import h2.events


@dataclass
class StalledClient:
    """One connection to ``host:port`` with ``streams`` calls of ``method`` left stalled."""

    host: str
    port: int
    method: str = "/stud.v1.StudEngineService/Evaluate"
    announced: int = 1000  # the request length the prefix announces
    sent: int = 10  # the bytes of it actually sent
    sock: socket.socket = field(init=False)
    conn: h2.connection.H2Connection = field(init=False)
    stream_ids: list[int] = field(default_factory=list)
    statuses: dict[int, str] = field(default_factory=dict)  # stream id -> grpc-status
    closed: bool = False
    settings_received: bool = False
    pings_acked: int = 0

    def __post_init__(self) -> None:
        self.sock = socket.create_connection((self.host, self.port), timeout=10)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self._flush()
        self.read(until=lambda: self.settings_received, limit=10)

    def _flush(self) -> None:
        self.sock.sendall(self.conn.data_to_send())

    def open(self, streams: int) -> None:
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", self.method),
            (":authority", f"{self.host}:{self.port}"),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        ]
        for _ in range(streams):
            stream_id = self.conn.get_next_available_stream_id()
            self.conn.send_headers(stream_id, headers)
            prefix = struct.pack(">BI", 0, self.announced)
            self.conn.send_data(stream_id, prefix + b"\x0a" * self.sent)
            self.stream_ids.append(stream_id)
        self._flush()

    def read(self, until: object = None, limit: float = 30.0) -> None:
        """Take what the server sent (statuses, settings) until ``until()`` or ``limit`` s."""
        deadline = time.monotonic() + limit
        while not self.closed and time.monotonic() < deadline:
            if until is not None and until():  # type: ignore[operator]
                return
            self.sock.settimeout(max(0.05, min(0.5, deadline - time.monotonic())))
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            if not data:
                self.closed = True
                return
            for event in self.conn.receive_data(data):
                headers = getattr(event, "headers", None)
                if isinstance(event, h2.events.ResponseReceived | h2.events.TrailersReceived):
                    for name, value in headers or ():
                        key = name.decode() if isinstance(name, bytes) else name
                        if key == "grpc-status":
                            text = value.decode() if isinstance(value, bytes) else value
                            self.statuses[event.stream_id] = text
                elif isinstance(event, h2.events.PingAckReceived):
                    self.pings_acked += 1
                elif isinstance(event, h2.events.RemoteSettingsChanged):
                    self.settings_received = True
                elif isinstance(event, h2.events.ConnectionTerminated):
                    self.closed = True
            self._flush()

    def sync(self) -> None:
        """A PING and its ACK: the server's transport has taken every frame sent before."""
        acked = self.pings_acked
        self.conn.ping(b"stalled!")
        self._flush()
        self.read(until=lambda: self.pings_acked > acked, limit=30)
        assert self.pings_acked > acked, "no PING ACK from the server"

    def close(self) -> None:
        self.sock.close()
