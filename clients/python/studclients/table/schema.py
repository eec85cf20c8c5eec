"""stud-table's database schema, in SQLAlchemy Core: the tables, seats, hands (the newest
sealed state per hand), each hand's history, sit-and-go tournaments, who played which hand
and players' history receipts; and the upgrade of a database made by an older release
(every column added later is added at start-up)."""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

tables = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("variant", sa.Integer, nullable=False),
    sa.Column("ante", sa.BigInteger, nullable=False),
    sa.Column("bring_in", sa.BigInteger, nullable=False),
    sa.Column("small_bet", sa.BigInteger, nullable=False),
    sa.Column("big_bet", sa.BigInteger, nullable=False),
    sa.Column("start_stack", sa.BigInteger, nullable=False),
    sa.Column("max_seats", sa.Integer, nullable=False),
    sa.Column("clock_seconds", sa.Float, nullable=False),
    # the engine's Table.all_in_face_up (R-ALL-IN-FACE-UP); added after the first release
    sa.Column("all_in_face_up", sa.Boolean, nullable=False, server_default=sa.false()),
    # the table seat that held the button in the newest hand (-1: none yet)
    sa.Column("button", sa.Integer, nullable=False, default=-1),
    sa.Column("hand_no", sa.Integer, nullable=False, default=0),
    sa.Column("current_hand", sa.String(32), nullable=True),
    # when the next hand may be dealt (epoch seconds): a pause to see the showdown
    sa.Column("next_hand_at", sa.Float, nullable=False, default=0.0),
    # bumped by every change of the table or its hand: what pushes follow
    sa.Column("version", sa.BigInteger, nullable=False, default=0),
    # (added after the first release: each has a server default, see add_missing_columns)
    # each player's time bank (seconds) and how many hands they are dealt between refills
    sa.Column("bank_seconds", sa.Float, nullable=False, server_default=sa.text("30")),
    sa.Column("bank_every", sa.Integer, nullable=False, server_default=sa.text("10")),
    # a mixed table: the games in turn (engine variants), rotate_every hands each (the
    # variant column is the game of the newest hand); NULL: one game only (mixed.py)
    sa.Column("games", sa.JSON, nullable=True),
    sa.Column("rotate_every", sa.Integer, nullable=True),
    # a multi-table tournament's table deals only while hand_no < deal_limit: its
    # director raises the limit once it has settled the last hand (mtt/director.py)
    sa.Column("deal_limit", sa.Integer, nullable=True),
    # verifiable deals (deals.py): each hand dealt with a deal ticket and players' entropy
    sa.Column("verifiable", sa.Boolean, nullable=False, server_default=sa.false()),
)

tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
    # tournament.Schedule.as_dict(): levels, every, unit, payouts, buy_in
    sa.Column("schedule", sa.JSON, nullable=False),
    sa.Column("entrants", sa.Integer, nullable=False),
    # registering (seats filling), running, finished
    sa.Column("status", sa.String(12), nullable=False),
    sa.Column("started_at", sa.Float, nullable=True),
    # the table's hand_no before the first hand of the tournament
    sa.Column("first_hand", sa.Integer, nullable=True),
    # the level of the newest hand (0-based)
    sa.Column("level", sa.Integer, nullable=False, default=0),
    # finishing places by table seat ({"2": 3}) and the entrants' names by table seat
    sa.Column("places", sa.JSON, nullable=False),
    sa.Column("names", sa.JSON, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=True),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("seat_no", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    # SHA-256 of the seat token (the token itself is never stored); NULL for a bot
    sa.Column("token_hash", sa.LargeBinary(32), nullable=True),
    sa.Column("bot", sa.String(16), nullable=True),
    sa.Column("stack", sa.BigInteger, nullable=False),
    # leaves when the hand in progress ends
    sa.Column("leaving", sa.Boolean, nullable=False, default=False),
    # (added after the first release: nullable or with a server default)
    # seconds left in the player's time bank, hands dealt since it was last refilled
    sa.Column("time_bank", sa.Float, nullable=False, server_default=sa.text("0")),
    sa.Column("bank_hands", sa.Integer, nullable=False, server_default=sa.text("0")),
    # clock timeouts in a row (a move of their own resets it)
    sa.Column("timeouts", sa.Integer, nullable=False, server_default=sa.text("0")),
    # away since (epoch seconds): not dealt in until they come back; NULL when present
    sa.Column("away_since", sa.Float, nullable=True),
    # SHA-256 of the seat's resume token (an HttpOnly cookie that recovers the seat)
    sa.Column("resume_hash", sa.LargeBinary(32), nullable=True),
    # a random id of this sitting (a new one for each join): whose hands are whose
    sa.Column("player", sa.String(32), nullable=True),
)

