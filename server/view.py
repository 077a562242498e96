"""The live state the dashboard shows, built from a folded match log.

Totals and the hand history come from ``Match(record).report()`` (the score
report of ``interfaces.md``); the live hand (turn, trick on the table, dealer,
the turned trump card) from the engine's :class:`Hand`. The page receives this
dict whole on every change, so a client that reconnects is re-synced by the
first message it gets.

>>> from sueca.server.replay import MatchView, apply
>>> v = apply(MatchView.empty(), "new_hand", {"dealer": 3, "trump_card": "5H"}, 1)
>>> s = build_state(v, {"id": 1, "title": "", "created": 0.0})
>>> s["hand"]["turn"], s["riscos"]
(0, [0, 0])
"""

from __future__ import annotations

import time

from .replay import MatchView

SNAPSHOT_URL = "/api/snapshots/{}.jpg"


def _snapshot(view: MatchView, hand: int, index: int) -> str | None:
    try:
        pm = view.meta[hand][index]
    except IndexError:
        return None
    return SNAPSHOT_URL.format(pm.event) if pm.snapshot and pm.event else None


def _play_entry(view: MatchView, h: int, index: int, card: str, seat: int) -> dict:
    pm = view.meta[h][index] if h < len(view.meta) and index < len(view.meta[h]) else None
    return {"hand": h, "index": index, "seat": seat, "card": card,
            "uncertain": bool(pm and pm.uncertain),
            "confidence": None if pm is None else pm.confidence}


def _renuncias(view: MatchView, h: int, hand, entries: list[dict]) -> list[dict]:
    out = []
    for r in entries:
        trick = r["trick"]
        leader = hand.tricks[trick].leader if trick < len(hand.tricks) else hand.current_trick.leader
        offence = 4 * trick + (r["seat"] - leader) % 4
        offence_card = hand.plays[offence][0].code if offence < len(hand.plays) else None
        out.append({**r, "hand": h, "offence_play": offence, "offence_card": offence_card,
                    "snapshots": [_snapshot(view, h, offence), _snapshot(view, h, r["proof_play"])]})
    return out


def _history(report: dict) -> list[dict]:
    return [{"index": i, "dealer": h["dealer"], "trump_card": h["trump_card"], "points": h["points"],
             "tricks_won": h["tricks_won"], "riscos": h["riscos"], "outcome": h["outcome"],
             "complete": h["complete"], "bonus": h.get("bonus", 0),
             "renuncias": len(h["renuncias"])}
            for i, h in enumerate(report["hands"])]


def _live_hand(view: MatchView, report: dict) -> tuple[dict | None, list, list, list]:
    match = view.match
    if not match.hands:
        return None, [], [], []
    h = len(match.hands) - 1
    hand = match.hands[h]
    rep = report["hands"][h]
    cur = hand.current_trick
    n_done = 4 * len(hand.tricks)
    if cur.cards:
        trick = {"number": len(hand.tricks), "leader": cur.leader, "winner": None, "complete": False,
                 "plays": [_play_entry(view, h, n_done + k, c.code, (cur.leader + k) % 4)
                           for k, c in enumerate(cur.cards)]}
    elif hand.tricks:
        # between tricks the last one stays on screen, winner marked, until the next card
        last = hand.tricks[-1]
        base = n_done - 4
        trick = {"number": len(hand.tricks) - 1, "leader": last.leader, "winner": last.winner,
                 "complete": True, "points": last.points,
                 "plays": [_play_entry(view, h, base + k, c.code, (last.leader + k) % 4)
                           for k, c in enumerate(last.cards)]}
    else:
        trick = {"number": 0, "leader": hand.leader, "winner": None, "complete": False, "plays": []}
    trump_played = any(p[0] is hand.trump_card for p in hand.plays)
    live = {
        "index": h, "dealer": hand.dealer, "trump_card": hand.trump_card.code,
        "trump": hand.trump.code, "trump_card_played": trump_played, "leader": hand.leader,
        "turn": None if hand.is_over else hand.turn, "over": hand.is_over,
        "tricks_done": len(hand.tricks), "plays": len(hand.plays), "trick": trick,
        "points": list(hand.points), "tricks_won": list(hand.tricks_won),
        "riscos": rep["riscos"], "outcome": rep["outcome"],
        "play_list": [_play_entry(view, h, i, c.code, s) for i, (c, s, _t) in enumerate(hand.plays)],
    }
    renuncias = _renuncias(view, h, hand, rep["renuncias"])
    uncertain = []
    for i, pm in enumerate(view.meta[h] if h < len(view.meta) else ()):
        if pm.uncertain and i < len(hand.plays):
            card, seat, _ = hand.plays[i]
            uncertain.append({**_play_entry(view, h, i, card.code, seat), "snapshot": _snapshot(view, h, i)})
    mismatches = [{**m, "hand": h, "card": hand.plays[m["play"]][0].code}
                  for m in rep.get("seat_mismatches", [])]
    return live, renuncias, uncertain, mismatches


def build_state(view: MatchView, match_info: dict, status: dict | None = None) -> dict:
    """Everything the page draws, JSON-ready."""
    report = view.match.report()
    riscos = report["riscos"]
    hand, renuncias, uncertain, mismatches = _live_hand(view, report)
    leading = None if riscos[0] == riscos[1] else (0 if riscos[0] > riscos[1] else 1)
    return {
        "version": view.last_event,
        "match": match_info,
        "players": list(view.players),
        "teams": list(view.teams),
        "rules": report["rules"],
        "target": report["rules"]["target"],
        "riscos": riscos,
        "winner": report["winner"],
        "leading": leading,
        "pending_bonus": report.get("pending_bonus", 0),
        "history": _history(report),
        "hand": hand,
        "renuncias": renuncias,
        "uncertain": uncertain,
        "mismatches": mismatches,
        "rejected": list(view.rejected[-5:]),
        "errors": list(view.errors[-5:]),
        "status": status or {"connected": False, "fps": 0.0, "frames": 0, "model": "", "last_error": ""},
        "server_time": time.time(),
    }
