"""``python -m studengine.server``: the same as ``stud-server``."""

from studengine.server.supervisor import main

main()