hands = sa.Table(
    "hands",
    metadata,
    sa.Column("hand_id", sa.String(32), primary_key=True),
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    sa.Column("seq", sa.BigInteger, nullable=False),
    sa.Column("state", sa.LargeBinary, nullable=False),
    # engine seat i is table seat seat_map[i]; names and stacks at the start, same order
    sa.Column("seat_map", sa.JSON, nullable=False),
    sa.Column("names", sa.JSON, nullable=False),
    sa.Column("start_stacks", sa.JSON, nullable=False),
    sa.Column("bots", sa.JSON, nullable=False),
    sa.Column("to_act", sa.Integer, nullable=True),
    # the clock of the seat to act (epoch seconds), or a bot's thinking time
    sa.Column("deadline", sa.Float, nullable=True),
    sa.Column("over", sa.Boolean, nullable=False, default=False),
    # the newest HandUpdate without state and reveal (views, legal actions, result)
    sa.Column("update", sa.LargeBinary, nullable=False),
    # the deck and salt behind the commitment: audit material, never sent to a browser
    sa.Column("reveal", sa.LargeBinary, nullable=True),
    sa.Column("updated_at", sa.Float, nullable=False),
    # (added after the first release) when the seat to act went onto its time bank
    sa.Column("bank_from", sa.Float, nullable=True),
    # a hand dealt with a deal ticket: {"commitment", "sources"}, sources by engine seat,
    # "player" (the seat's browser sent it) or "table" (drawn here: a bot, no answer)
    sa.Column("deal", sa.JSON, nullable=True),
    sa.Index("hands_open", "over", "deadline"),
)

plays = sa.Table(
    "plays",
    metadata,
    # who was dealt into which hand: a sitting (seats.player) and the hand; a player's
    # history is the finished hands of their sitting
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("hand_id", sa.String(32), sa.ForeignKey("hands.hand_id"), primary_key=True),
    sa.Column("seat_no", sa.Integer, nullable=False),
)

