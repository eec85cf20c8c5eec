"""Hand histories in PHH: the writer's two renderings, the round trip through the reader
and ``stud-replay`` for every variant and short stacks, R-MUCK in the players' history,
and the clear errors of malformed or illegal files."""

from __future__ import annotations

import random
import tomllib
from pathlib import Path

import pytest
from studengine.cards import format_card
from studengine.history import cli
from studengine.history.codes import EXTENSION_CODES, PHH_CODES, VARIANTS_BY_CODE
from studengine.history.phh import Audience, dealing_order, phh_fields, render
from studengine.history.reader import PhhError, parse, replay
from studengine.rules.hand import Hand
from studengine.rules.types import OddChip, Table, Variant
from studengine.rules.visibility import revealed_seats
from support.history_helpers import meta_for, play_random_hand, random_players
from support.stud_helpers import random_table

VARIANTS = list(Variant)


def test_every_variant_has_one_phh_code() -> None:
    assert set(PHH_CODES) == set(Variant)
    assert PHH_CODES[Variant.SEVEN_CARD_STUD] == "F7S"
    assert PHH_CODES[Variant.FIVE_CARD_STUD] in EXTENSION_CODES
    for name, code in (("RAZZ", "FR"), ("SEVEN_CARD_STUD_HI_LO", "F7S/8")):
        if name in Variant.__members__:
            assert VARIANTS_BY_CODE[code] is Variant[name]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: PHH_CODES[v])
def test_round_trip_export_replay_same_result(variant: Variant, tmp_path: Path) -> None:
    """Export, read back, play through the engine: every action legal and the same
    finishing stacks and rake, in both renderings, with short stacks (all-ins, side pots)
    and any table option valid for the game, rake included (R-RAKE); every tenth through
    ``stud-replay`` itself."""
    rng = random.Random(f"round trip {variant.value}")
    files = []
    raked = 0
    for index in range(300):
        players = random_players(rng, variant, most=10)
        stacks = [rng.randint(1, 150) if rng.random() < 0.6 else 1000 for _ in range(players)]
        hand = play_random_hand(rng, variant, random_table(rng, variant), stacks)
        assert hand.result is not None
        for audience in Audience:
            text = render(hand, meta_for(hand, index), audience)
            played = replay(parse(text))
            assert played.stacks_agree, text
            assert played.stacks == [hand.stacks[s] for s in dealing_order(hand)]
            assert played.actions == len(hand.moves)
            assert played.rake == hand.result.rake  # R-RAKE: the table's options read back
        raked += hand.result.rake > 0
        if index % 10 == 0:
            path = tmp_path / f"{index}.phh"
            path.write_text(text)
            files.append(str(path))
    assert cli.main(files) == 0
    assert raked > 50


def test_replay_counts_actions_and_showdown_lines() -> None:
    hand = play_random_hand(
        random.Random(1), Variant.SEVEN_CARD_STUD, Table(5, 10, 20, 40), [500] * 3
    )
    text = render(hand, meta_for(hand, 1), Audience.AUDIT)
    lines = tomllib.loads(text)["actions"]
    betting = [line for line in lines if not line.startswith("d ") and " sm" not in line]
    assert replay(parse(text)).actions == len(betting) == len(hand.moves)


def hidden_down_cards(hand: Hand) -> set[str]:
    """The down cards of every hand the showdown did not reveal (mucked or folded)."""
    revealed = revealed_seats(hand)
    return {
        format_card(card)
        for seat in range(hand.players)
        if seat not in revealed
        for card in hand.down_cards(seat)
    }


def dealt_cards(text: str) -> list[str]:
    """Every card named by a deal or showdown line of a history ('??' included)."""
    cards = []
    for line in tomllib.loads(text)["actions"]:
        words = line.split("#")[0].split()
        if words[:1] == ["d"] or words[1:2] == ["sm"]:
            run = words[-1] if len(words) > 2 or words[:1] == ["d"] else ""
            cards += [run[i : i + 2] for i in range(0, len(run), 2)]
    return cards


def pot_winners(hand: Hand) -> set[int]:
    """Seats that won or tied any half of any pot (R-MUCK, R-HILO-MUCK)."""
    assert hand.result is not None
    return {seat for pot in hand.result.pots for seat in (*pot.winners, *pot.low_winners)}


