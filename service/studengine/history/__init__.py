"""Hand histories in PHH (the Poker Hand History format, TOML): ``phh`` writes a finished
hand's history (the audit rendering with every card, or the players' rendering with the
hands nobody may see as ``??``), ``reader`` parses a PHH file and plays it through the
engine. Pure: no gRPC or protobuf; ``cli`` (``stud-replay``) is the only part that reads
files.
"""
