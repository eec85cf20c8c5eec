"""The one mapping between the engine's variants and PHH variant codes.

``F7S`` (Seven Card Stud), ``F7S/8`` (Stud Hi-Lo, eight or better) and ``FR`` (Razz) are
PHH's own codes. Five Card Stud has none: ``F5S`` is this project's extension, written with
a ``_streets`` field that spells the streets out (PokerKit does not load it). Entries for
variants this engine does not have (yet) are skipped, by name.
"""

from __future__ import annotations

from studengine.rules.types import Variant

_BY_NAME = {
    "SEVEN_CARD_STUD": "F7S",
    "SEVEN_CARD_STUD_HI_LO": "F7S/8",
    "RAZZ": "FR",
    "FIVE_CARD_STUD": "F5S",
}

PHH_CODES: dict[Variant, str] = {
    Variant[name]: code for name, code in _BY_NAME.items() if name in Variant.__members__
}
VARIANTS_BY_CODE: dict[str, Variant] = {code: variant for variant, code in PHH_CODES.items()}
# codes that are this project's extension of PHH, not the standard's
EXTENSION_CODES = frozenset({"F5S"})
