"""Hand histories over real servers: GetHandHistory from a live stud-server (refused for a
hand not over, both renderings of a finished one), and stud-play / stud-load
``--history-dir`` writing one valid PHH file per finished hand, which ``stud-replay``
plays back through the engine."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.engine import Dial, SyncEngine
from support.api_helpers import random_act, random_start
from support.paths import REPO
from support.server_harness import LiveServer

BIN = Path(sys.executable).parent
STUD_REPLAY = str(BIN / "stud-replay")


def replay_dir(directory: Path) -> str:
    files = sorted(str(p) for p in directory.glob("*.phh"))
    assert files
    done = subprocess.run([STUD_REPLAY, *files], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(files)} of {len(files)} hands ok" in done.stdout
    return done.stdout


def test_get_hand_history_over_a_live_server(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    rng = random.Random(4)
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        update = stub.StartHand(random_start(rng)).hand
        with pytest.raises(grpc.RpcError) as refused:
            stub.GetHandHistory(pb.GetHandHistoryRequest(state=update.state))
        call: grpc.Call = refused.value  # type: ignore[assignment]
        assert call.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "not over" in (call.details() or "")
        while not update.over:
            update = stub.Act(random_act(rng, update)).hand
        players = stub.GetHandHistory(pb.GetHandHistoryRequest(state=update.state))
        audit = stub.GetHandHistory(
            pb.GetHandHistoryRequest(state=update.state, audience=pb.HISTORY_AUDIENCE_AUDIT)
        )
    assert players.audience == pb.HISTORY_AUDIENCE_PLAYERS and players.hand_id == update.hand_id
    fields = tomllib.loads(audit.phh)
    assert fields["_deck"] == "".join(update.reveal.deck)
    assert sorted(fields["finishing_stacks"]) == sorted(update.result.stacks)
    assert "_deck" not in tomllib.loads(players.phh)


def test_stud_load_writes_a_history_per_hand(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    server = live_server()
    out = tmp_path / "histories"
    done = subprocess.run(
        [str(BIN / "stud-load"), "--target", server.target, "--hands", "12", "--tables", "3",
         "--variant", "mixed", "--quiet", "--json", "--history-dir", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"histories_written": 12' in done.stdout
    assert len(list(out.glob("*.phh"))) == 12
    assert all('_audience = "audit"' in p.read_text() for p in out.glob("*.phh"))
    replay_dir(out)


def test_stud_play_writes_a_history_per_hand(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    from studclients.play import Game, build_parser

    server = live_server()
    out = tmp_path / "played"
    args = build_parser().parse_args(
        ["--players", "3", "--bots", "random", "--seed", "3", "--hands", "4",
         "--history-dir", str(out)]
    )  # fmt: skip
    said: list[str] = []

    def read(prompt: str) -> str:  # check, else call, else bring in; Enter between hands
        for pattern, key in ((r"chec\[k\]", "k"), (r"\[c\]all", "c"), (r"bring-\[i\]n", "i")):
            if re.search(pattern, prompt):
                return key
        return ""

    with SyncEngine(Dial((server.target,))) as engine:
        game = Game(engine, args, read=read, write=said.append)
        assert game.run() == 0
    written = [line for line in said if line.startswith("History written to ")]
    assert len(written) == game.hands == len(list(out.glob("*.phh")))
    assert all('_audience = "players"' in p.read_text() for p in out.glob("*.phh"))
    replay_dir(out)