history = sa.Table(
    "history",
    metadata,
    sa.Column("hand_id", sa.String(32), sa.ForeignKey("hands.hand_id"), primary_key=True),
    sa.Column("seq", sa.BigInteger, primary_key=True),
    # start, player, clock, bot or void (a hand no engine could open, called off)
    sa.Column("source", sa.String(8), nullable=False),
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("action", sa.Integer, nullable=True),
    sa.Column("to", sa.BigInteger, nullable=True),
    sa.Column("state", sa.LargeBinary, nullable=False),
    # the HandUpdate of this step without state and reveal (each viewer's events)
    sa.Column("update", sa.LargeBinary, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)


def add_missing_columns(conn: sa.Connection) -> None:
    """Brings a database made by an older stud-table up to ``metadata``: every column it
    lacks is added (``ALTER TABLE ... ADD COLUMN``). So every column added to the schema
    after its first release is nullable or has a ``server_default``."""
    inspector = sa.inspect(conn)
    for table in metadata.sorted_tables:
        present = {column["name"] for column in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name in present:
                continue
            if not column.nullable and column.server_default is None:
                raise RuntimeError(f"{table.name}.{column.name}: new columns need a default")
            spec = sa.schema.CreateColumn(column).compile(dialect=conn.dialect)
            name = conn.dialect.identifier_preparer.quote(table.name)
            ddl = f"ALTER TABLE {name} ADD COLUMN {spec}"
            conn.execute(sa.text(ddl))


mtts = sa.Table(
    "mtts",
    metadata,
    # a multi-table tournament (mtt/): its settings, the seed of every draw, the field
    # (mtt.field.Field.as_dict) and a version that every decision compares and sets
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(100), nullable=False),
    sa.Column("variant", sa.Integer, nullable=False),
    sa.Column("settings", sa.JSON, nullable=False),
    sa.Column("seed", sa.String(64), nullable=False),
    sa.Column("field", sa.JSON, nullable=False),
    sa.Column("paused", sa.Boolean, nullable=False, server_default=sa.false()),
    # its tables deal verifiably (deals.py); a database made before the option: off
    sa.Column("verifiable", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("version", sa.BigInteger, nullable=False),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("started_at", sa.Float, nullable=True),
)

mtt_tables = sa.Table(
    "mtt_tables",
    metadata,
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("mtt_id", sa.String(64), sa.ForeignKey("mtts.id"), nullable=False),
    sa.Column("number", sa.Integer, nullable=False),
    # the last hand of this table the director has settled; broken: the table is gone
    sa.Column("settled", sa.Integer, nullable=False),
    sa.Column("broken", sa.Boolean, nullable=False, server_default=sa.false()),
    # seat numbers in the order they emptied (the balancing rule fills the last)
    sa.Column("opened", sa.JSON, nullable=False),
)

mtt_entries = sa.Table(
    "mtt_entries",
    metadata,
    sa.Column("mtt_id", sa.String(64), sa.ForeignKey("mtts.id"), primary_key=True),
    sa.Column("player", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("bot", sa.String(16), nullable=True),
    # SHA-256 of the player's token: it goes with them to each table they are moved to
    sa.Column("token_hash", sa.LargeBinary(32), nullable=True),
    sa.Column("table_id", sa.String(64), nullable=True),
    sa.Column("seat_no", sa.Integer, nullable=True),
    # (added after the first release) SHA-256 of the entry's resume token (resume.py)
    sa.Column("resume_hash", sa.LargeBinary(32), nullable=True),
)

mtt_moves = sa.Table(
    "mtt_moves",
    metadata,
    # every seating decision, in order: the opening draw, late seats, balance and break
    sa.Column("mtt_id", sa.String(64), sa.ForeignKey("mtts.id"), primary_key=True),
    sa.Column("number", sa.Integer, primary_key=True),
    sa.Column("step", sa.Integer, nullable=False),
    sa.Column("player", sa.Integer, nullable=False),
    sa.Column("why", sa.String(8), nullable=False),
    sa.Column("from_table", sa.String(64), nullable=True),
    sa.Column("from_seat", sa.Integer, nullable=True),
    sa.Column("to_table", sa.String(64), nullable=False),
    sa.Column("to_seat", sa.Integer, nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)

history_tokens = sa.Table(
    "history_tokens",
    metadata,
    # SHA-256 of a player's history token (receipts.py): it downloads the PHH histories of
    # one sitting (seats.player) at one table, after the seat is gone too, until it expires
    sa.Column("token_hash", sa.LargeBinary(32), primary_key=True),
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), nullable=False),
    sa.Column("player", sa.String(32), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    sa.Index("history_tokens_expiry", "expires_at"),
)

deal_tickets = sa.Table(
    "deal_tickets",
    metadata,
    # the deal ticket waiting for contributions before hand hand_no + 1 (deals.py): one per
    # table, replaced by compare-and-set on hand_id; request is the StartHandRequest it was
    # made for (deterministic bytes): a deal that would differ asks for a new ticket
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), primary_key=True),
    sa.Column("hand_id", sa.String(32), nullable=False),
    sa.Column("hand_no", sa.Integer, nullable=False),
    sa.Column("sealed", sa.LargeBinary, nullable=False),
    sa.Column("commitment", sa.String(64), nullable=False),
    sa.Column("request", sa.LargeBinary, nullable=False),
    # the table seats dealt in, in engine seat order
    sa.Column("seat_map", sa.JSON, nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),
    # contributions are awaited until then (epoch seconds), or until every player sent one
    sa.Column("wait_until", sa.Float, nullable=False),
)

deal_contributions = sa.Table(
    "deal_contributions",
    metadata,
    # a seated player's entropy for the ticket hand_id, sent once from their page
    sa.Column("hand_id", sa.String(32), primary_key=True),
    sa.Column("seat_no", sa.Integer, primary_key=True),
    sa.Column("table_id", sa.String(64), sa.ForeignKey("tables.id"), nullable=False),
    sa.Column("player", sa.String(32), nullable=True),
    sa.Column("entropy", sa.LargeBinary(64), nullable=False),
    sa.Column("at", sa.Float, nullable=False),
)
