"""The story of a hand in words, from one seat's own (filtered) events: the one narration
stud-play prints and stud-table sends to a browser. The viewer is "you" (verbs agree:
"you call 20", "Bix calls 20"); a spectator (no viewer) reads every seat by name."""

from __future__ import annotations

from collections.abc import Sequence

from stud_api.stud.v1 import stud_engine_pb2 as pb

YOU = "you"
HIDDEN = "1 face down"


class Voice:
    """Names the seats: the viewer as "you" with the verb's plain form, the others by name
    with its -s form."""

    def __init__(self, names: Sequence[str], viewer: int | None) -> None:
        self.names = list(names)
        self.viewer = viewer

    def who(self, seat: int) -> str:
        return YOU if seat == self.viewer else self.names[seat]

    def does(self, seat: int, verb: str) -> str:
        """``"you fold"``, ``"Ada folds"``."""
        return f"{self.who(seat)} {verb if seat == self.viewer else verb + 's'}"

    def do(self, seats: Sequence[int], verb: str) -> str:
        """``"Ada wins"``, ``"you and Ada win"``."""
        if len(seats) == 1:
            return self.does(seats[0], verb)
        return f"{' and '.join(self.who(s) for s in seats)} {verb}"


def describe_action(taken: pb.ActionTaken, voice: Voice) -> str:
    """``"Bix raises to 40"``, ``"you call 20 (all in)"``, ``"Ada folds (clock ran out)"``."""
    seat, kind = taken.seat, taken.type
    if kind == pb.ACTION_TYPE_FOLD:
        text = voice.does(seat, "fold")
    elif kind == pb.ACTION_TYPE_CHECK:
        text = voice.does(seat, "check")
    elif kind == pb.ACTION_TYPE_CALL:
        text = f"{voice.does(seat, 'call')} {taken.amount}"
    elif kind == pb.ACTION_TYPE_BRING_IN:
        text = f"{voice.does(seat, 'bring')} in for {taken.to}"
    elif kind == pb.ACTION_TYPE_COMPLETE:
        text = f"{voice.does(seat, 'complete')} to {taken.to}"
    elif kind == pb.ACTION_TYPE_BET:
        text = f"{voice.does(seat, 'bet')} {taken.to}"
    elif kind == pb.ACTION_TYPE_RAISE:
        text = f"{voice.does(seat, 'raise')} to {taken.to}"
    else:
        text = voice.does(seat, "act")
    if taken.all_in:
        text += " (all in)"
    if taken.timeout:
        text += " (clock ran out)"
    return text


def award_text(pot: pb.PotAwarded, voice: Voice) -> str:
    """``"Ada wins 40 from the main pot with One Pair, Kings"``; a split pot with each
    share; a Hi-Lo pot half by half (R-HILO-SPLIT)."""
    label = "the main pot" if pot.pot == 0 else f"side pot {pot.pot}"
    why = f" with {pot.description}" if pot.description else " (everyone else folded)"
    if pot.low_winners:
        high = voice.do(pot.winners, "win")
        low = voice.do(pot.low_winners, "win")
        return (
            f"{high} the high half of {label}, {sum(pot.shares)},{why}; "
            f"{low} the low half, {sum(pot.low_shares)}, with {pot.low_description}"
        )
    if len(pot.winners) == 1:
        return f"{voice.does(pot.winners[0], 'win')} {pot.amount} from {label}{why}"
    shares = ", ".join(f"{voice.who(w)} {s}" for w, s in zip(pot.winners, pot.shares, strict=True))
    return f"{voice.do(pot.winners, 'split')} {label} of {pot.amount} ({shares}){why}"


def _cards_text(cards: Sequence[str]) -> str:
    """``["1 face down", "1 face down", "Ks"]`` -> ``"2 face down, Ks"``."""
    hidden = cards.count(HIDDEN)
    shown = [c for c in cards if c != HIDDEN]
    return ", ".join(([f"{hidden} face down"] if hidden else []) + shown)