def low_only_winners(hand: Hand) -> set[int]:
    assert hand.result is not None
    high = {seat for pot in hand.result.pots for seat in pot.winners}
    return pot_winners(hand) - high


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: PHH_CODES[v])
def test_players_history_never_shows_a_mucked_down_card(variant: Variant) -> None:
    """R-MUCK (R-HILO-MUCK in Stud Hi-Lo): over random hands with showdowns, the players'
    history names no down card of a hand the showdown did not reveal (as '??' instead),
    while every hand that won or tied any half of any pot is shown with all its cards
    (``sm``); the audit has every card; and neither shows what the engine's views do not
    (the same visibility rule)."""
    rng = random.Random(f"muck {variant.value}")
    mucked_hands = low_only_shown = 0
    for index in range(400):
        players = random_players(rng, variant)
        table = random_table(rng, variant)
        hand = play_random_hand(rng, variant, table, [1000] * players, 0.05)
        hidden = hidden_down_cards(hand)
        assert hand.result is not None
        if hand.result.shown and hidden:
            mucked_hands += 1
        players_text = render(hand, meta_for(hand, index), Audience.PLAYERS)
        shown_cards = dealt_cards(players_text)
        assert not hidden & set(shown_cards), players_text
        assert shown_cards.count("??") == len(hidden)
        assert "_deck" not in tomllib.loads(players_text) and "_salt" not in players_text
        if hand.result.shown:  # a showdown: every winner of a half is revealed, all cards
            actions = tomllib.loads(players_text)["actions"]
            player = {seat: f"p{i + 1}" for i, seat in enumerate(dealing_order(hand))}
            for seat in pot_winners(hand):
                cards = "".join(map(format_card, hand.cards[seat]))
                assert f"{player[seat]} sm {cards}" in actions, players_text
            low_only_shown += bool(low_only_winners(hand))
        audit = dealt_cards(render(hand, meta_for(hand, index), Audience.AUDIT))
        assert hidden <= set(audit) and "??" not in audit
    assert mucked_hands > 100
    if variant is Variant.SEVEN_CARD_STUD_HI_LO:  # R-HILO-MUCK was exercised
        assert low_only_shown > 20


def test_the_fields_of_a_history() -> None:
    rng = random.Random(5)
    table = Table(5, 10, 20, 40, max_bets=3, odd_chip=OddChip.HIGH_CARD_BY_SUIT)
    hand = play_random_hand(rng, Variant.SEVEN_CARD_STUD, table, [300, 400, 500, 600])
    meta = meta_for(hand, 7)
    fields = phh_fields(hand, meta, Audience.AUDIT)
    order = dealing_order(hand)
    assert order[0] == (hand.button + 1) % 4 and order[-1] == hand.button
    assert fields["variant"] == "F7S"
    assert fields["antes"] == [5] * 4
    assert (fields["bring_in"], fields["small_bet"], fields["big_bet"]) == (10, 20, 40)
    assert fields["starting_stacks"] == [[300, 400, 500, 600][s] for s in order]
    assert fields["players"] == [meta.player_ids[s] for s in order]
    assert fields["seats"] == [s + 1 for s in order]
    assert fields["hand"] == meta.hand_id
    assert fields["_button"] == hand.button + 1
    assert fields["_max_bets"] == 3 and fields["_odd_chip"] == "HIGH_CARD_BY_SUIT"
    assert fields["_deck_commitment"] == meta.deck_commitment
    assert fields["_salt"] == meta.salt
    assert fields["_deck"] == "".join(map(format_card, hand.deck))
    assert fields["_rake"] == 0
    players = phh_fields(hand, meta, Audience.PLAYERS)
    assert "_salt" not in players and "_deck" not in players
    assert players["_deck_commitment"] == meta.deck_commitment


def test_five_card_stud_is_the_documented_extension() -> None:
    hand = play_random_hand(random.Random(2), Variant.FIVE_CARD_STUD, Table(1, 2, 10, 20), [99] * 3)
    fields = phh_fields(hand, meta_for(hand, 2), Audience.AUDIT)
    assert fields["variant"] == "F5S"
    assert fields["_streets"][0] == {"name": "second card", "cards": "du", "bet": "small"}
    assert [s["bet"] for s in fields["_streets"]] == ["small", "small", "big", "big"]
    guide = (Path(__file__).parents[2] / "docs" / "histories.md").read_text()
    assert "F5S" in guide and "_streets" in guide


