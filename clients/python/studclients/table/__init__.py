"""stud-table: a reference game back-end for the Stud Engine with a web table.

``engine`` talks to any stud-server over gRPC (with retries), ``store`` keeps every table,
seat and hand in a database with compare-and-set, ``game`` runs tables (deals, moves, the
clock, bots), ``views`` shapes what one seat may see, ``web`` serves the page, the JSON API
and the WebSocket pushes, ``__main__`` is the ``stud-table`` command."""
