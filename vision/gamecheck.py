"""Compare a recorded game with the truth of a rendered or simulated one.

Truth is a list of hands ``{"dealer", "trump_card", "plays": [{"card", "seat",
"t"}]}`` (``t``: when the card came to rest); the record is the game record
of ``interfaces.md``. A hand is right when every play is there, in order, with
the right card and seat, and the dealer and trump are right.

>>> truth = [{"dealer": 0, "trump_card": "5H", "plays": [{"card": "AS", "seat": 1, "t": 2.0}]}]
>>> rec = {"hands": [{"dealer": 0, "trump_card": "5H", "plays": [{"card": "AS", "seat": 1, "t": 2.1}]}]}
>>> compare(truth, rec)["hands_right"]
1
"""

from __future__ import annotations

import difflib


def _play(p) -> tuple[str, int | None, float | None, bool]:
    if isinstance(p, str):
        return p, None, None, False
    # latency counts from when the card could be seen at rest ("t_seen" in truth)
    return p["card"], p.get("seat"), p.get("t_seen", p.get("t")), bool(p.get("uncertain", False))


#: A recorded play stands for the truth's play nearest in time when they lie this close (s);
#: plays of one trick come about 2 s apart.
SAME_PLAY_S = 0.8


def misreads(truth_plays: list[tuple], got_plays: list[tuple], within: float = SAME_PLAY_S) -> list[int]:
    """Indices of ``got_plays`` whose card is not the card played at that instant:
    each is matched to the truth's play nearest in time (same seat where both name
    one), within ``within`` seconds; plays without a time, or with no such play,
    are not judged. Tuples as :func:`_play` makes them.

    >>> misreads([("2S", 2, 7.3, False), ("2C", 1, 81.1, False)], [("2C", 2, 7.4, False)])
    [0]
    """
    out = []
    for j, (card, seat, t, _) in enumerate(got_plays):
        if t is None:
            continue
        near = [(abs(tt - t), tc) for tc, ts, tt, _ in truth_plays
                if tt is not None and abs(tt - t) <= within and (seat is None or ts is None or ts == seat)]
        if near and min(near)[1] != card:
            out.append(j)
    return out


def compare(truth: list[dict], record: dict, emitted: dict[tuple[int, int], float] | None = None) -> dict:
    """Per-hand verdicts and totals. ``emitted`` maps (hand, play) of the record
    to the time the play event came out, for latency.

    Per hand: ``wrong_cards`` recorded cards that were not played in that hand
    (uncertain ones are counted apart), ``missing`` played cards not recorded,
    ``extra`` recorded plays beyond those, ``misordered`` cards recorded out of
    their place, ``wrong_seats`` cards recorded with another seat than the one
    that played them; ``misread`` recorded cards (not uncertain) other than the card
    played at that instant (see :func:`misreads`: a card of the hand recorded in
    another's place counts here, not under ``wrong_cards``), ``misread_uncertain``
    those marked uncertain, ``held_misread`` plays held back for the referee
    (``record["unresolved"]``) that carry a card other than the one played then.
    """
    got_hands = record.get("hands", [])
    hands = []
    totals = dict.fromkeys(("wrong_cards", "missing", "extra", "misordered", "wrong_seats", "misread",
                            "misread_uncertain", "held_misread"), 0)
    uncertain = 0
    latencies = []
    for h, th in enumerate(truth):
        tp = [_play(p) for p in th["plays"]]
        gh = got_hands[h] if h < len(got_hands) else {"dealer": None, "trump_card": None, "plays": []}
        gp = [_play(p) for p in gh["plays"]]
        t_cards = {p[0]: p for p in tp}
        g_cards = [p[0] for p in gp]
        v = {"wrong_cards": sum(1 for p in gp if p[0] not in t_cards and not p[3]),
             "missing": sum(1 for c in t_cards if c not in g_cards),
             "extra": len(gp) - len({c for c in g_cards if c in t_cards}),
             "wrong_seats": sum(1 for p in gp if p[0] in t_cards and t_cards[p[0]][1] is not None
                                and p[1] != t_cards[p[0]][1])}
        uncertain += sum(1 for p in gp if p[0] not in t_cards and p[3])
        common_t = [p[0] for p in tp if p[0] in g_cards]
        common_g = [c for c in g_cards if c in t_cards]
        sm = difflib.SequenceMatcher(a=common_t, b=common_g, autojunk=False)
        v["misordered"] = sum(max(a1 - a0, b1 - b0) for op, a0, a1, b0, b1 in sm.get_opcodes() if op != "equal")
        if emitted is not None:
            for j, p in enumerate(gp):
                if (h, j) in emitted and p[0] in t_cards and t_cards[p[0]][2] is not None:
                    latencies.append(emitted[(h, j)] - t_cards[p[0]][2])
        # at rest, not "t_seen": the record's times are when the cards came to rest
        at_rest = [(p["card"], p.get("seat"), p.get("t"), False) if isinstance(p, dict) else _play(p)
                   for p in th["plays"]]
        wrong_now = misreads(at_rest, gp)
        v["misread"] = sum(1 for j in wrong_now if not gp[j][3])
        v["misread_uncertain"] = len(wrong_now) - v["misread"]
        held = [_play(p) for p in record.get("unresolved", []) if p.get("hand") == h and p.get("card")]
        v["held_misread"] = len(misreads(at_rest, held))
        seats = any(p[1] is not None for p in tp)  # truth without seats: cards only
        right = ([(p[0], p[1]) for p in tp] == [(p[0], p[1] if seats else None) for p in gp]
                 and gh.get("dealer") == th["dealer"] and gh.get("trump_card") == th["trump_card"])
        hands.append({"hand": h, "right": right, "plays": len(tp), "recorded": len(gp), **v,
                      "dealer_ok": gh.get("dealer") == th["dealer"], "trump_ok": gh.get("trump_card") == th["trump_card"]})
        for k in totals:
            totals[k] += v[k]
    n_right = sum(1 for x in hands if x["right"])
    lat = sorted(latencies)
    return {
        "hands": hands, "hands_total": len(truth), "hands_right": n_right,
        "hands_right_ratio": n_right / len(truth) if truth else 1.0,
        "extra_hands": max(0, len(got_hands) - len(truth)), **totals,
        "uncertain_substitutions": uncertain,
        "latency_median": lat[len(lat) // 2] if lat else None,
        "latency_p95": lat[int(len(lat) * 0.95)] if lat else None,
        "latency_max": lat[-1] if lat else None,
    }
