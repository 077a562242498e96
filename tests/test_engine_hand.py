import pytest

from sueca.engine import Card, Hand, Match, PlayError, Rules, Suit, score_hand
from tests.engine_helpers import C, cards, play_all, record

# Dealer 3 turned the 5 of hearts: seat 0 leads (right_of_dealer).
T0 = "AS 2S KS QS"          # seat 0 wins with the ace, 17 points
T1_REVOKE = "3D 4C 2D 6D"   # seat 1 plays a club on diamonds; seat 3 wins with the 6
T2_PROOF = "7C 2C 5D 3C"    # seat 3 leads; seat 1 (third to play) shows the 5 of diamonds


def new_hand(rules=None, **kw):
    return Hand(rules or Rules(), dealer=kw.pop("dealer", 3), trump_card=C(kw.pop("trump", "5H")), **kw)


def test_turn_order_and_trick_winner_leads():
    h = new_hand()
    assert h.turn == 0
    play_all(h, "AS 2S")
    assert h.turn == 2
    play_all(h, "KS QS")
    t = h.tricks[0]
    assert (t.leader, t.winner, t.points, t.led_suit) == (0, 0, 17, Suit.SPADES)
    assert t.seats == (0, 1, 2, 3)
    assert h.turn == 0 and h.current_trick.cards == ()


def test_first_lead_variants_and_override():
    assert new_hand(dealer=3).leader == 0
    assert new_hand(Rules(first_lead="cutter"), dealer=3).leader == 2
    assert new_hand(dealer=1, leader=2).turn == 2


@pytest.mark.parametrize("plays,winner", [
    ("AS 2S KS QS", 0),     # highest of the led suit
    ("2S AS KS QS", 1),
    ("2S 3S 2H QS", 2),     # a small trump beats the ace-less spades
    ("AS 2H 3H KS", 2),     # highest trump among two trumps
    ("KS AD AC QS", 0),     # off-suit aces never win
])
def test_trick_winner(plays, winner):
    h = play_all(new_hand(), plays)
    assert h.tricks[0].winner == winner


def test_legal_moves_follow_suit_and_forced_trump():
    h = play_all(new_hand(), "AS")
    holding = cards("2S KD 3H")
    assert h.legal_moves(holding) == cards("2S")
    assert h.legal_moves(cards("KD 3H")) == cards("KD 3H")
    hf = play_all(new_hand(Rules(forced_trump=True)), "AS")
    assert hf.legal_moves(cards("KD 3H 6H")) == cards("3H 6H")
    assert hf.legal_moves(cards("KD QC")) == cards("KD QC")
    assert new_hand().legal_moves(holding) == holding  # leading: anything


def test_impossible_plays_raise():
    h = play_all(new_hand(), "AS")
    with pytest.raises(PlayError, match="8S is not in the Sueca deck"):
        h.play(C("8S"))
    with pytest.raises(PlayError, match="AS was already played"):
        h.play(C("AS"))
    # the turned trump card belongs to the dealer (seat 3); it is seat 1's turn
    with pytest.raises(PlayError, match="turned trump card of the dealer"):
        h.play(C("5H"))
    assert len(h.plays) == 1  # nothing recorded by a refused play


def test_seat_mismatch_is_reported_not_reseated():
    h = new_hand()
    h.play(C("AS"), seat=0)
    h.play(C("2S"), seat=2)
    assert h.plays[1][1] == 1
    assert [(m.play, m.expected, m.seen) for m in h.seat_mismatches] == [(1, 1, 2)]


def test_renuncia_proven_by_a_later_card_of_the_suit_auto_ends_the_hand():
    h = play_all(new_hand(), f"{T0} {T1_REVOKE}")
    assert h.renuncias == [] and not h.is_over
    play_all(h, T2_PROOF)
    [r] = h.renuncias
    assert (r.seat, r.trick, r.led_suit, r.proven_at_trick, r.proof_card, r.proof_play) == \
        (1, 1, Suit.DIAMONDS, 2, C("5D"), 10)
    assert h.is_over and h.decided_by is r
    # points and tricks up to the proof; the opponents of seat 1 score 4
    assert h.points == (17, 0) and h.tricks_won == (1, 1)
    res = h.result()
    assert res.riscos == (4, 0) and res.outcome == "renuncia"


