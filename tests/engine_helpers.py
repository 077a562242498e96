"""Builders for hand-made hands in the engine tests."""

from sueca.engine import Card, Hand, HandRecord, MatchRecord, Play, Rules

C = Card.parse


def cards(text: str) -> list[Card]:
    return [C(c) for c in text.split()]


def play_all(hand: Hand, text: str) -> Hand:
    for c in cards(text):
        hand.play(c)
    return hand


def record(*hands, rules: dict | None = None) -> MatchRecord:
    """hands: (dealer, trump_card, 'plays ...')."""
    return MatchRecord(Rules.from_dict(rules),
                       tuple(HandRecord(d, C(t), tuple(Play(c) for c in cards(p))) for d, t, p in hands))
