"""Naming several unread cards at the end of a hand (sueca.vision.deduce)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sueca.engine import Hand, Rules, random_hand
from sueca.vision.deduce import assign_unread, reconcile


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


@given(seed=st.integers(0, 10_000), early=st.integers(0, 19), late=st.integers(20, 39),
       other=st.one_of(st.none(), st.integers(20, 39)))
@settings(max_examples=120, deadline=None)
def test_a_card_read_twice_is_put_right_or_left_to_the_referee(seed, early, late, other):
    """Play ``early`` recorded as the card of play ``late``, which is then unread but read as
    that card (and maybe one more play unread): the answer is the truth or nothing."""
    rules = Rules()
    hand = random_hand(random.Random(seed), rules, dealer=seed % 4, revoke_rate=0.0)
    plays = [(p.card, p.seat) for p in hand.plays]
    blind = list(plays)
    blind[early] = (plays[late][0], plays[early][1])
    blind[late] = (None, plays[late][1])
    if other is not None and other != late:
        blind[other] = (None, plays[other][1])
    named = reconcile(rules, hand.dealer, hand.trump_card, blind, {late: plays[late][0]})
    if named is not None:
        assert all(named[i] == plays[i][0] for i in named)
        assert named[early] == plays[early][0] and late not in named or named[late] == plays[late][0]


def test_reading_twice_is_often_settled_by_the_rules():
    rules, named = Rules(), 0
    for seed in range(40):
        hand = random_hand(random.Random(seed), rules, dealer=seed % 4, revoke_rate=0.0)
        plays = [(p.card, p.seat) for p in hand.plays]
        blind = list(plays)
        blind[5] = (plays[30][0], plays[5][1])
        blind[30] = (None, plays[30][1])
        got = reconcile(rules, hand.dealer, hand.trump_card, blind, {30: plays[30][0]})
        named += got == {5: plays[5][0], 30: plays[30][0]}
    assert named >= 10, named


def test_a_real_renuncia_no_longer_stops_the_naming():
    """A real renúncia elsewhere in the hand no longer stops the naming: the unread cards
    are named, and named right (the hidden plays are not part of the renúncia's case)."""
    rules, named, tried = Rules(), 0, 0
    for seed in range(400):
        hand = random_hand(random.Random(seed), rules, dealer=seed % 4, revoke_rate=0.3)
        replay = Hand(rules, hand.dealer, hand.trump_card)
        for p in hand.plays:
            replay.play(p.card, p.seat)
        if not replay.renuncias:
            continue
        revokers = {r.seat for r in replay.renuncias}
        tricks = {r.trick for r in replay.renuncias} | {r.proof_play // 4 for r in replay.renuncias}
        plays = [(p.card, p.seat) for p in hand.plays]
        # neither a revoking seat's card nor a card of a trick that holds a renúncia or its proof
        free = [i for i, (c, s) in enumerate(plays) if s not in revokers and i // 4 not in tricks]
        if len(free) < 2:
            continue  # every seat revoked
        hidden = random.Random(seed).sample(free, 2)
        blind = [(None if i in hidden else c, s) for i, (c, s) in enumerate(plays)]
        tried += 1
        got = assign_unread(rules, hand.dealer, hand.trump_card, blind)
        if got is not None:
            named += 1
            assert list(got) == [plays[i][0] for i in sorted(hidden)], seed
        if tried == 40:
            break
    assert tried == 40 and named >= 10, (tried, named)
