"""The rules a table plays by: every named variant of ``rules.md`` with its default.

>>> r = Rules.from_dict({"target": 5, "capote": "points_120"})
>>> r.target, r.tie
(5, 'nothing')
>>> len(r.deck)
40
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache

from .cards import ALL_CARDS, SUECA_ORDER, SUECA_POINTS, Card, Rank

#: variant name -> allowed values (the first is the default).
VARIANTS: dict[str, tuple] = {
    "target": (4, 3, 5, 7, 10),
    "capote": ("all_tricks", "points_120"),
    "tie": ("nothing", "next_hand_bonus"),
    "first_lead": ("right_of_dealer", "cutter"),
    "renuncia": ("auto", "claim"),
    "forced_trump": (False, True),
    "pente": (False, True),
    "rolha": (False, True),
    "ten_for_seven": (False, True),
}


_FROM_DICT: dict[tuple, "Rules"] = {}


class RulesError(ValueError):
    """An unknown variant name or value."""


@dataclass(frozen=True)
class Rules:
    """A table's variants. Immutable; build with keywords or :meth:`from_dict`."""

    target: int = 4
    capote: str = "all_tricks"
    tie: str = "nothing"
    first_lead: str = "right_of_dealer"
    renuncia: str = "auto"
    forced_trump: bool = False
    pente: bool = False
    rolha: bool = False
    ten_for_seven: bool = False
    # Derived lookup tables indexed by Card.index, for the hot path.
    strength: tuple = field(init=False, repr=False, compare=False)
    points_of: tuple = field(init=False, repr=False, compare=False)
    deck: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, allowed in VARIANTS.items():
            value = getattr(self, name)
            if name == "target":
                ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 100
                if not ok:
                    raise RulesError(f"rules.target: expected a whole number of riscos 1..100, got {value!r}")
            elif isinstance(allowed[0], bool):
                if not isinstance(value, bool):
                    raise RulesError(f"rules.{name}: expected true or false, got {value!r}")
            elif value not in allowed:
                raise RulesError(f"rules.{name}: unknown value {value!r} (expected one of {', '.join(allowed)})")
        strength, points, deck = _tables(self.ten_for_seven)
        object.__setattr__(self, "strength", strength)
        object.__setattr__(self, "points_of", points)
        object.__setattr__(self, "deck", deck)

    @classmethod
    def from_dict(cls, data: dict | None) -> "Rules":
        """Rules from the record's ``rules`` object; missing keys take defaults."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise RulesError(f"rules: expected an object, got {type(data).__name__}")
        # Records of one table repeat the same rules: reuse the validated value.
        # The key carries each value's type, so that True never passes for 1.
        try:
            key = tuple(sorted((k, type(v).__name__, v) for k, v in data.items()))
            hash(key)
        except TypeError:
            key = None
        cached = _FROM_DICT.get(key) if key is not None else None
        if cached is not None:
            return cached
        unknown = sorted(set(data) - set(VARIANTS))
        if unknown:
            raise RulesError(f"rules: unknown variant {unknown[0]!r} (known: {', '.join(VARIANTS)})")
        rules = cls(**data)
        if key is not None and len(_FROM_DICT) < 512:
            _FROM_DICT[key] = rules
        return rules

    def to_dict(self) -> dict:
        """Every variant, explicit, in the record's key order."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    def in_deck(self, card: Card) -> bool:
        return self.strength[card.index] > 0

    def points(self, card: Card) -> int:
        """Card points under these rules: ``Rules().points(Card.parse("AS")) == 11``."""
        return self.points_of[card.index]


@lru_cache(maxsize=None)
def _tables(ten_for_seven: bool) -> tuple[tuple, tuple, tuple]:
    """Strength (0 = not in the deck), points and the deck, indexed by Card.index."""
    order = list(SUECA_ORDER)
    points = dict(SUECA_POINTS)
    if ten_for_seven:
        order[order.index(Rank.SEVEN)] = Rank.TEN
        points[Rank.TEN] = points.pop(Rank.SEVEN)
    rank_strength = {r: len(order) - i for i, r in enumerate(order)}
    strength = tuple(rank_strength.get(c.rank, 0) for c in ALL_CARDS)
    return (strength, tuple(points.get(c.rank, 0) for c in ALL_CARDS),
            tuple(c for c in ALL_CARDS if strength[c.index]))
