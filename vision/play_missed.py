"""Plays nobody saw: a card that landed and was covered, or gathered with its trick, between
two frames of a slow camera, never a play of its own.

Each seat plays once a trick, in turn, so the seats of the cards that were seen tell where one
is missing: a card from the seat after next, a trick swept a card short and then led from a
seat other than the one it owes (or by that seat, on a table swept clean), a trick of three
gone from view when one of its seats plays again, a hand's last trick swept a card short when
the next hand's trump is turned (or the frames end), a trick's second card on a table with no
lead, from the seat after the rules' turn. The missing seat's play goes out with no card, in
its turn; the pipeline holds the hand until the referee names it or the hand's end tells it
apart, and the card, if it comes to light in its trick after all, names it. Mixed into
:class:`sueca.vision.play_events.PlayDetector`, whose state (``_trick``, ``_owed``,
``_tracks_now``, ``_doubled``, ``_roles``, ``_entered``, ``_turn_trusted``, ``_hand_cards``,
``_plays_in_hand``, ``_gone_since``, ``notices``, ``calibration``, ``config``) it reads and
keeps.
"""

from __future__ import annotations

import math

from .events import PlayCorrected, PlayEvent
from .play_parts import OnTable, seats_in_turn
from .tracker import TrackView


class MissedPlays:
    """The play detector's plays nobody saw; see the module docstring."""

    def _in_turn(self) -> list[int] | None:
        """The trick's seats when they are all known and run in turn, else None."""
        seats = [e.seat for e in self._trick]
        return seats if seats_in_turn(seats) else None

    def _skipped_seat(self, seats: list[int], seat: int, turn: int | None) -> int | None:
        """The seat between the trick's last and ``seat`` whose card nobody saw, when the new
        card comes from the seat after next (at a slow frame rate a card can land and be
        covered between two frames). Each seat plays once a trick, in turn: the trick's
        ``seats`` (in turn) must leave room for two more and not hold ``seat``; the rules'
        turn, where known, is the skipped seat."""
        skipped = (seats[-1] + 1) % 4
        if len(seats) > 2 or seat != (skipped + 1) % 4 or (turn is not None and turn != skipped):
            return None
        return skipped

    def _last_seat_missed(self, seats: list[int], seat: int, tr: TrackView) -> int | None:
        """The trick's fourth seat, when its three cards (``seats``, in turn) are gone from
        view (swept before the sweep was told) and the new card ``tr`` comes from a seat
        that played in it: that card leads the next trick, and the fourth card nobody saw."""
        if len(seats) != 3 or seat not in seats or self._cards_beside(tr):
            return None
        return (seats[-1] + 1) % 4

    def _owe_missed(self) -> None:
        """A trick swept a card short: the seat after its last played a card nobody saw,
        unless the next card comes from that very seat while cards lie read beside it (a
        hand had only hidden the trick, and this is its last card; on a table swept clean
        it is the owed card's seat leading, having won the trick). Decided at the next play
        (:meth:`_missed_plays`)."""
        seats = self._in_turn()
        if seats is not None and len(seats) == 3:
            self._owed = ((seats[-1] + 1) % 4, self._trick[-1].play_t, self._gone_since)
        else:
            self._owed = None

    def _missed_plays(self, tr: TrackView, seat: int | None, turn: int | None, until: float,
                      frame_index: int) -> list[PlayEvent]:
        """Plays with no card, before the card ``tr`` from ``seat`` is played, for the
        seats that played a card nobody saw (the pipeline holds the hand until the referee
        names them, or the hand's end tells them apart); their time is a guess between the
        plays around them. Only a new card read for sure, from a known seat, is evidence
        (a card read again after it was played may be an old card seen anew)."""
        owed, self._owed = self._owed, None
        if seat is None or not tr.identity or tr.id in self._doubled:
            return []
        in_trick = bool(self._trick)
        if in_trick:
            seats = self._in_turn()
            skipped = None if seats is None else self._skipped_seat(seats, seat, turn)
            if skipped is None and seats is not None:
                skipped = self._last_seat_missed(seats, seat, tr)
            if skipped is None:
                return []
            last, end = self._trick[-1].play_t, until
        elif owed is not None and (seat != owed[0] or not self._cards_beside(tr)):
            skipped, last, end = owed  # the last trick's, already swept
        elif self._lead_missed(tr, seat, turn):
            skipped, last, end, in_trick = turn, min(self._entered.get(tr.id, until), until), until, True
        else:
            return []
        return [self._unseen_play(skipped, last, end, frame_index, in_trick)]

    def _owed_at_hand_end(self, frame_index: int) -> list[PlayEvent]:
        """The hand's last trick was swept a card short and the next hand's trump is turned:
        the seat owed played the hand's fortieth card, which nobody saw."""
        owed, self._owed = self._owed, None
        if owed is None or self._plays_in_hand != 39:
            return []
        return [self._unseen_play(*owed, frame_index, in_trick=False)]

    def _unseen_play(self, seat: int, last: float, end: float, frame_index: int, in_trick: bool) -> PlayEvent:
        """A play of ``seat`` with no card, at a time guessed between ``last`` and ``end``."""
        t = round(last + (max(end, last) - last) / 2, 3)
        if in_trick:
            self._trick.append(OnTable("", -1, (math.nan, math.nan), t, uncertain=True, play_t=t, seat=seat))
        self._plays_in_hand += 1
        self.notices.append((t, f"seat {seat}'s card was never seen: the referee names it"))
        return PlayEvent(card="", seat=seat, t=t, confidence=0.0, uncertain=True, frame_index=frame_index,
                         unseen=True)

    def _unseen_found(self, tr: TrackView, seat: int | None, t: float) -> PlayCorrected | None:
        """The card of a play given as nobody's seen, come to light in its trick after all
        (it lay under a hand, say): read for sure, from that play's seat. It names that
        play, in its place, rather than being a play of its own."""
        if seat is None or not tr.identity or tr.id in self._doubled:
            return None
        for e in self._trick:
            if e.track_id == -1 and not e.card and e.seat == seat:
                e.card, e.track_id, e.center, e.last_seen = tr.identity, tr.id, tr.center, t
                e.uncertain = False
                self._roles[tr.id] = "played"
                self._hand_cards.add(tr.identity)
                self.notices.append((t, f"seat {seat}'s card, not seen played, is {tr.identity}"))
                return PlayCorrected(card=tr.identity, previous="", play_t=e.play_t, t=t,
                                     confidence=round(tr.identity_confidence, 4))
        return None

    def _lead_missed(self, tr: TrackView, seat: int, turn: int | None) -> bool:
        """Whether ``tr``, from ``seat``, is the trick's second card on a table with no lead:
        it comes from the seat after the rules' turn, so the lead lies under a hand or went
        unseen (its card, found, names the play given for it). Not where a box from the
        turn's seat lay there lately, nor after a trick whose cards came from other seats
        than the turn said (a misread card can make the record's winner, and so its turn,
        another than the table's)."""
        return (turn is not None and seat == (turn + 1) % 4 and self._turn_trusted
                and not self._unplayed_from(turn, tr))

    def _unplayed_from(self, seat: int, tr: TrackView) -> bool:
        """Whether a box not yet a play, from ``seat``, was in the play area lately (beside
        ``tr``): that seat's card may be it, seen but not yet ready, rather than unseen."""
        return any(v.id != tr.id and v.id not in self._roles and tr.last_t - v.last_t < self.config.hold_lost_s
                   and self.calibration.is_in_play_area(v.center) and self._seat(v, None) == seat
                   for v in self._tracks_now)

    def _cards_beside(self, tr: TrackView) -> bool:
        """Whether another card, read, lies in view in the play area beside ``tr``."""
        return any(v.id != tr.id and v.visible and v.best and self._roles.get(v.id) != "trump"
                   and self.calibration.is_in_play_area(v.center) for v in self._tracks_now)