def test_play_after_the_proof_does_not_change_the_result():
    h = play_all(new_hand(), f"{T0} {T1_REVOKE} {T2_PROOF} KD 7D QD JD")
    assert h.result().riscos == (4, 0)
    assert h.points == (17, 0)


def test_dealer_not_following_trump_with_the_turned_card_unplayed_is_proven_at_once():
    h = play_all(new_hand(), "AH 2H 3H 4S")
    [r] = h.renuncias
    assert (r.seat, r.trick, r.proven_at_trick, r.proof_card) == (3, 0, 0, C("5H"))
    assert h.result().riscos == (4, 0)  # seat 3 is team 1: team 0 scores


def test_a_player_who_was_really_void_is_never_accused():
    # seat 1 has no diamonds: plays a club on diamonds and never plays a diamond later
    h = play_all(new_hand(), f"{T0} {T1_REVOKE} 7C 2C 4S 3C")
    assert h.renuncias == []


def test_claim_mode_waits_for_a_decision():
    rec = record((3, "5H", f"{T0} {T1_REVOKE} {T2_PROOF}"), rules={"renuncia": "claim"})
    m = Match(rec)
    hand = m.hands[0]
    assert [(r.seat, r.trick) for r in hand.pending_renuncias] == [(1, 1)]
    assert not hand.is_over and m.riscos == (0, 0)
    assert m.report()["hands"][0]["renuncias"][0]["status"] == "pending"
    confirmed = Match(rec.decide_renuncia(0, 1, 1, True))
    assert confirmed.riscos == (4, 0) and confirmed.hands[0].is_over
    assert confirmed.report()["hands"][0]["renuncias"][0]["status"] == "confirmed"
    dismissed = Match(rec.decide_renuncia(0, 1, 1, False))
    assert dismissed.riscos == (0, 0) and not dismissed.hands[0].is_over
    assert dismissed.hands[0].pending_renuncias == []


def test_forced_trump_revoke():
    rules = Rules(forced_trump=True)
    # seat 1 is void in diamonds and plays a club instead of trumping; later plays a trump
    # trick 2: seat 1 follows clubs; trick 3: seat 1 trumps clubs with the 6 of hearts
    h = play_all(new_hand(rules), f"{T0} 3D 4C 2D 6D 7C 2C KC 3C 6C JC 6H")
    kinds = [(r.seat, r.trick, r.kind, r.proof_card.code) for r in h.renuncias]
    assert kinds == [(1, 1, "trump", "6H")]
    # without the variant the same plays are legal
    h2 = play_all(new_hand(), f"{T0} 3D 4C 2D 6D 7C 2C KC 3C 6C JC 6H")
    assert h2.renuncias == []


def test_one_result_per_revoke_even_with_two_revokes_in_one_suit():
    rules = Rules(renuncia="claim")
    # seat 1 fails diamonds twice (tricks 1 and 2), then shows a diamond
    h = play_all(new_hand(rules), f"{T0} 3D 4C 2D 6D 4D 7D QC JD JS 5D")
    assert [(r.seat, r.trick, r.proof_card.code) for r in h.renuncias] == [(1, 1, "5D"), (1, 2, "5D")]


