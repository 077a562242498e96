"""Cards, suits and ranks: small immutable values.

All 52 French cards exist as values (the camera can see a stray 8); which of
them belong to the Sueca deck is a rules question (:attr:`Rules.deck`).

>>> c = Card.parse("7H")
>>> c.rank, c.suit
(Rank.SEVEN, Suit.HEARTS)
>>> str(c), c.display_name("pt")
('7H', 'Manilha de copas')
"""

from __future__ import annotations

from enum import Enum


class Suit(Enum):
    """A suit, with its code and names. ``Suit("H") is Suit.HEARTS``."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def code(self) -> str:
        return self.value

    @property
    def index(self) -> int:
        return _SUIT_INDEX[self]

    def display_name(self, lang: str = "pt") -> str:
        """``Suit.HEARTS.display_name() == 'copas'``."""
        return _SUIT_NAMES[lang][self.index]

    def __repr__(self) -> str:
        return f"Suit.{self.name}"


_SUIT_INDEX = {s: i for i, s in enumerate(Suit)}
_SUIT_NAMES = {
    "pt": ("espadas", "copas", "ouros", "paus"),
    "en": ("spades", "hearts", "diamonds", "clubs"),
}


class Rank(Enum):
    """A French card rank. ``Rank("10") is Rank.TEN``."""

    ACE = "A"
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "10"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"

    @property
    def code(self) -> str:
        return self.value

    def display_name(self, lang: str = "pt") -> str:
        return _RANK_NAMES[lang][self.value]

    def __repr__(self) -> str:
        return f"Rank.{self.name}"


_RANK_NAMES = {
    "pt": {"A": "Ás", "2": "Duque", "3": "Terno", "4": "Quadra", "5": "Quina", "6": "Sena",
           "7": "Manilha", "8": "Oito", "9": "Nove", "10": "Dez", "J": "Valete", "Q": "Dama",
           "K": "Rei"},
    "en": {"A": "Ace", "2": "Two", "3": "Three", "4": "Four", "5": "Five", "6": "Six",
           "7": "Seven", "8": "Eight", "9": "Nine", "10": "Ten", "J": "Jack", "Q": "Queen",
           "K": "King"},
}


class Card:
    """One of the 52 French cards; instances are unique, immutable and hashable.

    ``card.index`` (0..51, suits S H D C, ranks A 2..10 J Q K) is the class id
    of :data:`sueca.vision.classes.CARD_CODES`.

    >>> Card.parse("10D") is Card(Rank.TEN, Suit.DIAMONDS)
    True
    """

    __slots__ = ("rank", "suit", "code", "index", "_suit_index")

    def __new__(cls, rank: Rank, suit: Suit) -> "Card":
        return _BY_CODE[rank.value + suit.value]

    @classmethod
    def _make(cls, rank: Rank, suit: Suit, index: int) -> "Card":
        card = object.__new__(cls)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "code", rank.value + suit.value)
        object.__setattr__(card, "index", index)
        object.__setattr__(card, "_suit_index", suit.index)
        return card

    def __setattr__(self, name, value):
        raise AttributeError("Card is immutable")

    @staticmethod
    def parse(code: str) -> "Card":
        """The card of a code like ``"AS"``, ``"7H"``, ``"10D"``; ValueError otherwise."""
        try:
            return _BY_CODE[code]
        except (KeyError, TypeError):
            raise ValueError(f"unknown card {code!r}") from None

    def display_name(self, lang: str = "pt") -> str:
        """``"Ás de copas"`` / ``"Ace of hearts"``."""
        joiner = " de " if lang == "pt" else " of "
        return self.rank.display_name(lang) + joiner + self.suit.display_name(lang)

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    def __reduce__(self):
        return (Card.parse, (self.code,))

    def __lt__(self, other: "Card") -> bool:
        return self.index < other.index


_BY_CODE: dict[str, Card] = {}
ALL_CARDS: tuple[Card, ...] = tuple(
    _BY_CODE.setdefault(r.value + s.value, Card._make(r, s, i * 13 + j))
    for i, s in enumerate(Suit)
    for j, r in enumerate(Rank)
)

#: Sueca rank order, high to low (the 10 takes the 7's place under ``ten_for_seven``).
SUECA_ORDER = (Rank.ACE, Rank.SEVEN, Rank.KING, Rank.JACK, Rank.QUEEN,
               Rank.SIX, Rank.FIVE, Rank.FOUR, Rank.THREE, Rank.TWO)
SUECA_POINTS = {Rank.ACE: 11, Rank.SEVEN: 10, Rank.KING: 4, Rank.JACK: 3, Rank.QUEEN: 2}
