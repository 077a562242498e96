"""Property tests on random legal and illegal games."""

import json
import random

from hypothesis import given, settings, strategies as st

from sueca.engine import Deal, Hand, HandRecord, Match, MatchRecord, Rules, VARIANTS, random_hand, random_match

seeds = st.integers(min_value=0, max_value=2**32 - 1)
rules_st = st.builds(lambda d: Rules.from_dict(d), st.fixed_dictionaries(
    {k: st.sampled_from(v) for k, v in VARIANTS.items() if k not in ("renuncia", "forced_trump")}))


@settings(max_examples=150, deadline=None)
@given(seeds, rules_st, st.integers(0, 3))
def test_complete_legal_hand_points_sum_to_120(seed, rules, dealer):
    hr = random_hand(random.Random(seed), rules, dealer)
    hand = Match(MatchRecord(rules, (hr,))).hands[0]
    assert hand.renuncias == []
    assert sum(hand.points) == 120 and sum(hand.tricks_won) == 10
    assert hand.is_over and hand.turn is None
    res = hand.result()
    assert res.outcome in ("points", "capote", "tie", "pente")
    if res.outcome == "tie":
        assert hand.points == (60, 60)
    else:
        w = res.winner
        assert hand.points[w] > 60 and res.riscos[w] in (1, 2, 4)


def expected_renuncias(rules: Rules, deal: Deal, hr: HandRecord) -> list[tuple]:
    """An independent oracle that knows every holding: each revoke and its first proof."""
    held = [set(h) for h in deal.holdings]
    hand = Hand(rules, hr.dealer, hr.trump_card)
    revokes = []  # [seat, trick, led suit, proof or None]
    for n, p in enumerate(hr.plays):
        seat, tnum = hand.turn, hand.trick_index
        cur = hand.current_trick.cards
        for r in revokes:
            if r[0] == seat and r[3] is None and p.card.suit == r[2]:
                r[3] = (tnum, p.card.code)
        if cur and p.card.suit != cur[0].suit and any(c.suit == cur[0].suit for c in held[seat]):
            r = [seat, tnum, cur[0].suit, None]
            if cur[0].suit == hand.trump and seat == hr.dealer and hr.trump_card in held[seat]:
                r[3] = (tnum, hr.trump_card.code)
            revokes.append(r)
        held[seat].discard(p.card)
        hand.play(p.card, p.seat)
    return sorted((s, t, su.code, pr[0], pr[1]) for s, t, su, pr in revokes if pr is not None)


@settings(max_examples=200, deadline=None)
@given(seeds, st.floats(0.05, 0.6), st.integers(0, 3))
def test_exactly_one_renuncia_per_proven_revoke(seed, rate, dealer):
    rules = Rules(renuncia="claim")
    rng = random.Random(seed)
    deal = Deal.random(rng, rules, dealer)
    hr = random_hand(rng, rules, dealer, revoke_rate=rate, deal=deal)
    hand = Match(MatchRecord(rules, (hr,))).hands[0]
    got = sorted((r.seat, r.trick, r.led_suit.code, r.proven_at_trick, r.proof_card.code) for r in hand.renuncias)
    assert got == expected_renuncias(rules, deal, hr)
    # in auto mode the first proof decides the hand, with 4 riscos to the other team
    auto = Match(MatchRecord(Rules(), (hr,))).hands[0]
    if got:
        first = min(auto.renuncias, key=lambda r: r.proof_play)
        assert auto.decided_by == first
        riscos = auto.result().riscos
        assert riscos[1 - first.seat % 2] == 4 and riscos[first.seat % 2] == 0
        assert sum(auto.points) <= 120
    else:
        assert auto.decided_by is None and sum(auto.points) == 120


@settings(max_examples=40, deadline=None)
@given(seeds, st.floats(0, 0.3))
def test_replay_equals_incremental_state(seed, rate):
    rules = Rules()
    rng = random.Random(seed)
    hr = random_hand(rng, rules, rng.randrange(4), revoke_rate=rate)
    live = Hand(rules, hr.dealer, hr.trump_card)
    for k, p in enumerate(hr.plays, 1):
        live.play(p.card, p.seat, p.t)
        replayed = Match(MatchRecord(rules, (HandRecord(hr.dealer, hr.trump_card, hr.plays[:k]),))).hands[0]
        assert (replayed.points, replayed.tricks_won, replayed.turn, replayed.renuncias, replayed.tricks,
                replayed.current_trick, replayed.is_over) == \
               (live.points, live.tricks_won, live.turn, live.renuncias, live.tricks, live.current_trick,
                live.is_over)


@settings(max_examples=40, deadline=None)
@given(seeds, rules_st, st.floats(0, 0.2))
def test_record_round_trip(seed, rules, rate):
    rec = random_match(random.Random(seed), rules, revoke_rate=rate, max_hands=12)
    obj = rec.to_json()
    again = MatchRecord.from_json(json.loads(json.dumps(obj)))
    assert again == rec and again.to_json() == obj
    assert Match(again).report() == Match(rec).report()


@settings(max_examples=40, deadline=None)
@given(seeds, rules_st)
def test_match_totals_are_the_sum_of_hands(seed, rules):
    rec = random_match(random.Random(seed), rules, revoke_rate=0.05, max_hands=60)
    m = Match(rec)
    rep = m.report()
    assert [sum(h["riscos"][t] for h in rep["hands"]) for t in (0, 1)] == rep["riscos"]
    if m.winner is not None:
        assert m.riscos[m.winner] >= rules.target
        before = Match(MatchRecord(rules, rec.hands[:-1]))
        assert before.winner is None
