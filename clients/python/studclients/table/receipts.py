"""Players' history tokens: a receipt that downloads the PHH histories of one sitting at
one table (the hands it was dealt into, players' rendering), after the player has left,
busted or been stood up too. One comes with every seat token (the join, each resume): a
bearer secret like the seat token, never in a URL, stored only as its SHA-256 and looked
up by it (an index over hashes of 256-bit random tokens tells nothing), bound to its
table and sitting, good for ``LIFETIME`` seconds. It opens nothing but the download."""

from __future__ import annotations

import time

import sqlalchemy as sa

from studclients.table import tokens
from studclients.table.schema import history_tokens
from studclients.table.store import Store

#: How long a history token downloads (seconds): 30 days, as card rooms keep them.
LIFETIME = 30 * 24 * 3600


async def issue(store: Store, table_id: str, player: str, now: float | None = None) -> str:
    """A new history token for the sitting ``player`` at the table; tokens past their
    time are deleted on the way."""
    now = time.time() if now is None else now
    token = tokens.new_token()
    async with store.engine.begin() as conn:
        await conn.execute(sa.delete(history_tokens).where(history_tokens.c.expires_at <= now))
        await conn.execute(
            sa.insert(history_tokens).values(
                token_hash=tokens.token_hash(token),
                table_id=table_id,
                player=player,
                expires_at=now + LIFETIME,
            )
        )
    return token


async def player_of(
    store: Store, table_id: str, token: str, now: float | None = None
) -> tuple[str, bool] | None:
    """``(player, expired)`` of a history token at the table, None when it is not one
    (unknown, or another table's)."""
    query = sa.select(history_tokens).where(history_tokens.c.token_hash == tokens.token_hash(token))
    async with store.engine.connect() as conn:
        row = (await conn.execute(query)).first()
    if row is None or row.table_id != table_id:
        return None
    return row.player, row.expires_at <= (time.time() if now is None else now)