# ---- malformed and illegal files ---------------------------------------------------

GOOD = """\
variant = "F7S"
antes = [5, 5, 5]
bring_in = 10
small_bet = 20
big_bet = 40
starting_stacks = [1000, 1000, 1000]
actions = [
    "d dh p1 AsKs2c",
    "d dh p2 QhQd3c",
    "d dh p3 JhTh9h",
    "p1 pb",
    "p2 cbr 20",
    "p3 f",
    "p1 f",
]
finishing_stacks = [985, 1020, 995]
"""


def test_the_sample_replays() -> None:
    played = replay(parse(GOOD))
    assert played.stacks_agree and played.stacks == [985, 1020, 995]


@pytest.mark.parametrize(
    ("change", "line", "says"),
    [
        (("p2 cbr 20", "p2 cbr 30"), 12, "no bet or raise to 30"),
        (("p3 f", "p1 f"), 13, "seat 0 is not to act"),
        (("p1 pb", "p1 cc"), 11, "CALL is not allowed now"),
        (("p2 cbr 20", "p2 xx"), 12, "'p2 xx' is not a PHH action"),
        (("p3 f", "p9 f"), 13, "'p9' is not a player"),
        (('"d dh p3 JhTh9h"', '"d dh p3 JhTh9"'), 10, "not a run of two-character cards"),
        (('"d dh p3 JhTh9h"', '"d dh p3 JhTh9x"'), 10, "not a card"),
        (('"d dh p3 JhTh9h"', '"d dh p3 JhTh2c"'), 10, "2c is dealt twice"),
        (('    "p1 f",\n', ""), 13, "the history ends before the hand does"),
        (("bring_in = 10", "bring_in = ten"), 3, "not TOML"),
        (("big_bet = 40", 'big_bet = "40"'), 5, "big_bet must be int"),
        (('variant = "F7S"', 'variant = "NT"'), 1, "variant 'NT' is not played here"),
        (("antes = [5, 5, 5]", "antes = [5, 5, 1]"), 2, "one ante, the same for every player"),
        (("bring_in = 10", "bring_in = 30"), 3, "table.bring_in"),
        (("[1000, 1000, 1000]", "[1000, 0, 1000]"), 6, "players[1].stack"),
    ],
)
def test_a_bad_file_gets_an_error_naming_the_line(
    change: tuple[str, str],
    line: int,
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = GOOD.replace(*change)
    assert text != GOOD
    with pytest.raises(PhhError) as refused:
        replay(parse(text))
    assert refused.value.line == line, str(refused.value)
    assert str(refused.value).startswith(f"line {line}: ") and says in str(refused.value)
    path = tmp_path / "bad.phh"
    path.write_text(text)
    assert cli.main([str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: ERROR line {line}: " in out and "Traceback" not in out


def test_a_missing_field_is_named() -> None:
    with pytest.raises(PhhError, match="missing field 'bring_in'"):
        parse(GOOD.replace("bring_in = 10\n", ""))


def test_stud_replay_reports_different_stacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.phh", tmp_path / "bad.phh"
    good.write_text(GOOD)
    bad.write_text(GOOD.replace("[985, 1020, 995]", "[985, 1000, 1015]"))
    assert cli.main([str(good), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{good}: ok" in out
    assert f"{bad}: DIFFERENT" in out and "[985, 1000, 1015]" in out and "[985, 1020, 995]" in out
    assert "1 of 2 hands ok, 1 not" in out


def test_hidden_cards_replay_when_the_showdown_does_not_need_them() -> None:
    """A history with unknown down cards (another tool's, or our players' rendering)
    plays: hidden hands that lost are filled with cards that lose again."""
    text = GOOD.replace("AsKs2c", "????2c").replace("JhTh9h", "????9h")
    assert replay(parse(text)).stacks_agree


def test_the_community_card_round_trips() -> None:
    """R-COMMUNITY-CARD: eight players to seventh street share one up card, written as a
    board deal (``d db``), and the history plays back the same."""
    rng = random.Random(12)
    table = Table(5, 10, 20, 40)
    found = 0
    for index in range(40):
        hand = play_random_hand(rng, Variant.SEVEN_CARD_STUD, table, [100_000] * 8, 0.01)
        if hand.community is None:
            continue
        found += 1
        for audience in Audience:
            text = render(hand, meta_for(hand, index), audience)
            assert f'"d db {format_card(hand.community)}"' in text
            assert replay(parse(text)).stacks_agree
    assert found >= 5


# Up cards Ac (p1), 3c (p2), 9h (p3): Razz counts the ace low, so the 9 is the highest up
# card (R-RAZZ-BRING-IN); Stud Hi-Lo counts it high, so the 3 is the lowest (R-HILO-BRING-IN).
BRING_IN = """\
variant = "{code}"
antes = [5, 5, 5]
bring_in = 10
small_bet = 20
big_bet = 40
starting_stacks = [1000, 1000, 1000]
actions = [
    "d dh p1 KsQsAc",
    "d dh p2 QhQd3c",
    "d dh p3 JhTh9h",
    "p{first} pb",
    "p{second} cbr 20",
    "p{third} f",
    "p{first} f",
]
"""


def history_brought_in_by(code: str, first: int) -> str:
    """The sample with ``p{first}`` bringing in, the next player completing, both others
    folding (players act in turn to the left: p1, p2, p3, p1, ...)."""
    second, third = first % 3 + 1, (first + 1) % 3 + 1
    return BRING_IN.format(code=code, first=first, second=second, third=third)


@pytest.mark.parametrize(
    ("code", "brings_in", "wrong", "finishing"),
    [
        ("FR", 3, 2, [1020, 995, 985]),  # R-RAZZ-BRING-IN
        ("F7S/8", 2, 3, [995, 985, 1020]),  # R-HILO-BRING-IN
    ],
)
def test_the_bring_in_of_razz_and_hi_lo(
    code: str, brings_in: int, wrong: int, finishing: list[int]
) -> None:
    """R-RAZZ-BRING-IN and R-HILO-BRING-IN: the history's bring-in plays when it is the
    rule's player and is refused, naming the line, when it is not."""
    text = history_brought_in_by(code, brings_in)
    played = replay(parse(text + f"finishing_stacks = {finishing}\n"))
    assert played.stacks_agree and played.stacks == finishing
    bad = history_brought_in_by(code, wrong)
    with pytest.raises(PhhError) as refused:
        replay(parse(bad))
    assert refused.value.line == 11 and f"'p{wrong} pb'" in str(refused.value)


def raked_hand(variant: Variant) -> Hand:
    rng = random.Random(f"raked {variant.value}")
    table = Table(5, 10, 20, 40, open_pair_big_bet=False, rake_percent_bp=500, rake_cap=30)
    while True:
        hand = play_random_hand(rng, variant, table, [1000] * 4, 0.0)
        assert hand.result is not None
        if hand.result.rake:
            return hand


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: PHH_CODES[v])
def test_the_rake_is_written_and_checked(
    variant: Variant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R-RAKE: the rake taken is written as ``_rake`` (PHH has no rake field) with the
    table's ``_rake_percent_bp`` and ``_rake_cap``; the replay takes the same rake, and
    ``stud-replay`` reports a history whose rake or rake options differ."""
    hand = raked_hand(variant)
    assert hand.result is not None
    text = render(hand, meta_for(hand, 3), Audience.PLAYERS)
    fields = tomllib.loads(text)
    assert "rake" not in fields and fields["_rake"] == hand.result.rake > 0
    assert (fields["_rake_percent_bp"], fields["_rake_cap"]) == (500, 30)
    assert sum(fields["starting_stacks"]) - sum(fields["finishing_stacks"]) == fields["_rake"]
    played = replay(parse(text))
    assert played.stacks_agree and played.rake == hand.result.rake
    rake = f"_rake = {hand.result.rake}\n"
    wrong_rake = text.replace(rake, f"_rake = {hand.result.rake + 1}\n")
    no_rake = text.replace("_rake_percent_bp = 500\n", "")
    assert rake in text and wrong_rake != text and no_rake != text
    paths = []
    for name, changed in (("wrong_rake", wrong_rake), ("no_rake", no_rake)):
        assert replay(parse(changed)).stacks_agree is False
        paths.append(tmp_path / f"{name}.phh")
        paths[-1].write_text(changed)
    assert cli.main([str(path) for path in paths]) == 1
    out = capsys.readouterr().out
    assert out.count("DIFFERENT") == 2
    assert f"rake: the history says {hand.result.rake + 1}, the engine {hand.result.rake}" in out
