"""``stud-play``: a plain-text terminal table. You play Five Card Stud, Seven Card Stud, Razz
or Seven Card Stud Hi-Lo against bots,
hand after hand (the button moves, stacks carry over, busted bots are replaced and the game
ends when you bust), with one-key answers to line prompts.

Without ``--target`` it starts a ``stud-server --dev`` on a free loopback port for the
session and stops it when you leave (``q``, Ctrl-C, end of input, or ``--hands`` played)."""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.bots import BOT_KINDS, Bot, Decision, make_bot, think_sync
from studclients.client import (
    MAX_PLAYERS,
    VARIANT_NAMES,
    VARIANTS,
    Histories,
    chips_conserved,
    default_table,
)
from studclients.devserver import ServerProcess, start_dev_server
from studclients.engine import (
    Dial,
    EngineError,
    SyncEngine,
    act_request,
    add_dial_options,
    dial_from_args,
)
from studclients.narration import narrate

BOT_NAMES = ("Ada", "Bix", "Cal", "Dot", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo")
HERO = "you"
QUIT_KEYS = ("q", "quit", "exit")

# (key for the smaller size, key for the larger, label before and after the key letter)
_KEYS: dict[int, tuple[str, str, str, str]] = {
    pb.ACTION_TYPE_FOLD: ("f", "F", "", "old"),
    pb.ACTION_TYPE_CHECK: ("k", "K", "chec", ""),
    pb.ACTION_TYPE_CALL: ("c", "C", "", "all"),
    pb.ACTION_TYPE_BRING_IN: ("i", "I", "bring-", "n"),
    pb.ACTION_TYPE_COMPLETE: ("m", "M", "co", "plete to"),
    pb.ACTION_TYPE_BET: ("b", "B", "", "et"),
    pb.ACTION_TYPE_RAISE: ("r", "R", "", "aise to"),
}


@dataclass
class Option:
    key: str
    label: str
    decision: Decision


def action_options(legal: Sequence[pb.LegalAction], round_bet: int) -> list[Option]:
    """One-key choices for the legal actions; of two sizes, the larger gets the capital key."""
    by_type: dict[pb.ActionType.ValueType, list[pb.LegalAction]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    options = []
    for kind, actions in by_type.items():
        small, big, before, after = _KEYS[kind]
        for index, action in enumerate(sorted(actions, key=lambda a: a.to)):
            key = small if index == 0 else big
            to = action.to if action.HasField("to") else None
            label = f"{before}[{key}]{after}"
            if kind == pb.ACTION_TYPE_CALL and to is not None:
                label += f" {to - round_bet}"
            elif to is not None:
                label += f" {to}"
            options.append(Option(key, label, Decision(kind, to)))
    return options


@dataclass
class Chair:
    """Someone at the table: you (no bot) or a bot, with the stack carried between hands."""

    name: str
    stack: int
    bot: Bot | None = None

    @property
    def label(self) -> str:
        return self.name if self.bot is None else f"{self.name} ({self.bot.kind})"


def format_cards(info: pb.SeatInfo) -> str:
    """Every card in dealing order: ``##`` hidden, ``[Ah]`` a down card you can see."""
    down = set(info.down_cards)
    out = []
    for card in info.cards:
        if not card:
            out.append("##")
        elif card in down:
            out.append(f"[{card}]")
        else:
            out.append(card)
    return " ".join(out)


class Game:
    """The session: the chairs, the button, the hands played."""

    def __init__(
        self,
        engine: SyncEngine,
        args: argparse.Namespace,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.engine = engine
        self.args = args
        self.read = read
        self.write = write
        self.variant = VARIANTS[args.variant]
        self.table = default_table(args.ante, args.bring_in, args.small_bet)
        self.table.rake_percent_bp = args.rake_bp  # R-RAKE (0: none)
        self.table.rake_cap = args.rake_cap
        self.table.all_in_face_up = args.all_in_face_up  # R-ALL-IN-FACE-UP (off: cash game)
        self.histories = Histories.from_args(args)
        self.rng = random.Random(args.seed)
        kinds = [k.strip() for k in args.bots.split(",") if k.strip()]
        self.kinds = kinds or ["station"]
        self.next_bot = 0
        self.chairs = [Chair(HERO, args.stack)]
        for _ in range(args.players - 1):
            self.chairs.append(self._new_bot())
        self.button = self.rng.randrange(len(self.chairs))
        self.hands = 0

    def _new_bot(self) -> Chair:
        index = self.next_bot
        self.next_bot += 1
        kind = self.kinds[index % len(self.kinds)]
        name = BOT_NAMES[index % len(BOT_NAMES)]
        if index >= len(BOT_NAMES):
            name += str(index // len(BOT_NAMES) + 1)
        bot = make_bot(kind, random.Random(self.rng.getrandbits(64)))
        return Chair(name, self.args.stack, bot)

    # ---- the session -------------------------------------------------------------

    def run(self) -> int:
        while self.args.hands == 0 or self.hands < self.args.hands:
            if not self.play_hand():
                self.write("You leave the table.")
                return 0
            hero = self.chairs[0]
            if hero.stack == 0:
                self.write("You are out of chips: game over.")
                return 0
            for index, chair in enumerate(self.chairs):
                if chair.bot is not None and chair.stack == 0:
                    fresh = self._new_bot()
                    self.write(f"{chair.name} is busted; {fresh.label} takes the seat.")
                    self.chairs[index] = fresh
            self.button = (self.button + 1) % len(self.chairs)
            if self.args.hands and self.hands >= self.args.hands:
                break
            answer = self._ask("Press Enter for the next hand, q to quit > ")
            if answer is None or answer.strip().lower() in QUIT_KEYS:
                self.write("You leave the table.")
                return 0
        self.write(f"Played {self.hands} hand(s). Final stacks: {self._stacks()}")
        return 0

    def _ask(self, prompt: str) -> str | None:
        try:
            return self.read(prompt)
        except EOFError:
            self.write("")
            return None

    def _stacks(self) -> str:
        return ", ".join(f"{c.name} {c.stack}" for c in self.chairs)

    # ---- one hand ----------------------------------------------------------------

    def play_hand(self) -> bool:
        """Play one hand to the end; False when you quit in the middle."""
        self.hands += 1
        start = [c.stack for c in self.chairs]
        request = pb.StartHandRequest(
            variant=self.variant,
            table=self.table,
            players=[pb.Player(id=c.name, stack=c.stack) for c in self.chairs],
            button=self.button,
        )
        name = VARIANT_NAMES[self.variant]
        self.write("")
        self.write(f"=== Hand {self.hands}: {name}, button {self.chairs[self.button].name} ===")
        update = self.engine.start_hand(request)
        self.narrate(update)
        while not update.over:
            seat = update.to_act
            chair = self.chairs[seat]
            view = update.seats[seat]
            if chair.bot is None:
                self.show(update.seats[0])
                decision = self.prompt(update)
                if decision is None:
                    return False
            else:
                decision = think_sync(chair.bot, view, seat, update.legal_actions, self.engine)
            move = act_request(update.state, update.seq, seat, decision.action, decision.to)
            update = self.engine.act(move)
            self.narrate(update)
        for chair, stack in zip(self.chairs, update.result.stacks, strict=True):
            chair.stack = stack
        if not chips_conserved(start, update):
            out = sum(update.result.stacks) + update.result.rake
            self.write(f"WARNING: chips not conserved ({sum(start)} in, {out} out with the rake)")
        self.write(f"Hand {self.hands} over. Stacks: {self._stacks()}")
        if self.histories is not None:
            history = self.engine.get_hand_history(self.histories.request(update))
            self.write(f"History written to {self.histories.save(history)}")
        return True

    def prompt(self, update: pb.HandUpdate) -> Decision | None:
        """Ask for your move until a valid key; None to quit."""
        mine = update.seats[0].seats[0]
        options = action_options(update.legal_actions, mine.round_bet)
        keys = {o.key: o for o in options}
        line = "  ".join(o.label for o in options)
        while True:
            answer = self._ask(f"Your move: {line}   (q quits) > ")
            if answer is None:
                return None
            key = answer.strip()
            if key in keys:
                return keys[key].decision
            if key.lower() in QUIT_KEYS:
                return None
            if key in ("?", "t"):
                self.show(update.seats[0])
                continue
            shown = f"'{key}'" if key else "An empty line"
            choices = ", ".join(keys)
            self.write(f"{shown} is not a choice here: press one of {choices} (q quits, ? table)")

    # ---- what you see ------------------------------------------------------------

    def show(self, view: pb.View) -> None:
        """The board as your seat sees it."""
        community = f", community card {view.community_card}" if view.community_card else ""
        self.write(f"--- {view.street_name}: pot {view.pot}{community} ---")
        for info in view.seats:
            marks = ("D" if info.seat == view.button else " ") + (
                ">" if view.HasField("to_act") and info.seat == view.to_act else " "
            )
            label = self.chairs[info.seat].label
            if info.folded:
                state = "folded"
            else:
                state = format_cards(info) + ("  ALL IN" if info.all_in else "")
            bet = f"bet {info.round_bet}" if info.round_bet else ""
            self.write(f" {marks} {label:<16} stack {info.stack:>6}  {bet:<8} {state}")
        if view.HasField("to_act"):
            self.write(f"To act: {self.chairs[view.to_act].name}")

    def narrate(self, update: pb.HandUpdate) -> None:
        """Tell what happened since the last state, as your seat saw it."""
        for line in narrate(update.seats[0].events, [c.name for c in self.chairs], 0):
            self.write(line)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="stud-play",
        description="Play Five Card Stud, Seven Card Stud, Razz or Seven Card Stud Hi-Lo "
        "against bots at a plain-text table.",
    )
    p.add_argument(
        "--variant",
        choices=list(VARIANTS),
        default="seven",
        help="five, seven, razz or hilo (Seven Card Stud Hi-Lo, eight or better)",
    )
    p.add_argument("--players", type=int, default=4, help="players with you (default 4)")
    p.add_argument("--stack", type=int, default=1000, help="starting stacks (default 1000)")
    p.add_argument("--ante", type=int, default=5)
    p.add_argument("--bring-in", type=int, default=10)
    p.add_argument("--small-bet", type=int, default=20, help="the big bet is twice this")
    p.add_argument("--rake-bp", type=int, default=0, help="rake, basis points of the pot")
    p.add_argument("--rake-cap", type=int, default=0, help="most rake a hand (0: no cap)")
    p.add_argument(
        "--all-in-face-up",
        action="store_true",
        help="table the hands once a player is all-in and the betting is over (tournaments)",
    )
    p.add_argument(
        "--bots",
        default="equity,station,random",
        help=f"bot kinds, seated in turn (from {', '.join(BOT_KINDS)}; default %(default)s)",
    )
    p.add_argument("--seed", type=int, default=None, help="seed for the bots and the button")
    p.add_argument("--hands", type=int, default=0, help="stop after N hands (0: until you quit)")
    add_dial_options(p, default="start a stud-server --dev for the session")
    Histories.add_options(p, default_audience="players")
    return p


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    most = MAX_PLAYERS[VARIANTS[args.variant]]
    if not 2 <= args.players <= most:
        name = VARIANT_NAMES[VARIANTS[args.variant]]
        parser.error(f"--players: {name} seats 2 to {most} players")
    for kind in args.bots.split(","):
        if kind.strip() and kind.strip() not in BOT_KINDS:
            parser.error(f"--bots: unknown bot {kind!r} (choose from {', '.join(BOT_KINDS)})")
    sys.exit(run(args, dial_from_args(parser, args)))


def run(args: argparse.Namespace, dial: Dial | None = None) -> int:
    """Play the session against ``dial`` (None: a stud-server --dev started for it)."""
    server: ServerProcess | None = None
    code = 0
    try:
        if dial is None:
            server = start_dev_server()
            dial = Dial((server.target,))
            print(
                f"Started stud-server --dev (pid {server.pid}) on {server.target} for this session."
            )
        with SyncEngine(dial) as engine:
            code = Game(engine, args).run()
    except KeyboardInterrupt:
        print("\nInterrupted: you leave the table.")
        code = 130
    except EngineError as error:
        print(f"stud-play: the server answered {error.code} to {error.method}: {error.message}")
        code = 1
    except RuntimeError as error:
        print(f"stud-play: {error}")
        code = 1
    finally:
        if server is not None:
            server.stop()
            print(f"Stopped stud-server (pid {server.pid}).")
    return code


if __name__ == "__main__":
    main()
