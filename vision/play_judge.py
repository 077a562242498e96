"""Which card is which when the table is ambiguous: the play detector's judgement calls.

Each question weighs what the camera saw against the game (whose turn it is, one card a
seat per trick), or says whether a card lies at rest, whole, and whether the trick was
swept. Mixed into :class:`sueca.vision.play_events.PlayDetector`, whose state
(``_trick``, ``_rest_best``, ``_first_rest``, ``tracker``, ``_seen_now``, ``_size``,
``_gone_since``, ``calibration``, ``config``) they read; ``_note_apart`` keeps ``_apart``
and ``_unread_views`` for ``_two_cards``, ``_learn_card_size`` keeps ``_size``,
``_note_frame_time`` keeps ``_frame_dt`` (the camera's rate, which the frame counts
follow), ``_merge_state`` moves a track's state onto the one the tracker merged it into,
``_doubled_card`` keeps ``_doubled``
(new cards that read as a card of an earlier trick: uncertain plays, never ghosts), and
``_follow_played`` keeps a played card's place in ``_trick`` (renamed when read again).
"""

from __future__ import annotations

import math

from .detections import CardDetections
from .events import PlayCorrected
from .play_parts import OnTable, frames_at_rate, polygon_area, seat_of_play, still_since, weak_reading
from .tracker import TrackView


