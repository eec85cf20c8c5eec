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

import grpc
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc

from studclients.bots import (
    BOT_KINDS,
    Bot,
    Decision,
    act_request,
    make_bot,
    strength_sync,
)
from studclients.client import (
    CALL_TIMEOUT,
    CHANNEL_OPTIONS,
    MAX_PLAYERS,
    VARIANT_NAMES,
    VARIANTS,
    add_history_options,
    chips_conserved,
    default_table,
    describe_action,
    history_request,
    save_history,
)
from studclients.devserver import ServerProcess, start_dev_server

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
        stub: pb_grpc.StudEngineServiceStub,
        args: argparse.Namespace,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.stub = stub
        self.args = args
        self.read = read
        self.write = write
        self.variant = VARIANTS[args.variant]
        self.table = default_table(args.ante, args.bring_in, args.small_bet)
        self.table.rake_percent_bp = args.rake_bp  # R-RAKE (0: none)
        self.table.rake_cap = args.rake_cap
        self.table.all_in_face_up = args.all_in_face_up  # R-ALL-IN-FACE-UP (off: cash game)
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
        update = self.stub.StartHand(request, timeout=CALL_TIMEOUT).hand
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
                strength = strength_sync(
                    chair.bot,
                    view,
                    seat,
                    lambda q: self.stub.Equity(q, timeout=CALL_TIMEOUT),
                    lambda q: self.stub.Evaluate(q, timeout=CALL_TIMEOUT),
                )
                decision = chair.bot.decide(view, seat, update.legal_actions, strength)
            update = self.stub.Act(act_request(update, decision), timeout=CALL_TIMEOUT).hand
            self.narrate(update)
        for chair, stack in zip(self.chairs, update.result.stacks, strict=True):
            chair.stack = stack
        if not chips_conserved(start, update):
            out = sum(update.result.stacks)
            self.write(f"WARNING: chips not conserved ({sum(start)} in, {out} out)")
        self.write(f"Hand {self.hands} over. Stacks: {self._stacks()}")
        if self.args.history_dir is not None:
            asked = history_request(update, self.args.history_audience)
            history = self.stub.GetHandHistory(asked, timeout=CALL_TIMEOUT)
            self.write(f"History written to {save_history(self.args.history_dir, history)}")
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
        view = update.seats[0]
        names = [c.name for c in self.chairs]
        antes = [e.ante_posted for e in view.events if e.HasField("ante_posted")]
        if antes:
            total = sum(a.amount for a in antes)
            self.write(f"Antes: {total} from {len(antes)} players.")
        dealt: list[str] = []
        down: list[str] = []
        shown_any = False
        for event in view.events:
            kind = event.WhichOneof("kind")
            if kind == "card_dealt":
                card = event.card_dealt
                if card.face_up:
                    who = names[card.seat] if card.HasField("seat") else "community card"
                    dealt.append(f"{who} {card.card}")
                elif card.HasField("seat") and card.seat == 0 and card.card:
                    down.append(card.card)
                elif card.HasField("seat") and card.card:  # to a hand tabled: seen by all
                    dealt.append(f"{names[card.seat]} [{card.card}]")
                continue
            if dealt or down:
                self._dealt(dealt, down)
                dealt, down = [], []
            if kind == "street_started":
                started = event.street_started
                first = ""
                if started.HasField("first_to_act"):
                    opener = started.first_to_act
                    first = f" ({names[opener]} act{'' if opener == 0 else 's'} first)"
                elif not started.betting:
                    first = " (no betting: dealt out)"
                self.write(f"*** {started.name.upper()} ***{first}")
            elif kind == "action_taken":
                taken = event.action_taken
                self.write(describe_action(taken, names[taken.seat], you=taken.seat == 0))
            elif kind == "uncalled_returned":
                back = event.uncalled_returned
                self.write(f"{back.amount} uncalled returned to {names[back.seat]}")
            elif kind == "hand_shown":
                if not shown_any:
                    self.write("*** SHOWDOWN ***")
                    shown_any = True
                hand = event.hand_shown
                verb = "show" if hand.seat == 0 else "shows"
                low = ""
                if hand.low_description:  # Hi-Lo: the qualifying low too
                    low = f" and {hand.low_description} ({' '.join(hand.low_best_five)})"
                self.write(
                    f"{names[hand.seat]} {verb} {' '.join(hand.cards)}: {hand.description} "
                    f"(best five {' '.join(hand.best_five)}){low}"
                )
            elif kind == "hands_tabled":  # R-ALL-IN-FACE-UP: every hand still in, face up
                self.write("*** ALL IN: HANDS FACE UP ***")
                for tabled in event.hands_tabled.hands:
                    self.write(f"{names[tabled.seat]}: {' '.join(tabled.cards)}")
            elif kind == "rake_taken":
                self.write(f"The house takes {event.rake_taken.amount} rake")
            elif kind == "hand_mucked":
                mucked = event.hand_mucked.seat
                self.write(f"{names[mucked]} muck{'' if mucked == 0 else 's'}")
            elif kind == "pot_awarded":
                self.write(self._award(event.pot_awarded, names))
        if dealt or down:
            self._dealt(dealt, down)

    def _dealt(self, up: Sequence[str], down: Sequence[str]) -> None:
        parts = []
        if down:
            parts.append(f"you get {' '.join(down)} face down")
        if up:
            parts.append("face up: " + ", ".join(up))
        self.write("Dealt: " + "; ".join(parts))

    @staticmethod
    def _award(award: pb.PotAwarded, names: Sequence[str]) -> str:
        pot = "the main pot" if award.pot == 0 else f"side pot {award.pot}"
        why = f"with {award.description}" if award.description else "(everyone else folded)"
        if award.low_winners:  # Hi-Lo: a high half and a low half (R-HILO-SPLIT)
            high = _shares(award.winners, award.shares, names)
            low = _shares(award.low_winners, award.low_shares, names)
            return (
                f"Split {pot} of {award.amount}: high half {high} {why}; "
                f"low half {low} with {award.low_description}"
            )
        if len(award.winners) == 1:
            winner = award.winners[0]
            verb = "win" if winner == 0 else "wins"
            return f"{names[winner]} {verb} {award.amount} from {pot} {why}"
        return (
            f"Split {pot} of {award.amount} ({_shares(award.winners, award.shares, names)}) {why}"
        )


def _shares(winners: Sequence[int], shares: Sequence[int], names: Sequence[str]) -> str:
    """``"Ada 12, Bix 11"``."""
    return ", ".join(f"{names[w]} {s}" for w, s in zip(winners, shares, strict=True))


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
    p.add_argument("--target", default=None, help="HOST:PORT of a server (default: start one)")
    add_history_options(p, default_audience="players")
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
    sys.exit(run(args))


def run(args: argparse.Namespace) -> int:
    server: ServerProcess | None = None
    code = 0
    try:
        target = args.target
        if target is None:
            server = start_dev_server()
            target = server.target
            print(f"Started stud-server --dev (pid {server.pid}) on {target} for this session.")
        with grpc.insecure_channel(target, options=CHANNEL_OPTIONS) as channel:
            code = Game(pb_grpc.StudEngineServiceStub(channel), args).run()
    except KeyboardInterrupt:
        print("\nInterrupted: you leave the table.")
        code = 130
    except grpc.RpcError as error:
        call: grpc.Call = error  # type: ignore[assignment]
        print(f"stud-play: the server answered {call.code().name}: {call.details()}")
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
