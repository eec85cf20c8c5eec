"""``python -m studengine.server``: the same as ``stud-server``."""

from studengine.server.main import main

main()
