"""The Sueca rules engine: pure, no I/O, no vision.

>>> from sueca.engine import Card, MatchRecord, Match
>>> rec = MatchRecord.from_json({"hands": [{"dealer": 3, "trump_card": "5H",
...                                         "plays": ["AS", "2S", "KS", "QS"]}]})
>>> Match(rec).report()["hands"][0]["tricks"][0]["points"]
17
"""

from .cards import ALL_CARDS, Card, Rank, Suit
from .deal import Deal, random_hand, random_match
from .hand import Hand, PlayError, Renuncia, SeatMismatch, Trick, first_leader
from .match import Match
from .record import HandRecord, MatchRecord, Play, RecordError
from .rules import VARIANTS, Rules, RulesError
from .scoring import HandResult, score_hand

__all__ = [
    "ALL_CARDS", "Card", "Rank", "Suit", "Deal", "random_hand", "random_match", "Hand", "PlayError",
    "Renuncia", "SeatMismatch", "Trick", "first_leader", "Match", "HandRecord", "MatchRecord", "Play",
    "RecordError", "VARIANTS", "Rules", "RulesError", "HandResult", "score_hand",
]
