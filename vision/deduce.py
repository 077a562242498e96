"""Naming the cards nobody could read, once a hand's forty cards have all hit the table.

One unread play is the one card of the deck never seen: certain. Several unread plays
are the cards never seen, in some order; the rules often tell which order: a wrong
order puts a card at a seat that later shows it held the suit it failed to follow,
a renúncia nobody at the table saw. When exactly one order makes no play in doubt
part of a renúncia, that order is taken (still marked uncertain for the referee);
otherwise nothing is named and the referee is asked. A play read as a card already
played is unread too, with a hint: that card lies at one of its two places
(:func:`reconcile`).

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
#: ... and more plays in doubt (unread ones and the plays whose card they read as) than this.
MAX_IN_DOUBT = 5


def renuncias_if(rules: Rules, dealer: int, trump: Card, plays: Sequence[tuple[Card, int]]) -> list | None:
    """The renúncias the hand proves with these plays; None when the engine refuses them."""
    hand = Hand(rules, dealer, trump)
    try:
        for card, seat in plays:
            hand.play(card, seat)
    except (PlayError, ValueError):
        return None
    return list(hand.renuncias)


def _touches(renuncia, slots: set[int]) -> bool:
    """Whether a play in ``slots`` is part of ``renuncia``'s case: a card of the trick it
    failed in (the led suit, what was trumped) or the card that proves it."""
    return renuncia.proof_play in slots or any(i // 4 == renuncia.trick for i in slots)


def assign_unread(rules: Rules, dealer: int, trump: Card,
                  plays: Sequence[tuple[Card | None, int]]) -> tuple[Card, ...] | None:
    """The cards of the unread plays (``None`` cards), in play order, or None when the
    rules do not single out one order (or too many are unread, or cards are missing)."""
    named = reconcile(rules, dealer, trump, plays)
    if named is None:
        return None
    return tuple(named[i] for i in sorted(named))


def reconcile(rules: Rules, dealer: int, trump: Card, plays: Sequence[tuple[Card | None, int]],
              suggested: dict[int, Card] | None = None,
              hints: dict[int, Card] | None = None) -> dict[int, Card] | None:
    """Name the unread plays (``None`` cards) of a whole hand: play index -> card, or
    None when the rules do not single out one answer.

    ``suggested``: unread plays the camera did read, as a card recorded at another
    play of the hand (a card cannot be played twice, so one of the two readings is
    wrong). Such a card lies at one of the two places; the play it was recorded at is
    then in doubt too, and is in the answer when its card changes.

    Of the ways to deal the cards never seen (and the doubled ones) out to the plays
    in doubt, the one in which no play in doubt is part of a renúncia's case (a card
    of the trick it failed in, or its proof) is taken, if only one is so: a wrong way
    most often puts a card at a seat that later shows it held the suit it failed to
    follow. A renúncia the hand really holds elsewhere does not matter (counting
    renúncias would not do: the engine stops proving them once a case is made); one
    whose case holds a card in doubt makes the rules name nothing, or the wrong way:
    every name given here stays uncertain for the referee.

    ``hints``: unread plays' readings too weak to give (a single frame's), each naming
    a different card of the pool (else none is trusted). When the rules leave several
    ways, the one way that agrees with every hint is taken. When every way puts a play
    in doubt into a renúncia's case (the hand may hold a real one there), the way the
    hints name is taken only when they name every play in doubt but one. When the
    rules single out a way and the hints alone name another, nothing is named. A weak
    misread must name another card of the few never seen, at the right play, to
    mislead it.
    """
    suggested = suggested or {}
    unread = [i for i, (c, _) in enumerate(plays) if c is None]
    where = {c: i for i, (c, _) in enumerate(plays) if c is not None}
    if not unread or len(unread) > MAX_UNREAD or len(plays) != len(rules.deck) or len(where) != len(plays) - len(unread):
        return None
    doubled = {i: where[c] for i, c in suggested.items() if i in unread and c in where}
    slots = sorted(set(unread) | set(doubled.values()))
    pool = sorted((set(rules.deck) - set(where)) | {plays[p][0] for p in doubled.values()}, key=lambda c: c.code)
    if len(pool) != len(slots) or len(slots) > MAX_IN_DOUBT:
        return None
    hinted = {i: c for i, c in (hints or {}).items() if i in unread and i not in doubled and c in pool}
    if len(set(hinted.values())) != len(hinted):
        hinted = {}  # two plays hinted as one card: at least one hint is wrong, trust none
    in_doubt, clean, agreeing = set(slots), [], []
    for order in itertools.permutations(pool):
        put = dict(zip(slots, order))
        if any(put[i] != plays[p][0] and put[p] != plays[p][0] for i, p in doubled.items()):
            continue  # a card read twice lies at one of the two places it was read
        found = renuncias_if(rules, dealer, trump, [(put.get(k, c), s) for k, (c, s) in enumerate(plays)])
        if found is None:
            continue
        agrees = bool(hinted) and all(put[i] == c for i, c in hinted.items())
        if agrees:
            agreeing.append(put)
        if not any(_touches(r, in_doubt) for r in found):
            clean.append(put)
            if len(clean) > 1 and not hinted:
                return None
    named = _chosen(clean, agreeing, told=len(slots) - len(hinted) <= 1)
    if named is None:
        return None
    return {k: c for k, c in named.items() if plays[k][0] is None or plays[k][0] != c}


def _chosen(clean: list[dict], agreeing: list[dict], told: bool) -> dict | None:
    """The way to take: ``clean`` are the ways with no renúncia through a play in doubt,
    ``agreeing`` those that agree with every weak hint, ``told`` whether the hints leave
    a single way on their own (every play in doubt but one hinted)."""
    hinted_way = agreeing[0] if told and len(agreeing) == 1 else None
    if len(clean) == 1:
        # the rules single one out; hints that alone name another way contradict them
        return None if hinted_way is not None and hinted_way != clean[0] else clean[0]
    if len(clean) > 1:
        ways = [w for w in clean if w in agreeing]
        return ways[0] if len(ways) == 1 else None
    # every way puts a play in doubt into a renúncia's case: a real renúncia there
    # (one of the hand's own) is told only by the hints naming the way themselves
    return hinted_way
