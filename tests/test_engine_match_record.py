import json
import random

import pytest

from sueca.engine import Card, Match, MatchRecord, RecordError, Rules, random_hand, random_match
from tests.engine_helpers import C, record


def full_hand(seed, dealer=0, rules=Rules()):
    return random_hand(random.Random(seed), rules, dealer)


def test_record_round_trip_exactly():
    obj = {"rules": {"target": 4, "capote": "all_tricks", "tie": "nothing",
                     "first_lead": "right_of_dealer", "renuncia": "auto", "forced_trump": False,
                     "pente": False, "rolha": False, "ten_for_seven": False},
           "hands": [{"dealer": 3, "trump_card": "5H",
                      "plays": ["AS", "2S", "KS", "QS", {"card": "7D", "seat": 0, "t": 81.4}]}]}
    rec = MatchRecord.from_json(obj)
    assert rec.to_json() == obj
    assert MatchRecord.from_json(json.loads(json.dumps(rec.to_json()))) == rec


def test_missing_rules_take_defaults():
    rec = MatchRecord.from_json({"hands": []})
    assert rec.rules == Rules()


@pytest.mark.parametrize("obj,msg", [
    ([], "a record must be a JSON object"),
    ({"hands": [{"dealer": 3}]}, "hand 0: missing 'trump_card'"),
    ({"hands": [{"dealer": 4, "trump_card": "5H"}]}, "hand 0: dealer must be a seat 0..3"),
    ({"hands": [{"dealer": 3, "trump_card": "5X"}]}, "hand 0: unknown card '5X' in trump_card"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS", "ZZ"]}]}, "hand 0, play 1: unknown card 'ZZ'"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS", {"seat": 1}]}]}, "hand 0, play 1: play object without 'card'"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": [{"card": "AS", "seat": 7}]}]}, "hand 0, play 0: play seat"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": [{"card": "AS", "t": -1}]}]}, "hand 0, play 0: play time"),
    ({"hands": [{"dealer": 3, "trump_card": "5H", "plays": [3]}]}, "hand 0, play 0: a play must be"),
    ({"rules": {"tie": "x"}, "hands": []}, "rules.tie"),
])
def test_malformed_records_name_the_place(obj, msg):
    with pytest.raises(RecordError, match=msg):
        MatchRecord.from_json(obj)


@pytest.mark.parametrize("plays,msg", [
    ("AS 2S AS", "hand 0, play 2: AS was already played"),
    ("AS 8S", "hand 0, play 1: 8S is not in the Sueca deck"),
])
def test_impossible_records(plays, msg):
    with pytest.raises(RecordError, match=msg):
        Match(record((3, "5H", plays)))


def test_more_than_40_plays():
    hr = full_hand(1)
    obj = {"hands": [{"dealer": 0, "trump_card": hr.trump_card.code,
                      "plays": [p.card.code for p in hr.plays] + ["AS"]}]}
    with pytest.raises(RecordError, match="hand 0, play 40: more than 40 plays"):
        Match(MatchRecord.from_json(obj))


def test_strict_mode_rejects_a_seat_out_of_turn():
    obj = {"hands": [{"dealer": 3, "trump_card": "5H", "plays": ["AS", {"card": "2S", "seat": 2}]}]}
    rec = MatchRecord.from_json(obj)
    assert Match(rec).report()["hands"][0]["seat_mismatches"] == [{"play": 1, "expected": 1, "seen": 2}]
    with pytest.raises(RecordError, match="hand 0, play 1: seat 2 played 2S on seat 1's turn"):
        Match(rec, strict=True)


def test_only_the_last_hand_may_be_incomplete():
    rec = record((3, "5H", "AS 2S"), (0, "5D", ""))
    with pytest.raises(RecordError, match="hand 0: hand has 2 plays but is not the last one"):
        Match(rec)


