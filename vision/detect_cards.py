"""One frame's cards by one recognizer's networks, stage by stage (:meth:`Recognizer._detect`).

The stages, in order: locate (the locator and its second opinions), outline, read (both
readers, then a second look at the outlines left unread), the still image's extra looks
(anchored, shrunk), the face's suit check, the second opinions' boxes kept only where read
sure, the cards under fanned spreads, one box per card, the split box and the last look (still
images), and on video the close looks. Each stage is a function of this module that takes the
recognizer and the frame's state and can be run on its own; what is still image only and what
is video only is said at each.

>>> from sueca.vision.detect_cards import detect   # doctest: +SKIP
>>> dets = detect(recognizer, frame_bgr, None, None)   # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sueca.vision.detections import UNREADABLE, CardDetections, outline_boxes
from sueca.vision.readings import nested_in_read, one_box_per_card, one_per_card, same_card_outlines


@dataclass
class FrameCards:
    """The cards of one frame as the stages leave them: outlines (N, 4, 2), codes, reading
    confidences and locator scores (a second opinion's card takes its reading's), which boxes
    a second opinion added, and which lie under a fanned spread (None: none)."""

    corners: np.ndarray
    codes: list
    confs: np.ndarray
    loc: np.ndarray
    added: np.ndarray
    under: np.ndarray | None = None
    #: codes the face ruled out on this frame: not taken from another box or a spread step either
    withdrawn: set = field(default_factory=set)

    def keep(self, mask: np.ndarray) -> None:
        """Only the cards ``mask`` (booleans or indices) keeps, in that order."""
        idx = np.flatnonzero(mask) if np.asarray(mask).dtype == bool else np.asarray(mask, int)
        self.corners, self.confs, self.loc = self.corners[idx], self.confs[idx], self.loc[idx]
        self.codes = [self.codes[i] for i in idx]
        self.added = self.added[idx]
        self.under = self.under[idx] if self.under is not None else None

    def extend(self, corners: np.ndarray, codes: list, confs: np.ndarray) -> None:
        """More cards, each read by a step of its own (its locator score is its reading's)."""
        self.corners, self.codes = np.concatenate([self.corners, corners]), self.codes + list(codes)
        self.added = np.concatenate([self.added, np.ones(len(codes), bool)])
        self.confs, self.loc = np.concatenate([self.confs, confs]), np.concatenate([self.loc, confs])


def detect(rec, frame: np.ndarray, memory, threshold: float | None, white=None,
           view=None) -> CardDetections | None:
    """The cards of ``frame`` by ``rec``'s networks (:meth:`Recognizer._detect` says what
    ``white`` and ``view`` ask)."""
    memo = getattr(memory, "crops", None)
    if memo is not None:
        memo.next_frame()
    located, added, dropped, refusal = locate(rec, frame, memory, view)
    if len(located) == 0:
        if refusal is not None:
            refusal.done(np.zeros(0, bool), np.zeros((0, 5), np.float32))
        return close_look(rec, frame, CardDetections.empty(), memory, dropped)
    rboxes = np.asarray(located.rboxes, np.float32).reshape(-1, 5)
    boxes = np.asarray(located.corners, np.float32).reshape(-1, 4, 2)  # as located, for the split box
    own = ~np.asarray(added, bool)
    corners, candidates, loc, added, rboxes = outline(rec, frame, located, added, rboxes, memory)
    if white is not None and white(corners[~added]):
        return None
    strict = max(rec.config.threshold, threshold or 0.0)
    looks = rec.config.outliner or {}
    faces: dict = {}  # each card's face looked at once this frame
    # a tile's outline on a card the whole image read takes that reading (:class:`TileView`)
    handed = view.match(corners) if view is not None and len(view.codes) else np.full(len(corners), -1)
    codes, confs = read_new(rec, frame, candidates, handed, view, threshold, memo, faces)
    rec._second_look(frame, corners, codes, confs, threshold, added, candidates, memo, faces)
    if memory is None:
        still_looks(rec, frame, corners, codes, confs, threshold, added, faces)
    cards = FrameCards(corners, codes, confs, loc, added)
    face_check(rec, frame, cards, candidates, handed, memo, faces)
    refused_now = second_opinions_kept(cards, strict)
    if refused_now.any():
        dropped = np.concatenate([dropped, corners[refused_now]])
    if refusal is not None:
        refusal.done(refused_now, rboxes)
    if memory is None and looks.get("spreads"):
        under_spreads(rec, frame, cards, strict)
    one_box_each(cards, video=memory is not None)
    split = looks.get("split_box")
    if memory is None and split:
        # a box of the locator's over two overlapping cards: the one its outline left out
        # (the second opinions' boxes too where "all")
        from sueca.vision.split_box import split_box_look

        more, more_codes, more_confs = split_box_look(
            rec, frame, boxes if split == "all" else boxes[own], cards.corners, cards.codes, strict, cards.withdrawn)
        if more_codes:
            cards.extend(more, more_codes, more_confs)
    last = looks.get("last_look")
    if memory is None and threshold is None and last:
        # boxes still unread, read once more lower where the face's own card agrees
        from sueca.vision.last_look import last_look

        last_look(rec, frame, cards.corners, cards.codes, cards.confs, float(last), cards.withdrawn)
    xyxy = outline_boxes(cards.corners, (frame.shape[1], frame.shape[0]))
    conf = np.where(np.asarray(cards.codes) == UNREADABLE, cards.loc, cards.confs).astype(np.float32)
    dets = CardDetections(xyxy, tuple(cards.codes), conf, cards.loc, cards.corners, np.ones(len(cards.codes), bool))
    return close_look(rec, frame, dets, memory, dropped)


def locate(rec, frame: np.ndarray, memory, view):
    """The located boxes, which a second opinion added, the second opinions' boxes skipped
    unread on video (their patch refused before and unchanged, :func:`sueca.vision.still.skip_refused`),
    and the refusal to report to (None: no memory of refusals). A tile (``view``) leaves out
    the boxes its inner edges cut; video asks without the faint boxes."""
    located, added = rec.locate(frame) if memory is None else rec.locate(frame, faint=False)
    if view is not None and len(located):
        keep = ~view.cut(np.asarray(located.corners, np.float32).reshape(-1, 4, 2))
        located, added = subset(located, keep), added[keep]
    refused = getattr(memory, "refused", None)
    dropped = np.zeros((0, 4, 2), np.float32)  # second opinions' boxes left unread (close looks)
    refusal = None
    if refused is not None and added.any():
        from sueca.vision.still import skip_refused

        keep, refusal = skip_refused(frame, located, added, refused)
        dropped = np.asarray(located.corners, np.float32).reshape(-1, 4, 2)[~keep]
        located, added = subset(located, keep), added[keep]
    if memory is not None and added.all():
        memory.clear()
    return located, added, dropped, refusal


def outline(rec, frame: np.ndarray, located, added: np.ndarray, rboxes: np.ndarray, memory):
    """Outlines, candidate quads, locator scores, the added mask and the rotated boxes, with
    two boxes whose outlines end on one card made one (the locator's own box wins)."""
    # the memory sees the locator's own boxes only: a second opinion's box leaves no trace
    # unless it is read, and then it is found again next frame anyway
    if memory is None:  # the second opinions' boxes come last: one outliner batch for all
        corners, candidates = rec.outlines(frame, located)
    else:
        corners, candidates = rec.outlines(frame, subset(located, ~added), memory if not added.all() else None)
        if added.any():
            more, more_candidates = rec.outlines(frame, subset(located, added))
            corners, candidates = np.concatenate([corners, more]), candidates + more_candidates
    loc = located.scores.astype(np.float32)
    if rec.outliner is not None:
        # two boxes on one card (a sleeve across it, a pile's edge) end on the same outline
        keep = same_card_outlines(corners, loc - added)
        corners, candidates, loc, added = corners[keep], [candidates[i] for i in keep], loc[keep], added[keep]
        rboxes = rboxes[keep]
    return corners, candidates, loc, added, rboxes


def read_new(rec, frame, candidates, handed, view, threshold, memo, faces):
    """:meth:`Recognizer.read_quads` of the cards not ``handed`` (-1); the others take ``view``'s readings."""
    exact = not rec.config.refine and rec.outliner is None
    todo = np.flatnonzero(handed < 0)
    if len(todo) == len(candidates):
        return rec.read_quads(frame, candidates, exact=exact, threshold=threshold, memo=memo, faces=faces)
    codes = [view.codes[k] if k >= 0 else UNREADABLE for k in handed]
    confs = np.float32([view.confidence[k] if k >= 0 else 0.0 for k in handed])
    if len(todo):
        read, conf = rec.read_quads(frame, [candidates[i] for i in todo], exact=exact, threshold=threshold,
                                    memo=memo, faces=faces)
        for i, c, f in zip(todo, read, conf):
            codes[i], confs[i] = c, f
    return codes, confs


def still_looks(rec, frame, corners, codes, confs, threshold, added, faces) -> None:
    """A still image's unread boxes looked at again (in place): each corner taken for the
    card's own at the size of the cards read (``anchored``; the second opinions' boxes too only
    where "all": each costs 16 crops), then the locator's own boxes read a little smaller
    (``shrunk``)."""
    looks = rec.config.outliner or {}
    anchored = looks.get("anchored")
    if anchored:
        from sueca.vision.anchored import anchored_look

        anchored_look(rec, frame, corners, codes, confs, threshold, faces, skip=None if anchored == "all" else added)
    shrunk = looks.get("shrunk")
    if shrunk:
        from sueca.vision.shrunk import shrunk_look

        shrunk_look(rec, frame, corners, codes, confs, threshold, float(shrunk), faces, skip=added)


def face_check(rec, frame, cards: FrameCards, candidates, handed, memo, faces) -> None:
    """Readings whose card's face shows another suit withdrawn, not guessed (in place); a
    second box on the same card (a skewed outline whose face view shows less) reads the same
    code and goes too. A card handed a reading was checked where it was read."""
    if rec.face is None:
        return
    asked = [UNREADABLE if k >= 0 else c for c, k in zip(cards.codes, handed)]
    for i in np.flatnonzero(rec.face.check(frame, cards.corners, asked, candidates, memo, faces)):
        cards.withdrawn.add(cards.codes[i])
    cards.codes = [UNREADABLE if c in cards.withdrawn else c for c in cards.codes]


def second_opinions_kept(cards: FrameCards, strict: float) -> np.ndarray:
    """Keeps a second opinion's card only where both readers are sure (``strict``) of a card the
    locator's own boxes did not read; returns which cards were refused (as they were indexed)."""
    added = cards.added
    if not added.any():
        return np.zeros(len(cards.codes), bool)
    seen = {c for c, a in zip(cards.codes, added) if not a} | cards.withdrawn
    keep = np.asarray([not a or (c != UNREADABLE and f >= strict and c not in seen)
                       for c, f, a in zip(cards.codes, cards.confs, added)], bool)
    cards.loc = np.where(added, cards.confs, cards.loc)
    cards.keep(keep)
    return added & ~keep


def under_spreads(rec, frame, cards: FrameCards, strict: float) -> None:
    """A still image's cards under fanned spreads, at the single-image threshold as a second
    opinion's (not on video, where each card was read on top when it was played)."""
    from sueca.vision.fans import follow_spreads, unread_under

    more, more_codes, more_confs = follow_spreads(rec, frame, cards.corners, cards.codes, strict)
    # the spread's cards are not checked (the face seen there is mostly the card on top),
    # but a code ruled out on this frame's card is the same misreading of the same index
    ok = np.asarray([c not in cards.withdrawn for c in more_codes], bool)
    more, more_codes, more_confs = more[ok], [c for c, k in zip(more_codes, ok) if k], more_confs[ok]
    if more_codes:
        cards.keep(~unread_under(cards.corners, cards.codes, more))
        cards.extend(more, more_codes, more_confs)
        cards.under = np.arange(len(cards.codes)) >= len(cards.codes) - len(more_codes)


def one_box_each(cards: FrameCards, video: bool) -> None:
    """One box per card and one card per code (in place)."""
    # on video only: a still image's second box on a card it reads as another is mostly right,
    # the index of a card lying under it just past its corner (models/EXPERIMENTS.md)
    if video:
        once = one_box_per_card(cards.corners, cards.codes, cards.confs, cards.loc)
        if len(once) < len(cards.codes):  # a second look moved a box onto a card another box read
            cards.keep(once)
    # a spread's card lies under others, which show inside its outline
    inner = nested_in_read(cards.corners, cards.codes, cards.confs, under=cards.under)
    if inner.any():  # a second box inside a read card: that card's face, cut elsewhere
        cards.keep(~inner)
    cards.codes, cards.confs = one_per_card(cards.codes, cards.confs)


def close_look(rec, frame: np.ndarray, dets: CardDetections, memory, dropped: np.ndarray) -> CardDetections:
    """On video (``outliner.close_look``: frames an unread box lies first), ``dets`` with
    what close looks read (:mod:`sueca.vision.close_look`) on its unread boxes and on the
    second opinions' boxes left unread (``dropped``), each window read as a still image's
    tile at the still image's threshold."""
    after = (rec.config.outliner or {}).get("close_look")
    looks = getattr(memory, "close", None)
    if not after or looks is None:
        return dets
    from sueca.vision.tiles import TILE_READING

    looks.after = int(after)

    def read_window(part: np.ndarray) -> CardDetections:  # only when a look is due
        tile = rec._tile_reader({**TILE_READING, **(rec.config.tile_reading or {})})
        return tile._sized(part, None, rec.config.threshold, None)

    return looks.step(frame, dets, dropped, read_window)


def subset(located, mask: np.ndarray):
    """The located boxes ``mask`` keeps."""
    from sueca.vision.onnx_backend import Located

    return Located(located.rboxes[mask], located.corners[mask], located.scores[mask])