@pytest.mark.parametrize("points,tricks,rules,riscos,outcome", [
    ((74, 46), (6, 4), {}, (1, 0), "points"),            # seed example: 74-46 is 1 risco
    ((61, 59), (5, 5), {}, (1, 0), "points"),
    ((90, 30), (7, 3), {}, (1, 0), "points"),
    ((91, 29), (7, 3), {}, (2, 0), "points"),
    ((29, 91), (3, 7), {}, (0, 2), "points"),
    ((120, 0), (9, 1), {}, (2, 0), "points"),            # 120 but a pointless trick lost: 2
    ((120, 0), (10, 0), {}, (4, 0), "capote"),
    ((120, 0), (9, 1), {"capote": "points_120"}, (4, 0), "capote"),
    ((60, 60), (5, 5), {}, (0, 0), "tie"),
    ((95, 25), (8, 2), {"pente": True}, (4, 0), "pente"),
    ((85, 35), (8, 2), {"pente": True}, (1, 0), "points"),
    ((95, 25), (8, 2), {"rolha": True}, (2, -2), "points"),
    ((90, 30), (8, 2), {"rolha": True}, (1, 0), "points"),
    ((0, 120), (0, 10), {"rolha": True}, (-2, 4), "capote"),
])
def test_score_table(points, tricks, rules, riscos, outcome):
    res = score_hand(Rules.from_dict(rules), points, tricks, complete=True)
    assert (res.riscos, res.outcome) == (riscos, outcome)


def test_tie_bonus_is_cumulative_and_goes_to_the_next_decided_hand():
    rules = Rules(tie="next_hand_bonus")
    first = score_hand(rules, (60, 60), (5, 5), True)
    second = score_hand(rules, (60, 60), (4, 6), True, bonus=first.bonus_after)
    assert (first.bonus_after, second.bonus_after) == (1, 2)
    decided = score_hand(rules, (80, 40), (6, 4), True, bonus=second.bonus_after)
    assert decided.riscos == (3, 0) and decided.bonus_used == 2 and decided.bonus_after == 0
    assert score_hand(Rules(), (60, 60), (5, 5), True).bonus_after == 0


def test_incomplete_hand_scores_nothing_yet():
    h = play_all(new_hand(), T0)
    assert h.result().riscos == (0, 0) and h.result().outcome == "in_progress"


@pytest.mark.parametrize("points,riscos", [((75, 45), (2, 0)), ((45, 75), (0, 2)), ((95, 25), (3, 0))])
def test_seed_example_next_hand_after_a_tie_is_worth_one_more(points, riscos):
    # English seed: after a 60-60 tie the winners of the next hand score two games
    # for 61-90 points and three for 91 or more.
    rules = Rules(tie="next_hand_bonus")
    tie = score_hand(rules, (60, 60), (5, 5), True)
    assert score_hand(rules, points, (6, 4), True, bonus=tie.bonus_after).riscos == riscos


def test_match_carries_the_tie_bonus_across_hands():
    import random as _r
    from sueca.engine import HandRecord, MatchRecord, random_hand
    rules = Rules(tie="next_hand_bonus", target=10)
    rng = _r.Random(0)
    hands, results = [], []
    # search random hands until a tie appears, then add a decided one after it
    while not any(r.outcome == "tie" for r in results[:-1]) or results[-1].outcome in ("tie",):
        hands.append(random_hand(rng, rules, len(hands) % 4))
        m = Match(MatchRecord(rules, tuple(hands)))
        if m.winner is not None:
            hands, results = [], []
            continue
        results = m.results
    last = results[-1]
    ties_before = 0
    for r in reversed(results[:-1]):
        if r.outcome != "tie":
            break
        ties_before += 1
    assert last.bonus_used == ties_before >= 1
    assert last.riscos[last.winner] == {"points": 0, "capote": 4, "pente": 4, "renuncia": 4}.get(last.outcome, 0) \
        + ties_before + (0 if last.outcome != "points" else (1 if max(m.hands[-1].points) <= 90 else 2))


def test_incremental_decision_in_claim_mode_matches_the_record_decision():
    h = play_all(new_hand(Rules(renuncia="claim")), f"{T0} {T1_REVOKE} {T2_PROOF}")
    h.decide(1, 1, True)
    assert h.result().riscos == (4, 0) and h.is_over
    h.decide(1, 1, False)
    assert h.decided_by is None and not h.is_over
    with pytest.raises(PlayError, match="no proven renúncia of seat 2"):
        h.decide(2, 1, True)
    auto = play_all(new_hand(), f"{T0} {T1_REVOKE} {T2_PROOF}")
    with pytest.raises(PlayError, match="only in claim mode"):
        auto.decide(1, 1, False)
    assert auto.result().riscos == (4, 0)
