"""Server mode: the referee's committed record is the pipeline's single truth.

With a dashboard the referee may change the match at any moment (dealer and
trump, a play's card or seat, undo, confirm, a new match). The pipeline then
keeps no game of its own: whose turn it is, the cards already played and
whether a hand still waits for its dealer and trump all come from the
committed ``MatchRecord``, read before each frame and after each event handed
over. Plays seen while no hand can take them are held here and go in, in
order, once the referee (or the camera) sets the dealer and trump.

>>> # Pipeline(source, recognizer, cal, on_event=feed.on_event, committed=feed.committed)

``committed`` is any callable returning the current record; it is called from
the pipeline's thread, so it must be safe to call there (``LiveFeed.committed``
reads the referee's folded view under its lock).
"""

from __future__ import annotations

import logging
from collections import Counter

from sueca.engine import Card, Match, MatchRecord, RecordError

from .events import PlayCorrected, PlayEvent, TrumpSeen

log = logging.getLogger("sueca.vision.pipeline")


def new_match(old: MatchRecord, new: MatchRecord) -> bool:
    """``new`` is another match, not ``old`` corrected: an undo drops at most a
    hand that had no plays yet, and nothing else removes hands.

    >>> from sueca.engine import Card
    >>> a = MatchRecord().new_hand(0, Card.parse("5H")).add_play(Card.parse("AS"))
    >>> new_match(a, MatchRecord()), new_match(a, a.undo_last_play())
    (True, False)
    """
    if len(new.hands) >= len(old.hands):
        return False
    return bool(old.hands[-1].plays) or len(new.hands) < len(old.hands) - 1


class FollowsCommitted:
    """The server-mode half of :class:`~sueca.vision.pipeline.Pipeline` (a mixin:
    it works on the pipeline's own state; offline mode never calls it)."""

    def _served(self, ev) -> None:
        """One detector event in server mode: plays go out when the record can take them."""
        if isinstance(ev, PlayEvent):
            self.plays += 1
            self._emit_t[id(ev)] = self._now_t
            self._sync()
            self._release()
            self._add_or_hold(ev)
        elif isinstance(ev, TrumpSeen):
            self._sync()  # the referee may have named the unread card meanwhile: none to deduce
            self.deduce_unknown()
            self._emit(ev)
            self._sync()
            hand = self._hand
            if hand is not None and hand.plays and (hand.trump_card.code, hand.dealer) != (ev.card, ev.seat):
                # the table began another hand before this one was complete here (a
                # play missed): the new hand's plays wait, and this trump goes again once
                # the referee completes the hand (or starts one himself)
                if self._blocked:
                    self._abandon()
                self._next_trump = (ev, len(self.record.hands))
                self._hand = None
            self._release()
        elif isinstance(ev, PlayCorrected):
            if not self._correct_pending(ev):  # a held play is fixed here, unseen there
                self._emit(ev)
                self._sync()
        else:
            self._emit(ev)

    def _tell_referee(self, ev: PlayEvent) -> None:
        """A play that cannot go in as it is: in server mode the dashboard shows why
        (the referee's service refuses and lists it); offline it was emitted already."""
        if self.committed is not None:
            self._emit(ev)

    def _commit(self, ev: PlayEvent, card: Card) -> None:
        """Hand a play to the referee's record, then follow what the record became."""
        self._emit(ev)
        self._sync(force=True)  # refused there (a race with the referee): drop the trial play here
        h = len(self.record.hands) - 1
        plays = self.record.hands[h].plays if h >= 0 else ()
        last = plays[-1] if plays else None
        if last is not None and last.card == card and last.t is not None and abs(last.t - round(ev.t, 3)) < 1e-6:
            key = (h, len(plays) - 1)
            self.emitted[key] = self._emit_t.pop(id(ev), self._now_t)
            if ev.uncertain:
                self._flags[key] = {"uncertain": True, "confidence": ev.confidence}
        else:
            self._emit_t.pop(id(ev), None)
            log.warning("play %s at t=%.2f was not committed", card, ev.t)

    def _release(self) -> None:
        """Held plays go in, in order, once the record has a hand for them."""
        if not self._pending or self._blocked or self._hand is None:
            return
        pending, self._pending = self._pending, []
        for ev in pending:
            self._add_or_hold(ev)

    def _sync(self, force: bool = False) -> None:
        """Follow the committed record (cheap when it has not changed)."""
        rec = self.committed()
        if rec is self._seen and not force:
            return
        old, self._seen = self._seen, rec
        other = old is not None and new_match(old, rec)
        if other:
            self.finished_records.append(old)
            self._flags = {}
        if self._blocked and old is not None:
            same = len(rec.hands) == len(old.hands) and not other
            if same and rec.hands and len(rec.hands[-1].plays) > len(old.hands[-1].plays):
                # nothing goes out while blocked: the referee entered the unread card
                log.info("the referee named the unread card at t=%.2f", self._pending[0].t)
                self._pending, self._blocked = self._pending[1:], False
            elif not same:
                # another hand (or match) began: its tail is left to the referee
                self._abandon()
        self.record, self.rules = rec, rec.rules
        self._flags = {k: v for k, v in self._flags.items()
                       if k[0] < len(rec.hands) and k[1] < len(rec.hands[k[0]].plays)}
        try:
            last = Match(rec).hands[-1] if rec.hands else None
        except RecordError as e:  # the service folds only records the engine takes
            log.warning("committed record refused by the engine: %s", e)
            last = None
        # a hand decided by a renúncia still takes the rest of its forty cards (as
        # offline); after a match is won the service refuses them, with an alert
        hand = last if last is not None and not last.all_played else None
        if old is not None and not other and hand is not None and self._next_trump is None:
            # only a hand still being played: once it is over the detector has moved on
            self._follow_cards(old, rec)
        self._hand = hand
        if self._next_trump is not None:
            ev, hands = self._next_trump
            if other or len(rec.hands) != hands:
                self._next_trump = None  # the referee started a hand (or match): his stands
            elif last is None or last.is_over:
                self._next_trump = None  # the hand is complete now: the new one can begin
                self._emit(ev)
                self._sync()
                return
            else:
                self._hand = None  # still incomplete: the new hand's plays wait
        if self._hand is not None:
            self.detector.set_trump(hand.trump_card.code, hand.dealer)

    def _follow_cards(self, old: MatchRecord, new: MatchRecord) -> None:
        """The play detector learns the referee's changes to this hand's cards, so a
        card misread as another is not taken for a card already played."""
        h = len(new.hands) - 1
        if h < 0 or len(old.hands) - 1 != h:
            return
        a, b = old.hands[h].plays, new.hands[h].plays
        if len(a) == len(b):
            for p, q in zip(a, b):
                if p.card != q.card:
                    self.detector.card_corrected(p.card.code, q.card.code)
            return
        # plays added, undone, inserted or removed: what left the hand and what came in
        gone = Counter(p.card.code for p in a) - Counter(q.card.code for q in b)
        came = Counter(q.card.code for q in b) - Counter(p.card.code for p in a)
        for code in gone:
            self.detector.card_corrected(code, None)
        for code in came:
            self.detector.card_corrected(None, code)
