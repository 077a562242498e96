"""The class lists shared by the data generator, the trainers and the runtime.

Defined once here; a model's metadata stores the list it was trained with and
the runtime checks it against this one.
"""

from __future__ import annotations

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")

#: Every French card code, the reader's classes (index = class id).
CARD_CODES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CARD_CLASS = {code: i for i, code in enumerate(CARD_CODES)}

#: What the card locator finds: a face-up card (face-down cards and piles are not plays).
LOCATOR_CLASSES: tuple[str, ...] = ("card",)
