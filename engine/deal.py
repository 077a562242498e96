"""Dealing and random games, for simulation and tests (the rng is always passed in).

>>> import random
>>> from sueca.engine import Rules
>>> deal = Deal.random(random.Random(1), Rules(), dealer=0)
>>> sorted(len(h) for h in deal.holdings), deal.trump_card in deal.holdings[0]
([10, 10, 10, 10], True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import Card
from .hand import Hand
from .record import HandRecord, MatchRecord, Play
from .rules import Rules


@dataclass(frozen=True)
class Deal:
    """Four holdings of ten cards; the dealer holds the turned trump card."""

    dealer: int
    trump_card: Card
    holdings: tuple[frozenset[Card], ...]

    @classmethod
    def random(cls, rng: random.Random, rules: Rules, dealer: int, from_top: bool | None = None) -> "Deal":
        """Shuffle and deal; the dealer turns the top or bottom card (random if ``None``)."""
        deck = list(rules.deck)
        rng.shuffle(deck)
        if from_top is None:
            from_top = rng.random() < 0.5
        # the turned card is the first card dealt to the dealer (top) or the last (bottom)
        trump = deck[0] if from_top else deck[-1]
        order = [(dealer + k) % 4 for k in range(4)] if from_top else [(dealer + 1 + k) % 4 for k in range(4)]
        holdings: list[frozenset[Card]] = [frozenset()] * 4
        for k, seat in enumerate(order):
            holdings[seat] = frozenset(deck[10 * k: 10 * k + 10])
        return cls(dealer, trump, tuple(holdings))


def random_hand(rng: random.Random, rules: Rules, dealer: int, revoke_rate: float = 0.0,
                deal: Deal | None = None) -> HandRecord:
    """Play a whole hand at random: legal moves, except that with probability
    ``revoke_rate`` a player who could follow plays another suit (a renúncia)."""
    deal = deal or Deal.random(rng, rules, dealer)
    hand = Hand(rules, dealer, deal.trump_card)
    held = [sorted(h) for h in deal.holdings]
    plays = []
    while hand.turn is not None:
        seat = hand.turn
        legal = hand.legal_moves(held[seat])
        choices = legal
        if revoke_rate and len(legal) < len(held[seat]) and rng.random() < revoke_rate:
            choices = [c for c in held[seat] if c not in legal]
            # the dealer keeps the turned card (everyone would see it)
            choices = [c for c in choices if c is not deal.trump_card] or legal
        card = rng.choice(choices)
        held[seat].remove(card)
        hand.play(card, seat)
        plays.append(Play(card, seat))
    return HandRecord(dealer, deal.trump_card, tuple(plays))


def random_match(rng: random.Random, rules: Rules | None = None, revoke_rate: float = 0.0,
                 max_hands: int = 200) -> MatchRecord:
    """A random match played to its winner (or ``max_hands``)."""
    from .match import Match

    rules = rules or Rules()
    record = MatchRecord(rules)
    dealer = rng.randrange(4)
    for _ in range(max_hands):
        record = MatchRecord(rules, record.hands + (random_hand(rng, rules, dealer, revoke_rate),))
        if Match(record).winner is not None:
            break
        dealer = (dealer + 1) % 4
    return record
