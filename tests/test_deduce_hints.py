"""Weak readings (hints) of unread plays at the hand's end (sueca.vision.deduce.reconcile)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sueca.engine import Card, Hand, Rules, random_hand
from sueca.vision.deduce import reconcile


def _hand(seed, revoke_rate=0.0):
    rules = Rules()
    hand = random_hand(random.Random(seed), rules, dealer=seed % 4, revoke_rate=revoke_rate)
    return rules, hand, [(p.card, p.seat) for p in hand.plays]


def _blind(plays, hidden):
    return [(None if i in hidden else c, s) for i, (c, s) in enumerate(plays)]


def test_true_hints_name_what_the_rules_alone_leave_open():
    """Hands where the rules alone cannot tell two unread cards apart: right hints name them."""
    opened = 0
    for seed in range(200):
        rules, hand, plays = _hand(seed)
        hidden = random.Random(-seed).sample(range(40), 2)
        blind = _blind(plays, hidden)
        if reconcile(rules, hand.dealer, hand.trump_card, blind) is not None:
            continue
        opened += 1
        truth = {i: plays[i][0] for i in hidden}
        assert reconcile(rules, hand.dealer, hand.trump_card, blind, hints=truth) == truth, seed
        one = {hidden[0]: plays[hidden[0]][0]}
        got = reconcile(rules, hand.dealer, hand.trump_card, blind, hints=one)
        assert got in (None, truth), seed  # one hint of two: the rules and it agree, or nothing
        if opened == 25:
            break
    assert opened == 25


def test_swapped_hints_never_name_a_way_the_rules_contradict():
    """Both hints wrong (each names the other's card) where the rules single out the truth:
    the truth (the swapped way is impossible) or nothing, never the swap. Where the rules
    leave both ways the swap is taken (uncertain, for the referee): the one misreading
    hints cannot be protected against."""
    contradicted = 0
    for seed in range(300):
        rules, hand, plays = _hand(seed)
        hidden = sorted(random.Random(seed).sample(range(40), 2))
        blind = _blind(plays, hidden)
        truth = {i: plays[i][0] for i in hidden}
        alone = reconcile(rules, hand.dealer, hand.trump_card, blind)
        swapped = {hidden[0]: plays[hidden[1]][0], hidden[1]: plays[hidden[0]][0]}
        got = reconcile(rules, hand.dealer, hand.trump_card, blind, hints=swapped)
        if alone == truth:
            contradicted += 1
            assert got is None or got == truth, seed
    assert contradicted >= 10


def test_hints_that_name_one_card_twice_or_a_card_seen_are_not_trusted():
    for seed in range(100):
        rules, hand, plays = _hand(seed)
        hidden = random.Random(seed).sample(range(40), 2)
        blind = _blind(plays, hidden)
        alone = reconcile(rules, hand.dealer, hand.trump_card, blind)
        twice = {i: plays[hidden[0]][0] for i in hidden}
        assert reconcile(rules, hand.dealer, hand.trump_card, blind, hints=twice) == alone
        seen = next(c for i, (c, _) in enumerate(plays) if i not in hidden)
        assert reconcile(rules, hand.dealer, hand.trump_card, blind, hints={hidden[0]: seen}) == alone


def test_a_real_renuncia_through_an_unread_play_is_named_by_full_hints():
    """An unread card in a trick that holds a real renúncia: the rules alone cannot name
    it (every way puts it into a renúncia's case); hints for each unread play can."""
    found = 0
    for seed in range(600):
        rules, hand, plays = _hand(seed, revoke_rate=0.3)
        replay = Hand(rules, hand.dealer, hand.trump_card)
        for c, s in plays:
            replay.play(c, s)
        if not replay.renuncias:
            continue
        r = replay.renuncias[0]
        in_case = [i for i in range(4 * r.trick, 4 * r.trick + 4)]
        other = next(i for i in range(39, -1, -1) if i // 4 not in (r.trick, r.proof_play // 4))
        hidden = sorted([random.Random(seed).choice(in_case), other])
        blind = _blind(plays, hidden)
        truth = {i: plays[i][0] for i in hidden}
        if reconcile(rules, hand.dealer, hand.trump_card, blind) is not None:
            continue
        got = reconcile(rules, hand.dealer, hand.trump_card, blind, hints=truth)
        assert got == truth, seed
        found += 1
        if found == 10:
            break
    assert found == 10


@given(seed=st.integers(0, 10_000), k=st.integers(2, 4), pick=st.randoms(use_true_random=False),
       wrong=st.integers(0, 3))
@settings(max_examples=120, deadline=None)
def test_one_wrong_hint_names_the_truth_or_nothing(seed, k, pick, wrong):
    """Every unread play hinted, one hint a misread naming a card the deck lacks in the
    pool (a card seen elsewhere, or none at all): the answer is the truth or nothing."""
    rules, hand, plays = _hand(seed)
    hidden = sorted(pick.sample(range(40), k))
    blind = _blind(plays, hidden)
    hints = {i: plays[i][0] for i in hidden}
    bad = hidden[wrong % k]
    hints[bad] = next(c for i, (c, _) in enumerate(plays) if i not in hidden)
    got = reconcile(rules, hand.dealer, hand.trump_card, blind, hints=hints)
    assert got is None or got == {i: plays[i][0] for i in hidden}


def test_hints_are_cards():
    rules, hand, plays = _hand(3)
    blind = _blind(plays, [4, 9])
    assert reconcile(rules, hand.dealer, hand.trump_card, blind, hints={4: plays[4][0], 9: plays[9][0]}) \
        == {4: plays[4][0], 9: plays[9][0]}
    assert isinstance(plays[4][0], Card)
