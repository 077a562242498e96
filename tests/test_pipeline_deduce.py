"""Naming several unread cards at the end of a hand (sueca.vision.deduce)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sueca.engine import Rules, random_hand
from sueca.vision.deduce import assign_unread


@given(seed=st.integers(0, 10_000), k=st.integers(2, 3), pick=st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None)
def test_unread_cards_are_named_right_or_not_at_all(seed, k, pick):
    rules = Rules()
    hand = random_hand(random.Random(seed), rules, dealer=seed % 4, revoke_rate=0.0)
    plays = [(p.card, p.seat) for p in hand.plays]
    hidden = sorted(pick.sample(range(40), k))
    blind = [(None if i in hidden else c, s) for i, (c, s) in enumerate(plays)]
    order = assign_unread(rules, hand.dealer, hand.trump_card, blind)
    assert order is None or list(order) == [plays[i][0] for i in hidden]


def test_the_rules_often_tell_two_unread_cards_apart():
    rules, named, tried = Rules(), 0, 0
    for seed in range(60):
        hand = random_hand(random.Random(seed), rules, dealer=seed % 4, revoke_rate=0.0)
        plays = [(p.card, p.seat) for p in hand.plays]
        hidden = random.Random(-seed).sample(range(40), 2)
        blind = [(None if i in hidden else c, s) for i, (c, s) in enumerate(plays)]
        tried += 1
        named += assign_unread(rules, hand.dealer, hand.trump_card, blind) is not None
    assert named >= tried // 4, (named, tried)


def test_nothing_is_named_when_cards_are_missing_or_too_many_are_unread():
    rules = Rules()
    hand = random_hand(random.Random(1), rules, dealer=0, revoke_rate=0.0)
    plays = [(p.card, p.seat) for p in hand.plays]
    assert assign_unread(rules, 0, hand.trump_card, plays[:39] + [(None, plays[39][1])])[0] == plays[39][0]
    assert assign_unread(rules, 0, hand.trump_card, plays[:38] + [(None, plays[38][1])]) is None  # 39 plays
    five = [(None if i < 5 else c, s) for i, (c, s) in enumerate(plays)]
    assert assign_unread(rules, 0, hand.trump_card, five) is None
