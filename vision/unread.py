"""Plays held back behind a card nobody could read, and how they get their card.

A play whose card no frame could read blocks the plays after it: the record
cannot take them in order until that card is known. The referee names it
(``resolve_card``), or, once the hand's forty cards have all hit the table,
the rules name it (``deduce_unknown``: the one card never seen, or the only
order of several that puts no play in doubt into a renúncia's case, helped by the
readings too weak to give that the plays carry as ``PlayEvent.hint``,
:mod:`sueca.vision.deduce`), marked uncertain either way. Nothing held is lost:
``held_json`` lists it for a record written in the meantime.

A play read as a card this hand already recorded is held the same way, with its
reading kept (``_read_twice``): one of the two readings is wrong, so the recorded
play is marked uncertain too, and at the hand's end the rules may rename it
(offline only: in server mode the referee's record is his to change).

While plays are held, whose turn it is still follows their seats (``held_turn``). A play
the camera read after all, or read again as another card where it lay, is put right in
place (``_correct``), held or recorded.

A mixin of :class:`sueca.vision.pipeline.Pipeline`: it works on the pipeline's
``record``, ``rules``, held ``_pending`` plays, ``_blocked`` flag, ``_hand``,
``_flags``, ``_read_twice``, ``committed`` and ``_add_or_hold``.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from sueca.engine import Card, Hand, PlayError

from .events import PlayCorrected, PlayEvent
from .play_parts import seats_in_turn

log = logging.getLogger("sueca.vision.pipeline")


def _card_or_none(code: str) -> Card | None:
    try:
        return Card.parse(code) if code else None
    except ValueError:
        return None


class UnreadPlays:
    """The pipeline's held plays: see the module docstring."""

    def _abandon(self) -> None:
        """The held plays stay unresolved: their hand is over without them."""
        self.abandoned.append(list(self._pending))
        self._abandoned_hand.append(len(self.record.hands) - 1)
        self._pending, self._blocked = [], False

    def held_json(self) -> list[dict]:
        """Plays seen that could not enter the record (a card nobody could read
        held them back), so that a record written now loses none of them."""
        out = []
        groups = list(zip(self._abandoned_hand, self.abandoned))
        if self.unresolved:
            groups.append((len(self.record.hands) - 1, self.unresolved))
        for h, plays in groups:
            for k, ev in enumerate(plays):
                out.append({"hand": h, "card": ev.card or None, "seat": ev.seat, "t": round(ev.t, 3),
                            "confidence": round(float(ev.confidence), 4),
                            "why": ("unseen" if ev.unseen else "unreadable") if k == 0
                            else "after an unreadable card"})
                if ev.hint and not ev.card:
                    out[-1]["hint"] = ev.hint  # a reading too weak to give, for the referee's eye
        return out

    @property
    def unresolved(self) -> list[PlayEvent]:
        """Plays held back: the first is a card nobody could read, the rest came after it."""
        return list(self._pending) if self._blocked else []

    def resolve_card(self, card: str, uncertain: bool = False) -> None:
        """The referee names the unreadable card (``uncertain``: deduced, not named);
        the plays held after it go in."""
        if not self._blocked:
            raise ValueError("resolve_card: no unreadable play is waiting")
        Card.parse(card)
        first, rest = self._pending[0], self._pending[1:]
        self._pending, self._blocked = [], False
        for ev in [replace(first, card=card, uncertain=uncertain)] + rest:
            self._add_or_hold(ev)

    def _doubt_read_twice(self, ev: PlayEvent) -> None:
        """``ev`` (held, uncertain) reads as a card this hand already recorded: one of
        the two readings is wrong, so the recorded play is in doubt too (the referee
        sees both), and the hand's end may tell which is which (:meth:`_deduce_several`)."""
        if self._hand is None or not ev.card:
            return
        h = len(self.record.hands) - 1
        for i, p in enumerate(self.record.hands[h].plays):
            if p.card.code == ev.card:
                self._read_twice[round(ev.t, 3)] = ev.card
                self._flags.setdefault((h, i), {"uncertain": True, "confidence": 0.0})
                log.warning("hand %d: %s read again at t=%.2f; the %s of play %d is in doubt too",
                            h, ev.card, ev.t, ev.card, i)
                return

    def held_turn(self) -> int | None:
        """Whose turn it is while plays are held behind an unread card, from the seats
        they were seen at: the seat after the last, or after a whole trick its winner
        when its four cards are known (an unread card elsewhere in the hand changes
        neither). None when that cannot be told."""
        hand = self._hand
        if hand is None or not self.record.hands:
            return None
        seq = [(p.card, p.seat) for p in self.record.hands[-1].plays] + \
              [(_card_or_none(e.card), e.seat) for e in self._pending]
        if not seq or len(seq) >= len(self.rules.deck):
            return None
        # every trick since the hold must run in turn: a held play that was no play (a card
        # seen again, a ghost) shifts the count, and the seats then say so
        held_from = len(self.record.hands[-1].plays)
        for start in range(held_from - held_from % 4, len(seq), 4):
            if not seats_in_turn([s for _, s in seq[start:start + 4]]):
                return None
        trick = seq[len(seq) - (len(seq) % 4 or 4):]
        if len(trick) < 4:
            return (trick[-1][1] + 1) % 4
        if any(c is None for c, _ in trick):
            return None
        try:
            last = Hand(self.rules, hand.dealer, hand.trump_card, leader=trick[0][1])
            for card, seat in trick:
                last.play(card, seat)
        except (PlayError, ValueError):
            return None
        return last.turn

    def deduce_unknown(self) -> bool:
        """A hand whose forty cards all hit the table, one of them never read: that
        one is the card of the deck not seen (deduced, still marked uncertain); several
        never read: see :meth:`_deduce_several`."""
        if not self._blocked or self._hand is None:
            return False
        known = [p.card for p in self.record.hands[-1].plays] + \
                [Card.parse(e.card) for e in self._pending if e.card]
        unknown = [e for e in self._pending if not e.card]
        if len(known) >= 40:
            # forty cards named: the unread "plays" were not cards (a ghost of one)
            pending, self._pending, self._blocked = self._pending, [], False
            log.warning("hand %d: %d unread play(s) dropped, the hand has its forty cards",
                        len(self.record.hands) - 1, len(unknown))
            for ev in pending:
                if ev.card:
                    self._add_or_hold(ev)
            return True
        if len(unknown) >= 2 or any(round(e.t, 3) in self._read_twice for e in unknown):
            return self._deduce_several()
        missing = set(self.rules.deck) - set(known)
        if len(unknown) != 1 or len(known) != 39 or len(missing) != 1:
            return False
        card = missing.pop()
        first = self._pending[0]
        self.resolve_card(card.code, uncertain=True)  # the referee still confirms it
        h = len(self.record.hands) - 1
        self._mark_deduced(h, [(first.t, card)])
        log.warning("hand %d: the unread card at t=%.2f must be %s (the only one not seen)", h, first.t, card)
        return True

    def _deduce_several(self) -> bool:
        """Several unread plays, or one read as a card already played: the names the
        rules single out (:func:`sueca.vision.deduce.reconcile`), each marked uncertain;
        a recorded play whose card was read again may be renamed too."""
        from .deduce import reconcile

        h = len(self.record.hands) - 1
        hr = self.record.hands[h]
        n = len(hr.plays)
        plays = [(p.card, p.seat) for p in hr.plays] + \
                [(Card.parse(e.card) if e.card else None, e.seat) for e in self._pending]
        twice = {n + k: Card.parse(self._read_twice[round(e.t, 3)]) for k, e in enumerate(self._pending)
                 if not e.card and round(e.t, 3) in self._read_twice}
        weak = {n + k: c for k, e in enumerate(self._pending) if not e.card and (c := _card_or_none(e.hint))}
        named = reconcile(self.rules, hr.dealer, hr.trump_card, plays, twice, weak)
        if named is None:
            return False
        renamed = {i: c for i, c in named.items() if i < n}
        if renamed and self.committed is not None:
            return False  # the referee's record is his to change: he is asked (server mode)
        if renamed:
            record = self.record
            for i, c in renamed.items():
                record = record.replace_card(h, i, c)
            try:
                self._hand = self._replayed(record, h)
            except ValueError as e:  # the engine refuses the renamed hand: the referee decides
                log.warning("hand %d: renaming %s not applied: %s", h, renamed, e)
                return False
            self.record = record
        unread_named = [(e.t, named[n + k]) for k, e in enumerate(self._pending) if n + k in named]
        self._pending = [replace(e, card=named[n + k].code, uncertain=True) if n + k in named else e
                         for k, e in enumerate(self._pending)]
        first = self._pending[0]
        self._pending[0] = replace(first, card="")
        self.resolve_card(first.card, uncertain=True)  # the referee still confirms them
        self._mark_deduced(h, unread_named + [(hr.plays[i].t, c) for i, c in renamed.items()])
        log.warning("hand %d: named by the rules (no renúncia through a play in doubt): %s", h,
                    ", ".join(f"play {i} {c}" for i, c in sorted(named.items())))
        return True

    def _replayed(self, record, h: int):
        """Hand ``h`` of ``record`` played out again by the engine (its state after its
        plays); raises :class:`~sueca.engine.PlayError` where the engine refuses one."""
        from sueca.engine import Hand

        hand = Hand(self.rules, record.hands[h].dealer, record.hands[h].trump_card)
        for q in record.hands[h].plays:
            hand.play(q.card, q.seat, q.t)
        return hand

    def _mark_deduced(self, h: int, named: list[tuple[float, Card]]) -> None:
        """Flag the plays of hand ``h`` whose card was deduced, ``(t, card)``, as uncertain."""
        for i, p in enumerate(self.record.hands[h].plays):
            if any(p.t is not None and abs(p.t - round(t, 3)) < 1e-6 and p.card == c for t, c in named):
                self._flags[(h, i)] = {"uncertain": True, "confidence": 0.0}

    def _correct_pending(self, ev: PlayCorrected) -> bool:
        """True when the corrected play is one still held here (fixed in place)."""
        for k, p in enumerate(self._pending):
            if p.uncertain and abs(p.t - ev.play_t) < 1e-6:
                if self._read_twice.get(round(p.t, 3)) == ev.card:
                    return True  # the card it read as twice: no news, it stays held
                if k == 0 and self._blocked:
                    self.resolve_card(ev.card)
                else:
                    self._pending[k] = replace(p, card=ev.card, uncertain=False)
                return True
        return False

    def _correct(self, ev: PlayCorrected) -> None:
        """An uncertain play was read after all, or a play read again as another card where it
        lay (its first frames misread it): put the card in (never a new play)."""
        if self._correct_pending(ev):
            return
        h = len(self.record.hands) - 1
        if h < 0:
            return
        for i, play in enumerate(self.record.hands[h].plays):
            if play.t is None or abs(play.t - round(ev.play_t, 3)) >= 1e-6:
                continue
            if (h, i) not in self._flags and play.card.code != ev.previous:
                continue  # a sure play is corrected only from the card it was recorded as
            candidate = self.record.replace_card(h, i, Card.parse(ev.card))
            try:
                hand = self._replayed(candidate, h)
            except PlayError as e:
                log.warning("correction %s -> %s not applied: %s", ev.previous, ev.card, e)
                return
            self.record, self._hand = candidate, hand
            self._flags.pop((h, i), None)
            return
