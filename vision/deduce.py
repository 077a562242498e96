"""Naming the cards nobody could read, once a hand's forty cards have all hit the table.

One unread play is the one card of the deck never seen: certain. Several unread plays
are the cards never seen, in some order; the rules often tell which order: a wrong
order puts a card at a seat that later shows it held the suit it failed to follow,
a renúncia nobody at the table saw. When exactly one order gives no renúncia while
every other order gives one, that order is taken (still marked uncertain for the
referee); otherwise nothing is named and the referee is asked.

>>> from sueca.engine import Card, Rules
>>> import random
>>> from sueca.engine import random_hand
>>> hand = random_hand(random.Random(5), Rules(), dealer=0)
>>> plays = [(p.card, p.seat) for p in hand.plays]
>>> hidden = [3, 17]
>>> blind = [(None if i in hidden else c, s) for i, (c, s) in enumerate(plays)]
>>> order = assign_unread(Rules(), hand.dealer, hand.trump_card, blind)
>>> order is None or list(order) == [plays[i][0] for i in hidden]
True
"""

from __future__ import annotations

import itertools
from typing import Sequence

from sueca.engine import Card, Hand, PlayError, Rules

#: More unread plays than this are left to the referee (k! orders to try).
MAX_UNREAD = 4


def renuncias_if(rules: Rules, dealer: int, trump: Card, plays: Sequence[tuple[Card, int]]) -> int | None:
    """How many renúncias the hand proves with these plays; None when the engine refuses them."""
    hand = Hand(rules, dealer, trump)
    try:
        for card, seat in plays:
            hand.play(card, seat)
    except (PlayError, ValueError):
        return None
    return len(hand.renuncias)


def assign_unread(rules: Rules, dealer: int, trump: Card,
                  plays: Sequence[tuple[Card | None, int]]) -> tuple[Card, ...] | None:
    """The cards of the unread plays (``None`` cards), in play order, or None when the
    rules do not single out one order (or too many are unread, or cards are missing)."""
    unread = [i for i, (c, _) in enumerate(plays) if c is None]
    seen = [c for c, _ in plays if c is not None]
    missing = sorted(set(rules.deck) - set(seen), key=lambda c: c.code)
    if not unread or len(unread) > MAX_UNREAD or len(missing) != len(unread) or len(plays) != len(rules.deck):
        return None
    clean = []
    for order in itertools.permutations(missing):
        fill = iter(order)
        full = [(c if c is not None else next(fill), s) for c, s in plays]
        if renuncias_if(rules, dealer, trump, full) == 0:
            clean.append(order)
    if len(clean) == 1:
        return tuple(clean[0])
    return None
