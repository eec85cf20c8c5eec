"""stud-server configuration: flags, STUD_* environment variables, keys, gRPC options, and
the JSON log set-up (no process started here; the live tests are test_server_live.py)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import select
import threading
from pathlib import Path
from typing import Any

import pytest
import structlog
from studengine.api import logfields
from studengine.server.config import ConfigError, ServerConfig, parse_config
from studengine.server.grpc_listener import server_options
from studengine.server.logging import LineWriter, configure_logging
from studengine.server.main import load_keys
from studengine.state.keys import new_key_spec, parse_key_spec


def test_defaults() -> None:
    config = parse_config([], {})
    assert config == ServerConfig()
    assert (config.host, config.port, config.metrics_port) == ("127.0.0.1", 50051, 9464)
    assert (config.workers, config.max_message_bytes, config.grace_seconds) == (1, 1 << 20, 10.0)
    assert config.max_connection_age_seconds == 0
    assert not config.dev and not config.allow_test_decks


def test_every_flag_has_an_environment_variable() -> None:
    env = {
        "STUD_HOST": "0.0.0.0",
        "STUD_PORT": "6000",
        "STUD_METRICS_PORT": "0",
        "STUD_WORKERS": "3",
        "STUD_THREADS": "4",
        "STUD_KEY_FILE": "/run/keys",
        "STUD_DEV": "true",
        "STUD_ALLOW_TEST_DECKS": "1",
        "STUD_MAX_MESSAGE_BYTES": "4096",
        "STUD_MAX_CONCURRENT_RPCS": "7",
        "STUD_GRACE_SECONDS": "2.5",
        "STUD_MAX_CONNECTION_AGE_SECONDS": "300",
        "STUD_LOG_LEVEL": "warning",
        "STUD_SEALING_KEYS": "a:b,c:d",
        "STUD_MAX_EXPENSIVE_CALLS": "5",
        "STUD_EQUITY_CPU_SECONDS": "0.5",
        "STUD_DEAL_TICKET_SECONDS": "60",
        "STUD_MAX_STREAMS_PER_CONNECTION": "16",
        "STUD_RECEIVE_TIMEOUT_SECONDS": "3",
        "STUD_REFLECTION": "false",
        "STUD_LOG_QUEUE_LINES": "99",
    }
    config = parse_config([], env)
    assert config == ServerConfig(
        host="0.0.0.0",
        port=6000,
        metrics_port=0,
        workers=3,
        threads=4,
        key_file="/run/keys",
        sealing_keys="a:b,c:d",
        dev=True,
        allow_test_decks=True,
        max_message_bytes=4096,
        max_concurrent_rpcs=7,
        grace_seconds=2.5,
        max_connection_age_seconds=300.0,
        log_level="warning",
        max_expensive_calls=5,
        equity_cpu_seconds=0.5,
        deal_ticket_seconds=60.0,
        max_streams_per_connection=16,
        receive_timeout_seconds=3.0,
        reflection=False,
        log_queue_lines=99,
    )


def test_flags_win_over_environment() -> None:
    env = {"STUD_PORT": "6000", "STUD_ALLOW_TEST_DECKS": "true", "STUD_LOG_LEVEL": "error"}
    config = parse_config(["--port", "7000", "--no-allow-test-decks", "--log-level=debug"], env)
    assert (config.port, config.allow_test_decks, config.log_level) == (7000, False, "debug")
    assert parse_config([], {"STUD_DEV": "false"}).dev is False


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["--workers", "0"], {}),
        (["--port", "70000"], {}),
        (["--grace-seconds", "-1"], {}),
        (["--log-level", "loud"], {}),
        ([], {"STUD_ALLOW_TEST_DECKS": "maybe"}),
        ([], {"STUD_PORT": "eighty"}),
    ],
)
def test_malformed_settings_exit_2(
    argv: list[str], env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        parse_config(argv, env)
    assert exit_info.value.code == 2
    assert "error" in capsys.readouterr().err


def test_no_key_is_refused_with_a_clear_message() -> None:
    with pytest.raises(ConfigError, match=r"no sealing key configured.*--key-file.*--dev"):
        load_keys(ServerConfig())


def test_dev_makes_an_ephemeral_key_each_time() -> None:
    first, ephemeral = load_keys(ServerConfig(dev=True))
    second, _ = load_keys(ServerConfig(dev=True))
    assert ephemeral and len(first) == 1 and len(first[0][1]) == 32
    assert first != second


def test_keys_from_file_then_env(tmp_path: Path) -> None:
    first, second = new_key_spec("new"), new_key_spec("old")
    key_file = tmp_path / "keys"
    key_file.write_text(f"# rotation: new seals, old still opens\n{first}\n\n{second}\n")
    keys, ephemeral = load_keys(ServerConfig(key_file=str(key_file), dev=True))
    assert not ephemeral
    assert keys == [parse_key_spec(first), parse_key_spec(second)]
    keys, _ = load_keys(ServerConfig(sealing_keys=f"{second},{first}"))
    assert [kid for kid, _ in keys] == ["old", "new"]


def test_bad_keys_are_refused_without_echoing_them(tmp_path: Path) -> None:
    secret = new_key_spec("k1").split(":", 1)[1]
    with pytest.raises(ConfigError) as error:
        load_keys(ServerConfig(sealing_keys=f"k1:{secret[:-8]}"))
    assert "STUD_SEALING_KEYS" in str(error.value) and secret[:-8] not in str(error.value)
    with pytest.raises(ConfigError, match="cannot read --key-file"):
        load_keys(ServerConfig(key_file=str(tmp_path / "missing")))


def test_grpc_options() -> None:
    options = dict(server_options(ServerConfig(max_message_bytes=1000), reuse_port=False))
    assert options == {
        "grpc.max_receive_message_length": 2000,  # the servicer refuses over 1000 itself
        "grpc.so_reuseport": 0,
        "grpc.max_concurrent_streams": 100,
    }
    aged = dict(
        server_options(
            ServerConfig(max_connection_age_seconds=30, grace_seconds=5), reuse_port=True
        )
    )
    assert aged["grpc.so_reuseport"] == 1
    assert aged["grpc.max_connection_age_ms"] == 30_000
    assert aged["grpc.max_connection_age_grace_ms"] == 5_000


def test_log_lines_are_json_with_context_and_never_secrets() -> None:
    out = io.StringIO()
    configure_logging("info", stream=out, worker=3)
    try:
        log = structlog.get_logger("t")
        logfields.bind(hand_id="ab" * 16, seq=4, deck=[1, 2], salt="ff")
        log.info("rpc", method="/m", code="OK", cards=["As"], key="k", state=b"x")
        log.debug("hidden below the level")
    finally:
        logfields.clear()
        structlog.reset_defaults()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["hand_id"] == "ab" * 16 and entry["seq"] == 4 and entry["worker"] == 3
    assert entry["event"] == "rpc" and entry["level"] == "info" and "timestamp" in entry
    assert not {"deck", "salt", "cards", "key", "state"} & set(entry)


def test_line_writer_writes_whole_lines_in_pipe_atomic_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_end, write_end = os.pipe()
    received = bytearray()

    def read_all() -> None:
        while chunk := os.read(read_end, 1 << 16):
            received.extend(chunk)

    reader = threading.Thread(target=read_all)
    reader.start()
    writes: list[int] = []
    real_write = os.write

    def recording_write(fd: int, data: Any) -> int:
        if fd == write_end:
            writes.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", recording_write)
    writer = LineWriter(write_end)
    lines = [
        json.dumps({"thread": t, "n": n, "pad": "x" * (n % 300)})
        for t in range(8)
        for n in range(200)
    ]

    def emit(thread: int) -> None:
        for line in lines[thread * 200 : (thread + 1) * 200]:
            writer.write(line + "\n")
            writer.flush()  # what structlog calls after each line: must not write

    threads = [threading.Thread(target=emit, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.drain()
    os.close(write_end)
    reader.join(30)
    os.close(read_end)
    assert sorted(received.decode().splitlines()) == sorted(lines)  # every line, whole
    assert writes and max(writes) <= select.PIPE_BUF
    assert len(writes) < len(lines) / 4  # batched, not one system call a line


def test_line_writer_queue_is_bounded_and_counts_what_it_drops() -> None:
    read_end, write_end = os.pipe()
    writer = LineWriter(write_end, limit=5)
    writer.close()  # no thread writing: lines stay queued
    counted: list[int] = []
    for n in range(8):
        writer.write(f"line {n}\n")
    writer.count_drops(counted.append)  # told of the three dropped so far
    writer.write("one more\n")
    assert writer.dropped == 4 and counted == [3, 1]
    writer.drain()
    os.close(write_end)
    with os.fdopen(read_end) as reader:
        assert reader.read().splitlines() == [f"line {n}" for n in range(5)]


def test_line_writer_exit_gives_up_on_a_stalled_pipe() -> None:
    """Nobody reads the pipe: close() returns after its bound, dropping what is left."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(write_end, b"x" * 4096)  # fill the pipe
    os.set_blocking(write_end, True)
    writer = LineWriter(write_end)
    writer.EXIT_SECONDS = 0.2
    writer.close()  # its thread stopped first: every line below waits for the last close
    for n in range(100):
        writer.write(f"line {n}\n")
    writer.close()  # a blocking write here would never return
    assert writer.dropped == 100
    os.close(read_end)
    os.close(write_end)
