"""stud-play driven by keystrokes in a pseudo-terminal against real servers: a full hand
with a bad key and a showdown, and leaving cleanly with q and with Ctrl-C."""

from __future__ import annotations

import itertools
import os
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest
from support.paths import REPO
from support.server_harness import LiveServer

STUD_PLAY = str(Path(sys.executable).parent / "stud-play")
PROMPT = r"Your move: (.*?)\(q quits\) > "
DESCRIPTION = (
    r"(High Card|One Pair|Pair|Two Pair|Three of a Kind|Straight|Flush|Full House"
    r"|Four of a Kind|Straight Flush|[2-9TJQKA](?:-[2-9TJQKA]){4} low)"
)


def _as_at_a_terminal() -> None:
    """In the child: Ctrl-C as a terminal's user has it. A test run started in the
    background (``cmd &`` in a script) ignores SIGINT, and an exec keeps that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def spawn(*args: str) -> pexpect.spawn:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    return pexpect.spawn(
        STUD_PLAY,
        list(args),
        cwd=str(REPO),
        env=env,
        encoding="utf-8",
        timeout=60,
        preexec_fn=_as_at_a_terminal,
    )


def passive_key(options: str) -> str:
    """Check, else call, else bring in: how a calling station plays."""
    for pattern, key in ((r"chec\[k\]", "k"), (r"\[c\]all", "c"), (r"bring-\[i\]n", "i")):
        if re.search(pattern, options):
            return key
    raise AssertionError(f"no passive choice in {options!r}")


def play_passively(child: pexpect.spawn, bad_key: bool) -> int:
    """Answer every prompt as a calling station; first press a bad key (when asked). The
    number of moves made."""
    moves = 0
    while child.expect([PROMPT, pexpect.EOF]) == 0:
        options = child.match.group(1)
        if bad_key:
            child.sendline("z")
            child.expect(r"'z' is not a choice here: press one of ([^(]*)\(q quits")
            assert passive_key(options) in child.match.group(1)
            bad_key = False
            child.expect(PROMPT)
        child.sendline(passive_key(options))
        moves += 1
    child.close()
    return moves


@pytest.mark.parametrize(
    ("variant", "players", "streets"),
    [("seven", 3, 5), ("five", 2, 4), ("razz", 3, 5), ("hilo", 3, 5)],
)
def test_full_hand_by_keystrokes_with_bad_key_and_showdown(
    live_server: Callable[..., LiveServer],
    tmp_path: Path,
    variant: str,
    players: int,
    streets: int,
) -> None:
    server = live_server()
    child = spawn(
        "--variant", variant, "--players", str(players), "--bots", "station", "--seed", "7",
        "--hands", "1", "--target", server.target,
    )  # fmt: skip
    log_path = tmp_path / "session.txt"
    with log_path.open("w") as log:
        child.logfile_read = log
        moves = play_passively(child, bad_key=True)
    session = log_path.read_text()
    assert child.exitstatus == 0, session
    assert "is not a choice here" in session
    assert moves >= streets  # a check or a call on every street
    assert "Traceback" not in session
    assert "## " in session  # the bots' down cards are hidden
    assert re.search(r"\[[2-9TJQKA][cdhs]\]", session)  # your own down cards are shown
    assert re.search(r"^Showdown\r?$", session, re.MULTILINE)
    assert re.search(rf"(Ada|Bix|You) shows? ([2-9TJQKA][cdhs] )+?\S\S: {DESCRIPTION}", session)
    assert re.search(
        rf"(Ada|Bix|You) wins? (\d+ from|the high half of) the main pot,? (\d+, )?with "
        rf"{DESCRIPTION}|(Ada|Bix|You)( and \w+)+ split the main pot",
        session,
    )
    final = re.search(r"Played 1 hand\(s\)\. Final stacks: ([^\r\n]*)", session)
    assert final, session
    stacks = [int(item.rsplit(" ", 1)[1]) for item in final.group(1).strip().split(", ")]
    assert len(stacks) == players and sum(stacks) == players * 1000


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.parametrize("leave", ["q", "ctrl-c"])
def test_leaving_stops_the_server_it_started(leave: str) -> None:
    child = spawn("--players", "4", "--seed", "1")
    child.expect(r"Started stud-server --dev \(pid (\d+)\) on 127\.0\.0\.1:(\d+)")
    pid = int(child.match.group(1))
    if child.expect([PROMPT, r"Press Enter for the next hand"]) == 1:
        child.sendline("")
        child.expect(PROMPT)
    if leave == "q":
        child.sendline("q")
        child.expect("You leave the table.")
    else:
        child.sendintr()
        child.expect("Interrupted: you leave the table.")
    child.expect(rf"Stopped stud-server \(pid {pid}\)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == (0 if leave == "q" else 130)
    assert "Traceback" not in (child.before or "")
    assert _gone(pid)


def test_hand_after_hand_button_moves_and_busted_bots_are_replaced(
    live_server: Callable[..., LiveServer],
) -> None:
    """The table itself (no terminal) with short stacks: the button moves every hand, a bot
    that busts is replaced by a fresh one, and the game ends when you bust or after --hands."""
    from studclients.engine import Dial, SyncEngine
    from studclients.play import Game, build_parser

    server = live_server()
    args = build_parser().parse_args(
        ["--players", "4", "--stack", "40", "--bots", "random", "--seed", "5", "--hands", "25"]
    )
    said: list[str] = []
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        if prompt.startswith("Press Enter"):
            return ""
        return passive_key(prompt)

    with SyncEngine(Dial((server.target,))) as engine:
        game = Game(engine, args, read=read, write=said.append)
        assert game.run() == 0
    text = "\n".join(said)
    buttons = re.findall(r"=== Hand (\d+): Seven Card Stud, button (\w+) ===", text)
    assert len(buttons) == game.hands >= 1
    for (_, first), (_, second) in itertools.pairwise(buttons):
        assert first != second  # the button moved on
    replaced = re.findall(r"(\w+) is busted; (\w+) \(random\) takes the seat\.", text)
    hero_out = "You are out of chips: game over." in text
    assert replaced or hero_out  # 40 chips against 5 antes and 10/20 bets do not last
    if not hero_out:  # every busted bot was replaced
        assert all(c.stack > 0 for c in game.chairs[1:])
    assert hero_out == (game.chairs[0].stack == 0)
    assert game.hands == 25 or hero_out
    assert "WARNING" not in text


def test_all_in_face_up_tables_the_hands_for_everyone_to_see(
    live_server: Callable[..., LiveServer],
) -> None:
    """``--all-in-face-up`` (R-ALL-IN-FACE-UP), short stacks: once a player is all-in and
    the betting is over, the session says so and shows every hand still in, then the
    bots' later down cards as they are dealt (``Kc (down)``, seen by all)."""
    from studclients.engine import Dial, SyncEngine
    from studclients.narration import YOU
    from studclients.play import BOT_NAMES, Game, build_parser

    server = live_server()
    args = build_parser().parse_args(
        ["--players", "4", "--stack", "40", "--bots", "random", "--seed", "3", "--hands", "25",
         "--all-in-face-up"]
    )  # fmt: skip
    said: list[str] = []

    def read(prompt: str) -> str:
        return "" if prompt.startswith("Press Enter") else passive_key(prompt)

    with SyncEngine(Dial((server.target,))) as engine:
        game = Game(engine, args, read=read, write=said.append)
        assert game.table.all_in_face_up
        assert game.run() == 0
    text = "\n".join(said)
    tablings = text.count("All in: hands face up")
    assert tablings >= 1, text
    names = "|".join((YOU.capitalize(), *BOT_NAMES))  # a replaced bot's name may carry a number
    shown = re.findall(rf"^(?:{names})\d*: ((?:[2-9TJQKA][cdhs] ?){{3,}})$", text, re.MULTILINE)
    assert len(shown) >= 2 * tablings, text  # every hand still in: two at least each time
    bots = "|".join(BOT_NAMES)
    down = rf"^Dealt: .*\b(?:{bots})\d* (?:[2-9TJQKA][cdhs], )*[2-9TJQKA][cdhs] \(down\)"
    assert re.search(down, text, re.MULTILINE), text  # a tabled bot's down card, seen
    assert "WARNING" not in text
