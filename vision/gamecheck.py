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


def compare(truth: list[dict], record: dict, emitted: dict[tuple[int, int], float] | None = None) -> dict:
    """Per-hand verdicts and totals. ``emitted`` maps (hand, play) of the record
    to the time the play event came out, for latency.

    Per hand: ``wrong_cards`` recorded cards that were not played in that hand
    (uncertain ones are counted apart), ``missing`` played cards not recorded,
    ``extra`` recorded plays beyond those, ``misordered`` cards recorded out of
    their place, ``wrong_seats`` cards recorded with another seat than the one
    that played them.
    """
    got_hands = record.get("hands", [])
    hands = []
    totals = dict.fromkeys(("wrong_cards", "missing", "extra", "misordered", "wrong_seats"), 0)
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
