"""stud-table: a reference game back-end for the Stud Engine with a web table.

It calls any stud-server through the clients' one engine client (``studclients.engine``)
and seats the clients' bots (``studclients.bots``); ``store`` keeps every table,
seat and hand in a database with compare-and-set, ``game`` runs tables (deals, moves, the
clock, bots), ``views`` shapes what one seat may see, ``web`` serves the page, the JSON API
and the WebSocket pushes, ``__main__`` is the ``stud-table`` command."""
