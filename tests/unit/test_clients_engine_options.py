"""The one engine client's parts that need no server: the service config every channel
carries (it names the API's real service, retries UNAVAILABLE only, never CANCELLED, and
the package ships the file proto/ has), the ``--target`` / ``--tls*`` flags as each CLI
takes them (the old names as aliases), and the failover rotation."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients import load, play
from studclients.engine import (
    COOLDOWN_SECONDS,
    DRAINING_REST_SECONDS,
    SERVICE_CONFIG,
    Dial,
    Rotation,
    Tls,
    dial_from_args,
)
from studclients.table import __main__ as table
from studengine.conformance import __main__ as conformance
from studengine.server.drain import QUIET, REFUSE_AT_MOST
from support.paths import REPO

Build = Callable[[], argparse.ArgumentParser]
REQUIRED: dict[str, list[str]] = {"stud-conformance": ["vectors/"], "stud-table": []}


def test_the_service_config_retries_unavailable_on_the_api_service() -> None:
    config = json.loads(SERVICE_CONFIG)
    assert config == json.loads((REPO / "proto" / "service_config.json").read_text())
    services = pb.DESCRIPTOR.services_by_name
    (method,) = config["methodConfig"]
    for name in method["name"]:  # a name that matches no service would retry nothing
        package, _, service = name["service"].rpartition(".")
        assert package == pb.DESCRIPTOR.package and service in services, name
    policy = method["retryPolicy"]
    assert policy["retryableStatusCodes"] == ["UNAVAILABLE"]  # never CANCELLED (AIP-194)
    assert 2 <= policy["maxAttempts"] <= 5


def parse(build: Build, *argv: str, many: bool) -> tuple[Dial | None, argparse.Namespace]:
    parser = build()
    args = parser.parse_args(list(argv))
    return dial_from_args(parser, args, many=many), args


CLIS: list[tuple[str, Build, str | None, bool]] = [
    ("stud-play", play.build_parser, None, False),
    ("stud-load", load.build_parser, "--targets", True),
    ("stud-table", table.build_parser, "--engine", True),
    ("stud-conformance", conformance.build_parser, None, False),
]


@pytest.mark.parametrize(("name", "build", "alias", "many"), CLIS)
def test_every_cli_takes_target_its_old_name_and_the_tls_flags(
    name: str, build: Build, alias: str | None, many: bool, tmp_path: Path
) -> None:
    rest = REQUIRED.get(name, [])
    dial, _ = parse(build, *rest, "--target", "127.0.0.1:50051", many=many)
    assert dial == Dial(("127.0.0.1:50051",))
    if alias is not None:
        dial, _ = parse(build, *rest, alias, "h1:1,h2:2", many=many)
        assert dial is not None and dial.targets == ("h1:1", "h2:2")
        dial, _ = parse(build, *rest, "--target", "h1:1", "--target", "h2:2,h3:3", many=many)
        assert dial is not None and dial.targets == ("h1:1", "h2:2", "h3:3")
    else:
        with pytest.raises(SystemExit):  # one server only
            parse(build, *rest, "--target", "h1:1,h2:2", many=many)
    ca, cert, key = (tmp_path / n for n in ("ca.pem", "me.pem", "me.key"))
    for path in (ca, cert, key):
        path.write_bytes(b"PEM " + path.name.encode())
    dial, _ = parse(build, *rest, "--target", "h:1", "--tls-ca", str(ca), many=many)
    assert dial is not None and dial.tls == Tls(ca=b"PEM ca.pem")
    mtls = ["--tls-ca", str(ca), "--tls-cert", str(cert), "--tls-key", str(key)]
    dial, _ = parse(build, *rest, "--target", "h:1", *mtls, "--tls-server-name", "e", many=many)
    assert dial is not None and dial.tls == Tls(b"PEM ca.pem", b"PEM me.pem", b"PEM me.key", "e")
    dial, _ = parse(build, *rest, "--target", "h:1", "--tls", many=many)
    assert dial is not None and dial.tls == Tls()  # the system's roots


@pytest.mark.parametrize(("name", "build", "alias", "many"), CLIS)
def test_bad_dial_flags_are_usage_errors(
    name: str,
    build: Build,
    alias: str | None,
    many: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rest = REQUIRED.get(name, [])
    cert = tmp_path / "me.pem"
    cert.write_text("x")
    cases = [
        (["--target", "h:1", "--tls-cert", str(cert)], "go together"),
        (["--target", "h:1", "--tls-ca", str(tmp_path / "missing.pem")], "cannot read"),
        (["--target", "nohost"], "not a host:port target"),
    ]
    if name != "stud-table":  # the one CLI that needs a target
        cases.append((["--tls"], "need --target"))
    for argv, message in cases:
        with pytest.raises(SystemExit) as stopped:
            parse(build, *rest, *argv, many=many)
        assert stopped.value.code == 2
        assert message in capsys.readouterr().err


def test_the_rotation_takes_targets_in_turn_and_fails_over_to_an_untried_one() -> None:
    now = [100.0]
    rotation = Rotation(["a:1", "b:1", "a:1", "b:1"], clock=lambda: now[0])
    assert [rotation.first() for _ in range(4)] == [0, 1, 2, 3]
    tried: set[str] = set()
    assert rotation.next_after(0, grpc.StatusCode.UNAVAILABLE, tried) == 1  # b, not a again
    assert rotation.next_after(1, grpc.StatusCode.UNAVAILABLE, tried) is None  # both tried
    now[0] += 0.5
    rotation.resting_until.pop("b:1")
    assert {rotation.first() for _ in range(4)} == {1, 3}  # a rests for COOLDOWN_SECONDS
    now[0] += 1.0
    assert {rotation.first() for _ in range(4)} == {0, 1, 2, 3}
    for code in (grpc.StatusCode.CANCELLED, grpc.StatusCode.ABORTED):  # never failed over
        assert rotation.next_after(0, code, set()) is None
    assert rotation.resting_until["a:1"] <= now[0]


def test_a_draining_target_rests_until_it_has_stopped_refusing() -> None:
    """A target refusing SERVER_DRAINING is passed over longer than a draining server
    refuses (so no call reaches it as it stops), and a later failure does not shorten it."""
    now = [100.0]
    rotation = Rotation(["a:1", "b:1"], clock=lambda: now[0])
    assert rotation.next_after(0, grpc.StatusCode.UNAVAILABLE, set(), "SERVER_DRAINING") == 1
    assert DRAINING_REST_SECONDS > QUIET + REFUSE_AT_MOST > COOLDOWN_SECONDS
    rotation.next_after(0, grpc.StatusCode.UNAVAILABLE, set())  # then the port is closed
    now[0] += QUIET + REFUSE_AT_MOST
    assert {rotation.first() for _ in range(4)} == {1}
    now[0] += DRAINING_REST_SECONDS
    assert {rotation.first() for _ in range(4)} == {0, 1}