def test_match_to_target_and_nothing_after_the_winner():
    rng = random.Random(3)
    rec = random_match(rng, Rules(target=4))
    m = Match(rec)
    assert m.winner in (0, 1) and m.riscos[m.winner] >= 4
    assert m.won_at_hand == len(rec.hands) - 1
    # dealer passes one seat in playing order
    assert all(b.dealer == (a.dealer + 1) % 4 for a, b in zip(rec.hands, rec.hands[1:]))
    extra = rec.new_hand(m.hands[-1].dealer, Card.parse("2C"))
    with pytest.raises(RecordError, match=f"hand {len(rec.hands)}: the match was already won"):
        Match(extra)


def test_next_dealer_and_report_of_a_live_hand():
    rec = MatchRecord(Rules(), (full_hand(5, dealer=2),))
    m = Match(rec)
    assert m.next_dealer == 3
    live = rec.new_hand(3, Card.parse("QC")).add_play(Card.parse("AH"), seat=0, t=1.0)
    rep = Match(live).report()
    h = rep["hands"][-1]
    assert h["complete"] is False and h["turn"] == 1
    assert h["current_trick"] == {"leader": 0, "cards": ["AH"]}
    assert sum(rep["hands"][0]["points"]) == 120


def test_corrections_rederive_the_score():
    rec = record((3, "5H", "AS 2S KS QS"))
    fixed = rec.replace_card(0, 1, C("7S"))
    assert Match(fixed).hands[0].tricks[0].winner == 0
    assert Match(fixed).hands[0].tricks[0].points == 27
    assert rec.replace_card(0, 1, C("7S")).replace_card(0, 1, C("2S")) == rec
    assert rec.add_play(C("3D")).undo_last_play() == rec
    assert rec.set_dealer(0, 1).hands[0].dealer == 1
    assert Match(rec.set_dealer(0, 1)).hands[0].leader == 2
    assert Match(rec.set_trump(0, C("3C"))).hands[0].trump.code == "C"
    with pytest.raises(RecordError, match="turned trump card of the dealer"):
        Match(rec.set_trump(0, C("2S")))
    assert rec.replace_seat(0, 1, 2).hands[0].plays[1].seat == 2
    missed = record((3, "5H", "AS KS QS"))
    assert missed.insert_play(0, 1, C("2S")) == rec
    assert rec.remove_play(0, 1) == missed and rec.remove_play(0, -1) == record((3, "5H", "AS 2S KS"))
    assert rec.insert_play(0, 4, C("3D"), seat=0, t=2.5) == rec.add_play(C("3D"), 0, 2.5)
    with pytest.raises(RecordError, match="cannot insert at play 5"):
        rec.insert_play(0, 5, C("3D"))
    with pytest.raises(RecordError, match="seat must be a seat"):
        rec.insert_play(0, 0, C("3D"), seat=4)
    with pytest.raises(RecordError, match="no play 4"):
        rec.remove_play(0, 4)
    with pytest.raises(RecordError, match="no play 9"):
        rec.replace_card(0, 9, C("2C"))
    with pytest.raises(RecordError, match="no hand 3"):
        rec.set_dealer(3, 0)
    empty = MatchRecord()
    with pytest.raises(RecordError, match="no hand started"):
        empty.add_play(C("AS"))
    with pytest.raises(RecordError, match="nothing to undo"):
        empty.undo_last_play()


def test_decision_on_an_unproven_renuncia_is_an_error():
    rec = record((3, "5H", "AS 2S KS QS"), rules={"renuncia": "claim"}).decide_renuncia(0, 1, 0, True)
    with pytest.raises(RecordError, match="never proven"):
        Match(rec)


def test_renuncia_in_claim_mode_serialises_decisions():
    rec = record((3, "5H", "AS 2S KS QS"), rules={"renuncia": "claim"}).decide_renuncia(0, 1, 0, False)
    obj = rec.to_json()
    assert obj["hands"][0]["renuncia_decisions"] == [{"seat": 1, "trick": 0, "confirm": False}]
    assert MatchRecord.from_json(obj) == rec
