"""Seating a multi-table tournament: the opening draw, late entrants, and the moves that
balance tables and break them. Every draw comes from a seed the caller hands in (a
regulated room stores it and can show the draw again); nothing else is random.

The rule (TDA Tournament Rules, "Balancing Tables" and "Breaking Tables"; the TDA's
stud-only clause: "players are moved by position, the last seat to open at the short
table is the seat filled"; there is no big blind in stud to decide who moves):

- Balancing: when a table has two or more players fewer than the fullest, one player
  moves from the fullest table (ties: the highest-numbered, a procedure fixed in advance)
  to the short table (ties: the lowest-numbered). The seat filled is the last seat to
  open at the short table; the player who moves is the one in that same seat number at
  the fullest table, or else the next occupied seat after it (seat numbers rising, going
  round). Repeat until no table is two short.
- Breaking: when the players left fit on one table fewer, the highest-numbered table
  breaks; its players are drawn (seeded) one at a time into the empty seats, each to one
  of the tables with the fewest players (drawn among them), at a drawn empty seat. The
  last table standing is the final table.
- Only tables between hands give up players: a table in a hand is passed over until its
  hand ends. A moved player keeps their stack."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: table number -> seat number -> player
Tables = Mapping[int, Mapping[int, int]]


@dataclass(frozen=True)
class Move:
    """One player's move between hands; ``why`` is ``"balance"`` or ``"break"``."""

    player: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    why: str


def _rng(seed: str, step: str) -> random.Random:
    return random.Random(f"{seed}/{step}")


def draw(players: Sequence[int], seats: int, seed: str) -> dict[int, dict[int, int]]:
    """The opening draw: as few tables as hold everyone (numbered from 1), sizes at most
    one apart; the players are shuffled, dealt round the tables in turn, and each table's
    seats are shuffled."""
    rng = _rng(seed, "draw")
    order = list(players)
    rng.shuffle(order)
    count = max(1, -(-len(order) // seats))
    tables: dict[int, dict[int, int]] = {}
    for number in range(1, count + 1):
        group = order[number - 1 :: count]
        chairs = list(range(1, seats + 1))
        rng.shuffle(chairs)
        tables[number] = dict(zip(chairs, group, strict=False))
    return tables


def seat_late(tables: Tables, seats: int, player: int, seed: str) -> tuple[int, int]:
    """A late entrant's (table, seat): drawn among the tables with the fewest players and
    among their empty seats; a new table (the next number) when every seat is taken."""
    rng = _rng(seed, f"late/{player}")
    open_tables = [t for t, chairs in tables.items() if len(chairs) < seats]
    if not open_tables:
        return max(tables, default=0) + 1, rng.randint(1, seats)
    fewest = min(len(tables[t]) for t in open_tables)
    table = rng.choice(sorted(t for t in open_tables if len(tables[t]) == fewest))
    return table, rng.choice(_empty(tables[table], seats))


def _empty(chairs: Mapping[int, int], seats: int) -> list[int]:
    return [seat for seat in range(1, seats + 1) if seat not in chairs]


def plan_moves(
    tables: Tables,
    seats: int,
    between_hands: set[int],
    opened: Mapping[int, Sequence[int]],
    seed: str,
    step: int,
) -> list[Move]:
    """The moves to make now (the rule above). ``between_hands``: tables not in a hand;
    ``opened[table]``: its seats in the order they emptied (the last one opened last);
    ``step``: the tournament's decision number (each break draws afresh)."""
    work = {t: dict(chairs) for t, chairs in tables.items() if chairs}
    players = sum(len(chairs) for chairs in work.values())
    moves: list[Move] = []
    while len(work) > 1 and players <= (len(work) - 1) * seats and max(work) in between_hands:
        breaking = max(work)
        moves += _break(work, breaking, seats, _rng(seed, f"break/{step}/{breaking}"))
    last_open = {t: list(opened.get(t, ())) for t in work}
    while True:
        move = _balance_one(work, seats, between_hands, last_open)
        if move is None:
            return moves
        moves.append(move)


def _break(
    work: dict[int, dict[int, int]], breaking: int, seats: int, rng: random.Random
) -> list[Move]:
    leaving = sorted(work.pop(breaking).items())
    rng.shuffle(leaving)
    moves = []
    for seat, player in leaving:
        fewest = min(len(chairs) for chairs in work.values())
        table = rng.choice(sorted(t for t, chairs in work.items() if len(chairs) == fewest))
        to_seat = rng.choice(_empty(work[table], seats))
        work[table][to_seat] = player
        moves.append(Move(player, breaking, seat, table, to_seat, "break"))
    return moves


def _balance_one(
    work: dict[int, dict[int, int]],
    seats: int,
    between_hands: set[int],
    last_open: dict[int, list[int]],
) -> Move | None:
    if len(work) < 2:
        return None
    short = min(work, key=lambda t: (len(work[t]), t))
    givers = [t for t in work if t in between_hands and len(work[t]) >= len(work[short]) + 2]
    if not givers:
        return None
    source = max(givers, key=lambda t: (len(work[t]), t))
    empties = _empty(work[short], seats)
    opened = [s for s in last_open[short] if s in empties]
    to_seat = opened[-1] if opened else empties[0]
    occupied = sorted(work[source])
    from_seat = next((s for s in occupied if s >= to_seat), occupied[0])
    player = work[source].pop(from_seat)
    work[short][to_seat] = player
    last_open[source].append(from_seat)
    return Move(player, source, from_seat, short, to_seat, "balance")