class Judgement:
    """The play detector's judgement calls; see the module docstring."""

    # -- the camera's frame rate -------------------------------------------
    def _note_frame_time(self, t: float) -> None:
        # smoothed over about ten frames: one late frame (a slow read) is no slower camera
        if self._last_t is not None and 0.0 < t - self._last_t < 5.0:
            dt = t - self._last_t
            self._frame_dt = dt if self._frame_dt is None else 0.9 * self._frame_dt + 0.1 * dt
        self._last_t = t

    def _frames(self, n: int) -> int:
        """``n`` frames of the config's counts, at this camera's frame rate (``_frame_dt``)."""
        return frames_at_rate(n, self._frame_dt, self.config.counts_fps)

    # -- at rest, whole; swept ---------------------------------------------
    def _learn_card_size(self, dets: CardDetections) -> None:
        # Whole, readable cards teach the size of a card on this table; a box much
        # smaller than that is a card partly under a hand.
        for j, code in enumerate(dets.codes):
            if code and dets.confidence[j] >= 0.8:
                x1, y1, x2, y2 = (float(v) for v in dets.xyxy[j])
                area = (x2 - x1) * (y2 - y1) if dets.corners is None else polygon_area(dets.corners[j])
                self._size.add((x1 + x2) / 2, (y1 + y2) / 2, area)

    def _card_area(self, tr: TrackView) -> float:
        expected = self._size.at(*tr.center)
        return expected if expected is not None else max(o.area for o in tr.history)

    def _rest(self, tr: TrackView, t: float) -> tuple[float, int] | None:
        """(time it came to rest, observations at rest) when resting, seen whole, now."""
        cfg = self.config
        if not tr.visible or not tr.history:
            return None
        start, count = still_since(tr, cfg.rest_tol)
        if count < cfg.min_rest_obs or t - start < cfg.rest_s - 1e-6:
            return None
        full = cfg.full_view * self._card_area(tr)
        recent = tr.history[-cfg.min_rest_obs:]
        if any(o.area < full for o in recent):
            return None
        return start, count

    def _read_at_rest(self, tr: TrackView, t: float) -> tuple[float, int] | None:
        """(since when, observations) for a card read for sure, in view now, lying still
        ``read_rest_s`` at least in most frames and showing ``read_rest_view`` of a whole
        card's area, whether or not it was ever seen whole."""
        cfg = self.config
        if not tr.visible or not tr.history or not tr.identity:
            return None
        start, count = still_since(tr, cfg.rest_tol)
        if t - start < cfg.read_rest_s - 1e-6 or count < self._frames(cfg.partial_rest_obs):
            return None
        least = cfg.read_rest_view * self._card_area(tr)
        if any(o.area < least for o in tr.history[-cfg.min_rest_obs:]):
            return None
        return start, count

    def _lying_partly(self, tr: TrackView, t: float) -> float | None:
        """Since when ``tr``, seen now but not whole, has lain still (``partial_rest_s``
        at least, seen in most frames), else None."""
        cfg = self.config
        if not tr.visible or not tr.history:
            return None
        start, count = still_since(tr, cfg.rest_tol)
        if t - start < cfg.partial_rest_s or count < self._frames(cfg.partial_rest_obs):
            return None
        return start

    def _doubled_card(self, tr: TrackView, t: float) -> bool:
        """Whether ``tr``, reading as a card of an earlier trick of this hand, is a new
        card come to rest in the play area (rather than a ghost of an old one): the
        earlier tricks' cards lie face down in the winners' piles, so a card lying here
        that reads as one of them is another card, misread now or then. It must lie
        at rest in view, off the trick's cards, while no whole trick is being gathered."""
        if tr.id in self._doubled:
            return True
        if any(e.card == tr.identity for e in self._trick):
            return False  # a card of this very trick seen again is that card (lifted, or a second box)
        if not tr.visible or self._on_played(tr) or (len(self._trick) >= 4 and self._gathering(t)) \
                or self._rest(tr, t) is None:
            return False
        self._doubled.add(tr.id)
        return True

    def _gathering(self, t: float) -> bool:
        """Some card of the trick read for sure was not seen in the last frame or two."""
        return any(not e.uncertain and t - e.last_seen > self.config.rest_s + 1e-6 for e in self._trick)

    def _check_sweep(self, t: float, visible: set[int], stranded: int) -> bool:
        """True when the four cards of the trick (counting ones seen lying there but
        not yet read) have all been gone for ``clear_s``."""
        if not self._trick or visible:
            self._gone_since = None
            return False
        if self._gone_since is None:
            self._gone_since = t
        if len(self._trick) + stranded >= 4:
            return t - self._gone_since >= self.config.clear_s
        # fewer than four known: a play was missed; gone this long, it was swept all the same
        return t - self._gone_since >= self.config.clear_partial_s

    # -- a card already played, seen again --------------------------------
    def _follow_played(self, tr: TrackView, t: float, events: list, visible_trick: set) -> bool:
        """A card already played: keep its place in the trick. False when its track
        turned out to be another, new card (then it is a candidate again)."""
        entry = next((e for e in self._trick if e.track_id == tr.id), None)
        if entry is not None and tr.identity and self._renamed.get(tr.identity) == entry.card:
            return self._still_played(tr, t, entry, visible_trick)
        if entry is not None and entry.uncertain and tr.identity and \
                ((tr.identity == entry.card and not entry.read_twice) or tr.identity not in self._hand_cards):
            # the uncertain play was read after all
            events.append(PlayCorrected(tr.identity, entry.card, entry.play_t, t,
                                        round(tr.identity_confidence, 4)))
            self._rename_play(entry, tr.identity)
            entry.uncertain = False
        if entry is not None and not entry.uncertain and tr.identity and tr.identity != entry.card and \
                tr.identity not in self._hand_cards and self._read_again_in_place(tr, t, entry):
            # settled on its first frames (blurred as it landed) and now, lying where it
            # was played, read as a card never played: the play was misread, it is corrected
            events.append(PlayCorrected(tr.identity, entry.card, entry.play_t, t, round(tr.identity_confidence, 4)))
            self.notices.append((t, f"{entry.card} read again as {tr.identity} where it lay: play corrected"))
            self._rename_play(entry, tr.identity)
            return self._still_played(tr, t, entry, visible_trick)
        if tr.identity and (entry is None or tr.identity != entry.card) and \
                tr.identity not in self._hand_cards:
            # it reads as a card never played: the tracker carried an old card's
            # track over to a new one
            del self._roles[tr.id]
            self._entered.pop(tr.id, None)
            self._first_rest.pop(tr.id, None)
            return False
        return self._still_played(tr, t, entry, visible_trick)

    def _rename_play(self, entry, card: str) -> None:
        self._hand_cards.discard(entry.card)
        self._hand_cards.add(card)
        entry.card = card

    def _read_again_in_place(self, tr: TrackView, t: float, entry) -> bool:
        """Whether ``tr`` has lain where its play ``entry`` was seen, unmoved since the play
        and soon after it (:attr:`PlayConfig.reread_s`): the same card, not a new one."""
        near = math.hypot(tr.center[0] - entry.center[0], tr.center[1] - entry.center[1]) < \
            self.config.rest_tol * max(tr.diag, 1.0)
        return near and tr.moved_t <= entry.play_t + 1e-6 and t - entry.play_t <= self.config.reread_s

    def _still_played(self, tr: TrackView, t: float, entry, visible_trick: set) -> bool:
        if entry is not None and tr.visible:
            entry.center, entry.last_seen = tr.center, t
            if self.calibration.is_in_play_area(tr.center):
                visible_trick.add(tr.id)
        return True

    # -- tie-breaks ----------------------------------------------------------
    def _note_apart(self, tracks) -> None:
        """For each unread card lying in the trick: its last view, and the played cards
        detected in the same frame as it (two detections are two cards)."""
        ids = {tr.id for tr in tracks}
        for k in [k for k in self._unread_views if k not in ids]:
            del self._unread_views[k]
            self._apart.pop(k, None)
        played_now = {tr.id for tr in tracks if tr.visible and self._roles.get(tr.id) == "played"}
        for tr in tracks:
            if tr.id in self._first_rest and self._roles.get(tr.id) is None and not tr.identity:
                self._unread_views[tr.id] = tr
                if tr.visible:
                    self._apart.setdefault(tr.id, set()).update(played_now)

    def _two_cards(self, unread: int, played: int) -> bool:
        """Whether the unread track lying in the trick was seen beside the played one."""
        return (played in self._apart.get(unread, ()) and unread in self._unread_views
                and unread in self._first_rest and self._roles.get(unread) is None)

    @staticmethod
    def _same_place(a: TrackView, b: TrackView, within: float = 0.5) -> bool:
        """Whether ``a`` was last seen about where ``b`` lies (within ``within`` card diagonals)."""
        reach = within * max(a.diag, b.diag, 1.0)
        return math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1]) < reach

    def _hovering(self, w: TrackView, tr: TrackView, turn: int | None) -> bool:
        """Whether the unread ``w``, ahead of the read ``tr``, is rather a hand hovering
        with its card: nothing on it was ever read, and it lies in front of ``tr``'s own
        seat, or of a seat whose turn has not come while ``tr`` is the card of the seat
        whose turn it is. It is then not played before ``tr``; it stays a candidate (a
        real card played out of turn is still a play, after this one)."""
        if w.identity or w.best or self._rest_best.get(w.id):
            return False
        if self._seat(w, None) == self._seat(tr, None):
            return True  # one card a seat per trick: the read one is it, the other its hand
        return turn is not None and self._seat(w, turn) != turn and self._seat(tr, turn) == turn

    def _held_back_by(self, w: TrackView, tr: TrackView, t: float, turn: int | None) -> str:
        """What the unread ``w``, which came to rest before the ready ``tr``, is to it:
        "wait" (``tr`` waits for it), "play" (it was played before ``tr``: if it was seen
        lying there whole, the next player has played on it), "ignore" (not a card: never
        a candidate again) or "skip" (not played before ``tr``, still a candidate)."""
        if self._rest_best.get(w.id) in self._hand_cards and w.id not in self._doubled:
            return "skip"  # a played card's ghost (it reads as one), not a play
        if not w.identity and self._on_played(w) and self._in_turn_instead(w, tr, turn):
            return "wait"  # the unread card lying across a played one is the seat in turn's
        if not w.identity and ((not w.visible and self._same_place(w, tr))
                               or (w.visible and self._same_place(w, tr, 0.25))
                               or self._on_played(w) or self._between(w, tr)):
            # lost where this card now lies (its own earlier track: a fast card split
            # in two), a second box on this very card (a card lying whole there hides
            # whatever is under it), lying on a card already played (a second box
            # on that card as the new one lands across it) or on where the two cross:
            # not a card played before this one
            return "ignore"
        if self._part_of_played(w) or self._went_back(w, t):
            return "skip"  # not marked: should it turn out a card after all, it is one
        hovering = self._hovering(w, tr, turn)
        if hovering and not self._near_trick(w):
            # at once: waiting to see whether the hand's box gets read only delays
            # the play (a box by the trick's cards may be one of them: wait there)
            return "skip"
        if w.id not in self._first_rest or t - self._first_rest[w.id] < self.config.overtaken_s:
            return "wait"
        return "skip" if hovering else "play"

    def _went_back(self, w: TrackView, t: float) -> bool:
        """Whether the unread ``w``, ahead of a card that is ready, is rather a hand that
        went back: nothing on it was ever read, it was seen in only a few frames and has
        been out of view ``gone_s`` since. A card played lies in view until its trick is
        swept; a hand holding its cards face down by the trick is boxed for a moment."""
        cfg = self.config
        return (not w.visible and not w.identity and not w.best and not self._rest_best.get(w.id)
                and w.hits < self._frames(cfg.gone_hits) and t - w.last_t >= cfg.gone_s)

    def _in_turn_instead(self, w: TrackView, tr: TrackView, turn: int | None) -> bool:
        """Whether the unread ``w`` comes from the seat whose turn it is and the read
        ``tr`` from another seat: then ``w`` is rather the card in turn than a second box
        on a played card, and ``tr`` a card out of turn that waits behind it."""
        return turn is not None and self._seat(w, turn) == turn and self._seat(tr, turn) != turn

    def _turn_card_on(self, e: OnTable, tr: TrackView, turn: int | None) -> bool:
        """Whether the unread ``tr`` lying on the played ``e`` is rather the card of the
        seat in turn, put down on it: ``e`` is in view itself this very frame (two
        cards), the trick still lacks a card, and ``tr`` comes from the seat in turn."""
        return (turn is not None and e.track_id in self._seen_now and len(self._trick) < 4
                and self._seat(tr, turn) == turn)

    def _near_trick(self, tr: TrackView, within: float = 1.0) -> bool:
        """Whether ``tr`` lies within ``within`` card diagonals of a card of this trick."""
        reach = within * max(tr.diag, 1.0)
        return any(math.hypot(e.center[0] - tr.center[0], e.center[1] - tr.center[1]) < reach
                   for e in self._trick if not math.isnan(e.center[0]))

    def _on_played(self, tr: TrackView) -> bool:
        """Whether ``tr`` lies on a card of this trick already played (within half a card)."""
        return self._near_trick(tr, 0.5)

    def _between(self, w: TrackView, tr: TrackView, within: float = 0.25) -> bool:
        """Whether the unread ``w`` lies halfway between ``tr`` and a card of this trick
        it overlaps: a locator box over the two cards where they cross, not a card.
        (A real card there would lie on both and hide their corners.)"""
        diag = max(w.diag, tr.diag, 1.0)
        for e in self._trick:
            if math.isnan(e.center[0]) or math.dist(e.center, tr.center) > diag:
                continue
            mid = ((e.center[0] + tr.center[0]) / 2, (e.center[1] + tr.center[1]) / 2)
            if math.dist(w.center, mid) < within * diag:
                return True
        return False

    def _part_of_played(self, w: TrackView, within: float = 0.5) -> bool:
        """Whether the unread ``w`` is a box smaller than a card, never seen lying whole,
        by a card of this trick (centres within ``within`` of a card's diagonal there): the
        locator's box on part of that card (a corner, its picture) or a hand beside it,
        rather than a card played before the one read now (game 8601 held a 4D 1.8 s
        behind such a box on the QD played before it)."""
        if w.identity or w.id in self._first_rest:
            return False
        area = self._size.at(*w.center)
        if area is None:
            return False
        x1, y1, x2, y2 = w.xyxy
        if (x2 - x1) * (y2 - y1) >= self.config.full_view * area:
            return False
        reach = within * 1.45 * math.sqrt(area)  # a card's diagonal from its area (sides 5:7)
        return any(math.dist(e.center, w.center) < reach for e in self._trick if not math.isnan(e.center[0]))

    def _suggestible(self, tr: TrackView) -> bool:
        # one confident misread is the commonest recognizer fault: a suggestion
        # needs two readings and a clear lead
        return bool(tr.best) and tr.best_reads >= 2 and tr.identity_confidence >= self.config.suggest_conf

    def _hint(self, tr: TrackView, since: float) -> str:
        # too weak to give (one frame's, at a slow frame rate), but it may tell two unread
        # cards apart at the hand's end; read while it lay here, before any jump (after
        # one the track may be another card)
        return weak_reading(tr, since, tr.moved_t if tr.moved_t > since else math.inf,
                            self.tracker.config.read_floor)

    def _seat(self, tr: TrackView, turn: int | None) -> int | None:
        return seat_of_play(self.calibration, tr.origin or tr.first_center, tr.center, turn,
                            self.config.seat_band_deg)

    # -- the tracker's merges ---------------------------------------------
    def _merge_state(self, dropped: int, kept: int) -> None:
        """The tracker merged two tracks of one card: the card keeps what it was. But an
        unread card seen beside a played one is another card (a sweeping hand gathered
        them): it stays one of the trick's cards."""
        for unread, played in ((dropped, kept), (kept, dropped)):
            if self._two_cards(unread, played) and self._rest_best.get(unread, "") not in self._hand_cards:
                self._strays.append(self._stray(self._unread_views[unread]))
        role = self._roles.pop(dropped, None)
        # "ignored" (an old card seen again) is not passed on: the kept track may be a new card
        if role in ("played", "trump") and (self._roles.get(kept) in (None, "ignored") or role == "played"):
            self._roles[kept] = role
            for e in self._trick:
                if e.track_id == dropped:
                    e.track_id = kept
            if self._trump is not None and self._trump.track_id == dropped:
                self._trump.track_id = kept
        for d in (self._entered, self._first_rest):
            if dropped in d:
                d[kept] = min(d[kept], d.pop(dropped)) if kept in d else d.pop(dropped)
        if dropped in self._rest_best:
            self._rest_best.setdefault(kept, self._rest_best.pop(dropped))
