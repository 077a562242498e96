"""The game check counts a card recorded in another card's place as misread,
even when that card was played elsewhere in the hand (it then is no "wrong card")."""

from sueca.vision.gamecheck import compare


def _truth():
    plays = [{"card": c, "seat": s, "t": t} for c, s, t in
             [("2S", 2, 7.3), ("6S", 3, 9.2), ("4S", 0, 11.2), ("KS", 1, 13.0), ("2C", 2, 81.1)]]
    return [{"dealer": 0, "trump_card": "5H", "plays": plays}]


def _record(plays, unresolved=None):
    rec = {"hands": [{"dealer": 0, "trump_card": "5H", "plays": plays}]}
    if unresolved:
        rec["unresolved"] = unresolved
    return rec


def test_right_record_has_no_misread():
    r = compare(_truth(), _record([{"card": p["card"], "seat": p["seat"], "t": p["t"] + 0.1}
                                   for p in _truth()[0]["plays"]]))
    assert r["hands_right"] == 1 and r["misread"] == 0 and r["held_misread"] == 0


def test_card_of_the_hand_in_another_place_is_a_misread():
    got = [{"card": "2C", "seat": 2, "t": 7.4}, {"card": "6S", "seat": 3, "t": 9.2},
           {"card": "4S", "seat": 0, "t": 11.3}, {"card": "KS", "seat": 1, "t": 13.1}]
    r = compare(_truth(), _record(got))
    assert r["wrong_cards"] == 0  # 2C was played, later: not a card foreign to the hand
    assert r["misread"] == 1 and r["misread_uncertain"] == 0
    got[0]["uncertain"] = True
    r = compare(_truth(), _record(got))
    assert r["misread"] == 0 and r["misread_uncertain"] == 1


def test_held_plays_are_judged_too():
    got = [{"card": "2S", "seat": 2, "t": 7.4}]
    held = [{"hand": 0, "card": None, "seat": 3, "t": 9.2, "why": "unreadable"},
            {"hand": 0, "card": "4C", "seat": 0, "t": 11.2, "why": "after an unreadable card"},
            {"hand": 0, "card": "KS", "seat": 1, "t": 13.0, "why": "after an unreadable card"}]
    r = compare(_truth(), _record(got, held))
    assert r["held_misread"] == 1 and r["misread"] == 0


def test_plays_far_from_any_truth_play_are_not_judged():
    r = compare(_truth(), _record([{"card": "9D", "seat": 2, "t": 50.0}]))
    assert r["misread"] == 0 and r["wrong_cards"] == 1