def _capital(line: str) -> str:
    return line[:1].upper() + line[1:]


class _Story:
    """The lines so far; the cards of one deal and the antes are grouped into one line."""

    def __init__(self, voice: Voice) -> None:
        self.voice = voice
        self.lines: list[str] = []
        self.dealt: dict[int, list[str]] = {}
        self.antes: list[str] = []
        self.showdown = False

    def say(self, line: str) -> None:
        self.flush()
        self.lines.append(_capital(line))

    def flush(self) -> None:
        if self.antes:
            self.lines.append("Antes: " + ", ".join(self.antes))
            self.antes = []
        if self.dealt:
            who = self.voice.who
            parts = [f"{who(s)} {_cards_text(cards)}" for s, cards in self.dealt.items()]
            self.lines.append("Dealt: " + "; ".join(parts))
            self.dealt = {}

    def card(self, card: pb.CardDealt) -> None:
        if not card.HasField("seat"):
            self.say(f"community card: {card.card}")
            return
        text = HIDDEN if card.hidden or not card.card else card.card
        if text != HIDDEN and not card.face_up:
            text += " (down)"
        self.dealt.setdefault(card.seat, []).append(text)

    def ante(self, ante: pb.AntePosted) -> None:
        if self.dealt:
            self.flush()
        text = f"{self.voice.who(ante.seat)} {ante.amount}"
        self.antes.append(text + (" (all in)" if ante.all_in else ""))

    def street(self, street: pb.StreetStarted) -> None:
        text = street.name
        if street.HasField("first_to_act"):
            text += f": {self.voice.who(street.first_to_act)} to act"
        elif not street.betting:
            text += ": no betting"
        self.say(text)

    def tabled(self, tabled: pb.HandsTabled) -> None:
        """R-ALL-IN-FACE-UP: every hand still in turned face up, each with its cards."""
        self.say("all in: hands face up")
        for hand in tabled.hands:
            self.say(f"{self.voice.who(hand.seat)}: {' '.join(hand.cards)}")

    def shown(self, shown: pb.HandShown) -> None:
        if not self.showdown:
            self.say("showdown")
            self.showdown = True
        low = f" and {shown.low_description}" if shown.low_description else ""  # Hi-Lo
        cards = " ".join(shown.cards)
        self.say(f"{self.voice.does(shown.seat, 'show')} {cards}: {shown.description}{low}")


def narrate(events: Sequence[pb.Event], names: Sequence[str], viewer: int | None) -> list[str]:
    """One line per event as seat ``viewer`` saw it (None: a spectator), antes and the cards
    of one deal grouped in one line each."""
    voice = Voice(names, viewer)
    story = _Story(voice)
    for event in events:
        kind = event.WhichOneof("kind")
        if kind == "card_dealt":
            story.card(event.card_dealt)
        elif kind == "ante_posted":
            story.ante(event.ante_posted)
        elif kind == "street_started":
            story.street(event.street_started)
        elif kind == "action_taken":
            story.say(describe_action(event.action_taken, voice))
        elif kind == "uncalled_returned":
            back = event.uncalled_returned
            story.say(f"{back.amount} uncalled returned to {voice.who(back.seat)}")
        elif kind == "hands_tabled":
            story.tabled(event.hands_tabled)
        elif kind == "hand_shown":
            story.shown(event.hand_shown)
        elif kind == "hand_mucked":
            story.say(voice.does(event.hand_mucked.seat, "muck"))
        elif kind == "rake_taken":
            story.say(f"the house takes {event.rake_taken.amount} rake")
        elif kind == "pot_awarded":
            story.say(award_text(event.pot_awarded, voice))
        elif kind == "hand_ended":
            story.say("hand over")
    story.flush()
    return story.lines


__all__ = ["Voice", "award_text", "describe_action", "narrate"]
