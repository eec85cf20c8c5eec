"""What a live stud-server shows and accepts (issue 11): no deck reveal in any view,
printable player ids only, reflection of the public API only, and stud-conformance
--target using one channel and failing cleanly on a missing path."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studengine.api.errors import field_violations
from support.api_helpers import table_7s
from support.paths import CONFORMANCE_DIR
from support.server_harness import LiveServer

Launch = Callable[..., LiveServer]
CONFORMANCE = str(Path(sys.executable).parent / "stud-conformance")


def _start(ids: list[str]) -> pb.StartHandRequest:
    return pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=table_7s(),
        players=[pb.Player(id=i, stack=500) for i in ids],
        button=0,
    )


def test_get_view_never_carries_the_deck_reveal_r_muck(live_server: Launch) -> None:
    """R-MUCK: once the hand is over, GetView answers for every seat and the spectator
    without ``reveal`` (salt and deck imply the mucked hands); the final HandUpdate has it."""
    server = live_server()
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        update = stub.StartHand(_start(["ann", "bob", "cy"]), timeout=10).hand
        while not update.over:
            legal = {a.type: a for a in update.legal_actions}
            action = legal.get(pb.ACTION_TYPE_FOLD) or legal[pb.ACTION_TYPE_BRING_IN]
            request = pb.ActRequest(state=update.state, seat=update.to_act, action=action.type)
            update = stub.Act(request, timeout=10).hand
        assert update.HasField("reveal") and len(update.reveal.deck) == 52
        for seat in (0, 1, 2, None):
            request = pb.GetViewRequest(state=update.state)
            if seat is not None:
                request.seat = seat
            view = stub.GetView(request, timeout=10)
            assert view.over and view.result == update.result
            assert not view.HasField("reveal")
            assert update.reveal.salt not in str(view)


@pytest.mark.parametrize(
    "bad_id", ["ann\nbob", "nul\x00", "\x1b[31mred", "tab\there", "line\u2028sep", "bidi\u202e"]
)
def test_player_ids_must_be_printable_text(live_server: Launch, bad_id: str) -> None:
    server = live_server()
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.StartHand(_start(["ann", bad_id]), timeout=10)
        error: Any = caught.value
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field_violations(rpc_status.from_call(error))[0][0] == "players[1].id"
        # printable text of any script is fine, spaces included
        update = stub.StartHand(_start(["Zoë Ünal", "玩家 2", "o'neil-#3"]), timeout=10).hand
        assert [s.seats[i].player_id for i, s in enumerate(update.seats)] == [
            "Zoë Ünal",
            "玩家 2",
            "o'neil-#3",
        ]


def _reflect(channel: grpc.Channel, *requests: reflection_pb2.ServerReflectionRequest) -> list[Any]:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    return list(stub.ServerReflectionInfo(iter(requests), timeout=10))


def test_reflection_serves_the_public_api_only(live_server: Launch) -> None:
    server = live_server()
    with server.channel() as channel:
        listed, public, internal, by_name = _reflect(
            channel,
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(
                file_containing_symbol="stud.v1.StudEngineService"
            ),
            reflection_pb2.ServerReflectionRequest(
                file_containing_symbol="stud.internal.v1.HandState"
            ),
            reflection_pb2.ServerReflectionRequest(file_by_filename="stud/internal/v1/state.proto"),
        )
    names = {s.name for s in listed.list_services_response.service}
    assert names == {
        "stud.v1.StudEngineService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
    }
    files = public.file_descriptor_response.file_descriptor_proto
    assert files and not any(b"stud.internal" in f for f in files)
    for refused in (internal, by_name):
        assert refused.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


def test_no_reflection_flag(live_server: Launch) -> None:
    server = live_server(args=["--no-reflection"])
    with server.channel() as channel:
        with pytest.raises(grpc.RpcError) as caught:
            _reflect(channel, reflection_pb2.ServerReflectionRequest(list_services=""))
        assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED  # type: ignore[attr-defined]


@pytest.fixture
def counted_channels(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Every channel ``grpc.insecure_channel`` makes: its events, "open" and "closed"."""
    channels: list[list[str]] = []
    real = grpc.insecure_channel

    def counting(target: str, *args: Any, **kwargs: Any) -> grpc.Channel:
        channel = real(target, *args, **kwargs)
        events = ["open"]
        channels.append(events)
        close = channel.close

        def closing() -> None:
            events.append("closed")
            close()

        channel.close = closing  # type: ignore[method-assign]
        return channel

    monkeypatch.setattr(grpc, "insecure_channel", counting)
    yield channels


def test_conformance_target_uses_one_channel_and_closes_it(
    live_server: Launch, counted_channels: list[list[str]]
) -> None:
    from studengine.conformance.__main__ import main

    server = live_server(allow_test_decks=True)
    counted_channels.clear()  # the harness's own health check
    vectors = sorted(CONFORMANCE_DIR.glob("*.json"))[:6]
    main([*map(str, vectors), "--target", server.target])  # some may be known failures
    assert counted_channels == [["open", "closed"]]


def test_conformance_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"
    done = subprocess.run(
        [CONFORMANCE, str(missing), "--target", "127.0.0.1:1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "no such file or directory" in done.stderr and str(missing) in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
