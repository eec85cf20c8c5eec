"""stud-table's pushes with a reader that stalls: a WebSocket client with a tiny receive
window that never reads must not hold up anyone else's updates. It is dropped (its own
bounded queue fills, or one send to it never finishes) while a healthy subscriber at the
same table goes on receiving every change."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import socket
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from support.polling import poll_until
from support.table_harness import join, table_on_new_engine

BOTS = "station,station,station,station"


def upgrade(sock: socket.socket, port: int) -> None:
    """The WebSocket handshake, by hand, on a connected socket."""
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer


def stalled_subscriber(port: int, token: str) -> socket.socket:
    """A WebSocket opened by hand over a socket with a tiny receive buffer, that sends its
    hello and then never reads again (the kernel's window closes at once). It offers a real
    network's segment size (1460): at loopback's (65483) the kernel starts the server's send
    buffer at about 2.6 MiB, which hides a server that waits on the reader for minutes."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1460)
    sock.connect(("127.0.0.1", port))
    upgrade(sock, port)
    payload = json.dumps({"type": "hello", "table": "main", "token": token}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    header = struct.pack("!BB", 0x81, 0x80 | 126) + struct.pack("!H", len(payload))
    sock.sendall(header + mask + masked)
    return sock


def keep_alive(sock: socket.socket) -> None:
    """An unsolicited pong (masked, empty): the server's heartbeat sees the client alive."""
    sock.sendall(b"\x8a\x80" + os.urandom(4))


def test_a_stalled_reader_is_dropped_and_holds_up_nobody(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    server = table_on_new_engine(
        live_server,
        tmp_path,
        ["--seats", "6", "--bots", BOTS, "--bot-delay", "0", "--pause", "0", "--clock", "0.2",
         "--time-bank", "0", "--metrics-port", "0"],
    )  # fmt: skip
    try:
        _, stalled_token = join(server.url, "Sal")
        _, healthy_token = join(server.url, "Hal")
        stalled = stalled_subscriber(server.port, stalled_token)
        received: list[int] = []

        def dropped() -> float:
            name = "stud_table_subscribers_dropped_total"
            return sum(server.metric(name, f'reason="{r}"') for r in ("queue_full", "send_timeout"))

        async def healthy() -> None:
            url = server.url.replace("http", "ws") + "/ws"
            async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
                await ws.send_json({"type": "hello", "table": "main", "token": healthy_token})
                dropped_at: int | None = None
                while dropped_at is None or len(received) < dropped_at + 50:
                    try:  # the server's pings do not count: a push within 30 s
                        async with asyncio.timeout(30):
                            message = await ws.receive_json()
                    except TimeoutError:
                        raise AssertionError(
                            f"no push for 30 s after {len(received)}: the stalled reader holds"
                            f" up the others (dropped: {dropped()})"
                        ) from None
                    assert message["type"] == "table", message
                    received.append(message["table"]["version"])
                    if dropped_at is None and len(received) % 10 == 0:
                        with contextlib.suppress(ConnectionError):
                            keep_alive(stalled)  # the stalled reader's heartbeat stays alive
                        if dropped():
                            dropped_at = len(received)  # then fifty more pushes

        asyncio.run(asyncio.wait_for(healthy(), 180))
        poll_until(lambda: server.metric("stud_table_websockets_open") == 0, what="both closed")
        assert received == sorted(received), "pushes arrive in the table's order"
        assert dropped() == 1, "only the stalled reader was dropped"
        with pytest.raises(ConnectionError):
            for _ in range(3):  # a reset connection: the server aborted it
                keep_alive(stalled)
        stalled.close()
    finally:
        server.stop()


def test_a_reset_subscriber_leaves_one_log_line_and_no_traceback(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    """A client that opens the WebSocket and resets the connection before its hello (the
    server's answer, bad_hello, meets a closed transport) is one line in the log."""
    server = table_on_new_engine(
        live_server,
        tmp_path,
        ["--seats", "4", "--bots", "station,station", "--bot-delay", "0", "--pause", "0",
         "--clock", "0.2", "--time-bank", "0", "--metrics-port", "0"],
    )  # fmt: skip
    try:
        sock = socket.create_connection(("127.0.0.1", server.port))
        upgrade(sock, server.port)
        poll_until(lambda: server.metric("stud_table_websockets_open") == 1, what="opened")
        # RST, not FIN: a zero linger time makes close() reset the connection
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
        poll_until(lambda: server.metric("stud_table_websockets_open") == 0, what="closed")
        moves = server.metric("stud_table_moves_total", 'source="bot"')
        # the table plays on after the reset (the bots); then the log is read
        poll_until(
            lambda: server.metric("stud_table_moves_total", 'source="bot"') >= moves + 20,
            what="twenty more moves",
        )
        log = server.output()
        assert "Traceback" not in log, log
        lines = [line for line in log.splitlines() if "WebSocket" in line]
        assert len(lines) == 1, log
        assert "reset" in lines[0], lines
    finally:
        server.stop()
