"""A match re-derived from its record: hands, riscos, the winner.

>>> rec = MatchRecord.from_json({"rules": {"target": 4}, "hands": []})
>>> m = Match(rec)
>>> m.riscos, m.winner, m.next_dealer
((0, 0), None, None)
"""

from __future__ import annotations

from .hand import Hand, PlayError
from .record import MatchRecord, RecordError
from .scoring import HandResult


class Match:
    """State of a match: a pure function of its :class:`MatchRecord`.

    ``strict=True`` (what ``sueca score`` uses) also rejects a play whose
    recorded seat is not whose turn it was; otherwise such plays are kept and
    listed in each hand's ``seat_mismatches``.
    """

    def __init__(self, record: MatchRecord, strict: bool = False) -> None:
        self.record = record
        self.rules = record.rules
        self.hands: list[Hand] = []
        self.results: list[HandResult] = []
        totals = [0, 0]
        bonus = 0
        self.winner: int | None = None
        self.won_at_hand: int | None = None
        last = len(record.hands) - 1
        target = self.rules.target
        for h, hr in enumerate(record.hands):
            if self.winner is not None:
                raise RecordError(f"the match was already won by team {self.winner} in hand {self.won_at_hand}", h)
            try:
                hand = Hand(self.rules, hr.dealer, hr.trump_card, hr.leader, dict(hr.decisions))
            except PlayError as e:
                raise RecordError(str(e), h) from None
            play, mismatches = hand.play, hand.seat_mismatches
            for i, (card, seat, t) in enumerate(hr.plays):
                try:
                    play(card, seat, t)
                except PlayError as e:
                    raise RecordError(str(e), h, i) from None
                if strict and mismatches:
                    mm = mismatches[0]
                    raise RecordError(f"seat {mm.seen} played {card} on seat {mm.expected}'s turn", h, i)
            for (seat, trick), _ in hr.decisions:
                if not any(r.seat == seat and r.trick == trick for r in hand.renuncias):
                    raise RecordError(f"decision on a renúncia of seat {seat} in trick {trick} that was never proven", h)
            if h < last and not hand.is_over:
                raise RecordError(f"hand has {len(hr.plays)} plays but is not the last one (40 needed)", h)
            result = hand.result(bonus)
            bonus = result.bonus_after
            totals[0] += result.riscos[0]
            totals[1] += result.riscos[1]
            self.hands.append(hand)
            self.results.append(result)
            reached = [t for t in (0, 1) if totals[t] >= target]
            if reached:
                # both can only reach it together under rolha: the hand's winner takes the match
                self.winner = result.winner if len(reached) == 2 else reached[0]
                self.won_at_hand = h
        self.riscos: tuple[int, int] = (totals[0], totals[1])
        #: tie bonus waiting for the next decided hand
        self.pending_bonus = bonus

    @property
    def current_hand(self) -> Hand | None:
        """The hand still being played, if any."""
        if self.hands and not self.hands[-1].is_over:
            return self.hands[-1]
        return None

    @property
    def next_dealer(self) -> int | None:
        """Who deals the next hand (the deal passes one seat in playing order)."""
        if not self.hands or self.winner is not None:
            return None
        return (self.hands[-1].dealer + 1) % 4

    def report(self) -> dict:
        """The score report of ``interfaces.md`` (plus a few extra fields)."""
        hands = []
        for hand, res in zip(self.hands, self.results):
            entry = {
                "dealer": hand.dealer,
                "trump": hand.trump.code,
                "trump_card": hand.trump_card.code,
                "leader": hand.leader,
                "tricks": [{"leader": t.leader, "cards": [c.code for c in t.cards],
                            "winner": t.winner, "points": t.points} for t in hand.tricks],
                "points": list(hand.points),
                "tricks_won": list(hand.tricks_won),
                "renuncias": [_renuncia_json(hand, r) for r in hand.renuncias],
                "riscos": list(res.riscos),
                "complete": hand.is_over,
                "outcome": res.outcome,
                "bonus": res.bonus_used,
            }
            cur = hand.current_trick
            if cur.cards and not hand.is_over:
                entry["current_trick"] = {"leader": cur.leader, "cards": [c.code for c in cur.cards]}
            if not hand.is_over:
                entry["turn"] = hand.turn
            if hand.seat_mismatches:
                entry["seat_mismatches"] = [{"play": m.play, "expected": m.expected, "seen": m.seen}
                                            for m in hand.seat_mismatches]
            hands.append(entry)
        return {"rules": self.rules.to_dict(), "hands": hands, "riscos": list(self.riscos),
                "winner": self.winner, "pending_bonus": self.pending_bonus}


def _renuncia_json(hand: Hand, r) -> dict:
    out = r.to_json()
    if hand.rules.renuncia == "claim":
        decision = hand.decisions.get((r.seat, r.trick))
        out["status"] = "pending" if decision is None else ("confirmed" if decision else "dismissed")
    else:
        out["status"] = "applied" if hand.decided_by is r else "proven"
    return out
