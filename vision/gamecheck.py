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
    to the time the play event came out, for latency."""
    got_hands = record.get("hands", [])
    hands = []
    wrong_cards = missing = extra = wrong_seats = uncertain = 0
    latencies = []
    for h, th in enumerate(truth):
        tp = [_play(p) for p in th["plays"]]
        gh = got_hands[h] if h < len(got_hands) else {"dealer": None, "trump_card": None, "plays": []}
        gp = [_play(p) for p in gh["plays"]]
        sm = difflib.SequenceMatcher(a=[p[0] for p in tp], b=[p[0] for p in gp], autojunk=False)
        h_wrong = h_missing = h_extra = h_seats = 0
        for op, a0, a1, b0, b1 in sm.get_opcodes():
            if op == "equal":
                for i, j in zip(range(a0, a1), range(b0, b1)):
                    if tp[i][1] is not None and gp[j][1] != tp[i][1]:
                        h_seats += 1
                    if emitted is not None and (h, j) in emitted and tp[i][2] is not None:
                        latencies.append(emitted[(h, j)] - tp[i][2])
            elif op == "replace":
                h_wrong += sum(1 for j in range(b0, b1) if not gp[j][3])
                uncertain += sum(1 for j in range(b0, b1) if gp[j][3])
                h_missing += max(0, (a1 - a0) - (b1 - b0))
            elif op == "delete":
                h_missing += a1 - a0
            elif op == "insert":
                h_extra += b1 - b0
                h_wrong += sum(1 for j in range(b0, b1) if not gp[j][3] and gp[j][0] not in
                               {p[0] for p in tp})
        right = (h_wrong == h_missing == h_extra == h_seats == 0 and len(tp) == len(gp)
                 and gh.get("dealer") == th["dealer"] and gh.get("trump_card") == th["trump_card"])
        hands.append({"hand": h, "right": right, "plays": len(tp), "recorded": len(gp),
                      "wrong_cards": h_wrong, "missing": h_missing, "extra": h_extra,
                      "wrong_seats": h_seats, "dealer_ok": gh.get("dealer") == th["dealer"],
                      "trump_ok": gh.get("trump_card") == th["trump_card"]})
        wrong_cards += h_wrong
        missing += h_missing
        extra += h_extra
        wrong_seats += h_seats
    right = sum(1 for x in hands if x["right"])
    lat = sorted(latencies)
    return {
        "hands": hands, "hands_total": len(truth), "hands_right": right,
        "hands_right_ratio": right / len(truth) if truth else 1.0,
        "extra_hands": max(0, len(got_hands) - len(truth)),
        "wrong_cards": wrong_cards, "missing": missing, "extra": extra, "wrong_seats": wrong_seats,
        "uncertain_substitutions": uncertain,
        "latency_median": lat[len(lat) // 2] if lat else None,
        "latency_p95": lat[int(len(lat) * 0.95)] if lat else None,
        "latency_max": lat[-1] if lat else None,
    }
