"""Card recognition on one frame: locate face-up cards, read their corner indices.

Two stages, each runnable alone:

1. the *locator* (YOLO-OBB at low resolution) finds face-up cards as rotated
   boxes; a card 100 px tall in a 1280x960 frame is still 25 px at 320;
2. the *reader* (a small CNN) reads the rectified corner indices cut from the
   full-resolution frame, where the index is ~16 px instead of 4 px.

The reader's two corners are combined; a card whose calibrated confidence is
below the model's threshold is returned as ``UNREADABLE`` (never guessed).

>>> from sueca.vision.recognizer import load_recognizer   # doctest: +SKIP
>>> rec = load_recognizer()                     # doctest: +SKIP
>>> dets = rec(frame_bgr)                      # doctest: +SKIP
>>> dets.codes, dets.confidence                # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np

from sueca.vision.detections import UNREADABLE, CardDetections
# the reading rules and the config are also asked of this module by scripts and tests
from sueca.vision.readings import (READER_CLASSES, SAME_CARD_IOU, UNREADABLE_CLASS,  # noqa: F401
                                   combine_corners, combine_readers, one_per_card, same_card_outlines, same_place,
                                   softmax)
from sueca.vision.recognizer_config import (BACKENDS, CONFIG_NAME, PRECISIONS, RecognizerConfig,  # noqa: F401
                                            default_model_dir, load_recognizer)
from sueca.vision.read_cards import read_quads
from sueca.vision.rectify import longest_side

_one_per_card = one_per_card  # the name scripts and tests know

__all__ = ["BACKENDS", "CONFIG_NAME", "MAX_SIDE", "PRECISIONS", "READER_CLASSES", "SAME_CARD_IOU", "UNREADABLE_CLASS",
           "Recognizer", "RecognizerConfig", "combine_corners", "combine_readers", "default_model_dir",
           "load_recognizer", "same_card_outlines", "softmax"]

#: Longest side a frame is read at (:meth:`Recognizer.__call__`). Measured on the generator's
#: scenes at 1920x1440 to 4032x3024 (test style, Bellot, Aguilar; cards 6-20% and 20-45% of the
#: frame high): 720 cards read shrunk to 1600 against 717 at full size, 1 wrong against 2, a
#: 12 MP frame 2-3 times faster (models/EXPERIMENTS.md, eighth session).
MAX_SIDE = 1600


class Recognizer:
    """``recognizer(frame_bgr) -> CardDetections``: locator + reader, any backend.

    ``locator(frame) -> Located`` and ``reader(crops) -> logits`` are the two
    stages; both backends (ONNX Runtime, PyTorch) give the same interface.
    ``second``: a second reader that must agree (:func:`combine_readers`), or None.
    """

    def __init__(self, locator, reader, config: RecognizerConfig, outliner=None, second=None, face=None,
                 small_locator=None):
        self.locator, self.reader, self.config = locator, reader, config
        # the locator's weights at a small input, for the zoomed-out look (config.zoom_net), or None
        self.small_locator = small_locator
        self.max_side = MAX_SIDE  # a longer frame is read shrunk to this (None: never)
        self.turn_portrait = True  # a frame taller than wide is read turned to lie wide
        # a still image's tiles read side by side (sueca.vision.tiles.TILES_AT_ONCE; the networks
        # must allow concurrent calls: load_recognizer sets it for ONNX Runtime)
        self.tiles_at_once = 1
        self.outliner = outliner  # sueca.vision.outliner.Outliner, or None
        self.second = second
        self.face = face  # sueca.vision.face_suit.FaceSuit, or None
        # the same readers behind a locator and an outliner tuned on white tops (config.white), or None
        self.white: Recognizer | None = None

    def read_quads(self, frame: np.ndarray, quads, exact: bool = True,
                   threshold: float | None = None, memo=None, faces: dict | None = None,
                   unwanted: set | frozenset = frozenset()) -> tuple[list[str], np.ndarray]:
        """Codes and confidences of the cards outlined by ``quads``: :func:`sueca.vision.read_cards.read_quads`."""
        return read_quads(self, frame, quads, exact, threshold, memo, faces, unwanted)

    def outlines(self, frame: np.ndarray, located, memory=None) -> tuple[np.ndarray, list]:
        """Card outlines (N, 4, 2) and, per card, the candidate quads the reader tries.

        ``memory`` (:class:`~sueca.vision.still.OutlineMemory`, for video): a card
        lying still where it lay takes the outline found for it before.
        """
        corners = located.corners.astype(np.float32)
        candidates: list = list(corners)
        if self.outliner is None and not self.config.refine:
            return corners, candidates
        if memory is not None:
            from sueca.vision.still import thumbnail

            grey, scale = thumbnail(frame)
            reuse = memory.lookup(grey, scale, located.rboxes)
        else:
            reuse = [None] * len(corners)
        todo = [i for i, r in enumerate(reuse) if r is None]
        for i in range(len(corners)):
            if reuse[i] is not None:
                corners[i], candidates[i] = memory.remembered(reuse[i])
        found = self._learned(frame, corners, todo) if self.outliner is not None else \
            self._refined(frame, located, todo)
        for i, (q, cands) in zip(todo, found):
            corners[i], candidates[i] = q, cands
        if memory is not None:
            memory.remember(grey, scale, located.rboxes, corners, candidates, reuse)
        return corners, candidates

    def _learned(self, frame: np.ndarray, corners: np.ndarray, todo: list[int]) -> list:
        """(outline, candidates) of the boxes ``todo`` by the outliner, in one batch."""
        from sueca.vision.refine import grown

        if not todo:
            return []
        # a printed border or a shadow can shift the found outline: also read it a bit larger
        return [(q, np.stack([q, grown(q[None], 1.08)[0]])) for q in self.outliner(frame, corners[todo])]

    def _refined(self, frame: np.ndarray, located, todo: list[int]) -> list:
        """(outline, candidates) of the boxes ``todo`` by classical refinement (no outliner)."""
        from sueca.vision.refine import card_shaped, edge_angle, grown, refine_quad

        out = []
        for i in todo:
            q = located.corners[i].astype(np.float32)
            r = refine_quad(frame, q)
            if r is not None:
                q, cands = r, r[None]
            else:  # the locator's box is squarer than a card and turned a bit: fix both
                rb = located.rboxes[i].copy()
                rb[4] = edge_angle(frame, rb)
                cands = card_shaped(rb)
            out.append((q, np.concatenate([cands, grown(cands, 1.12)])))
        return out

    def locate(self, frame: np.ndarray, faint: bool = True) -> tuple:
        """The located cards and a mask of those only a second opinion found.

        The learned locator can score a lone card with little print (an ace on a
        plain cloth) under its threshold for seconds, and misses cards far larger
        than the overhead camera's (a phone's close-up). Three second opinions, each
        switched on in the model's config: ``flip_pass`` runs the locator on the
        left-right mirrored frame too; ``stock_pass`` looks for lone card-shaped
        patches of card stock (:func:`sueca.vision.proposals.card_stock`);
        ``zoom_pass`` locates on the frame shrunk: by the small-input locator
        (``zoom_net``, :func:`sueca.vision.proposals.small_look`) on every still image,
        else where nothing was found or a found box is large (on video, or by the locator
        itself on a shrunk canvas: :func:`sueca.vision.proposals.zoomed_out`). Their
        boxes that overlap a box already found by the locator's NMS IoU are dropped;
        the others are added, and :meth:`__call__` keeps an added card only where
        it is read at the single-image threshold. A fourth, ``faint_conf`` /
        ``faint_max``: the locator's own best boxes scored under its threshold (a card
        partly covered), where ``faint``; video asks without them (a card found late
        there is a play put out of order, where a card never found is asked of the
        referee).
        """
        from sueca.vision.proposals import with_second_opinions

        cfg = self.config
        return with_second_opinions(self.locator, frame, cfg.flip_pass, cfg.stock_pass, cfg.locate_iou,
                                    cfg.zoom_pass, cfg.faint_conf if faint else None, cfg.faint_max,
                                    self.small_locator, always_zoom=faint and self.small_locator is not None)

    def _second_look(self, frame: np.ndarray, corners: np.ndarray, codes: list, confs: np.ndarray,
                     threshold: float | None, added: np.ndarray, candidates: list | None = None,
                     memo=None, faces: dict | None = None) -> None:
        """Cards left unread get their outline looked at again (in place).

        The outliner's two passes can end on a skewed outline where cards cross; its
        corner crops then miss the index, frame after frame while the card lies still.
        Two or four more passes from there often settle on the card (``outliner.second_look``
        in the model's config). The readers judge the new outline as any other. Boxes a
        second opinion added (``added``) get none: most are not cards, and each costs;
        but on a still image a large one does (as long as the small look's floor,
        :data:`~sueca.vision.proposals.SMALL_MIN`): a close-up's cards are found by the second
        opinions alone (the full pass boxes their parts), from a coarse 96x128 input.
        With ``memo`` (video), a card whose crops are as they were when a second look
        found nothing gets none either (``candidates``: what was read of each card)."""
        if self.outliner is None or not (self.config.outliner or {}).get("second_look"):
            return
        if memo is None and added.any():
            from sueca.vision.proposals import SMALL_MIN

            added = added & (longest_side(corners) < SMALL_MIN * min(frame.shape[:2]))
        todo = [i for i, c in enumerate(codes) if c == UNREADABLE and not added[i]]
        if memo is not None and candidates is not None:
            todo = [i for i in todo if not memo.looked_unchanged(candidates[i])]
        if not todo:
            return
        from sueca.vision.refine import grown

        once = self.outliner(frame, corners[todo])
        twice = self.outliner(frame, once)
        cands = [np.stack([a, b, grown(b[None], 1.08)[0]]) for a, b in zip(once, twice)]
        new_codes, new_confs = self.read_quads(frame, cands, exact=False, threshold=threshold, memo=memo,
                                               faces=faces)
        for i, q, code, conf in zip(todo, twice, new_codes, new_confs):
            if code != UNREADABLE and same_place(corners[i], q):
                corners[i], codes[i], confs[i] = q, code, conf
            elif memo is not None and candidates is not None:
                memo.mark_looked(candidates[i])

    def __call__(self, frame: np.ndarray, memory=None, threshold: float | None = None,
                 tiles: bool | None = None) -> CardDetections:
        """All face-up cards of one BGR frame; ``memory``: see :meth:`outlines`;
        ``threshold``: instead of the model's (e.g. ``config.video_threshold`` on video);
        ``tiles``: False to read a still image whole only (None: as :attr:`tiles` says,
        :meth:`read_tiles`).

        A frame longer than :attr:`max_side` is read shrunk to it (area-averaged) and the
        cards are given in its own pixels: every network sees the card as it learnt it at
        1280x960 either way, and at full resolution a 12 MP photo's large cards cost the
        outliner's views 300 ms.

        A frame taller than wide (a phone held upright) is read turned a quarter to lie wide,
        as the networks learnt the table (:attr:`turn_portrait`), and its cards are given in
        its own pixels: the locator's fixed wide input shrank an upright frame's cards to 4/5
        of a wide one's (``models/EXPERIMENTS.md``, twenty-second session)."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected a BGR uint8 frame (H, W, 3), got {getattr(frame, 'shape', None)}")
        h, w = frame.shape[:2]
        if self.turn_portrait and h > w:
            turned = np.ascontiguousarray(np.rot90(frame))
            return self._read(turned, memory, threshold, tiles).turned_back((w, h))
        return self._read(frame, memory, threshold, tiles)

    @property
    def tiles(self) -> str | None:
        """When a still image is read again in 2 x 2 tiles (``config.tiles``, :mod:`sueca.vision.tiles`):
        "always", "small" (only a large photo of small cards) or None (never)."""
        return self.config.tiles

    @tiles.setter
    def tiles(self, value: str | None) -> None:
        from dataclasses import replace

        self.config = replace(self.config, tiles=value)

    @property
    def detail_side(self) -> int | None:
        """The longest side of a still image whose pixels this recognizer can use (None: any):
        :attr:`max_side`, or more where small cards are read again in tiles (a large JPEG may
        be decoded reduced to it, ``sueca.hardware.images.read_image``)."""
        if not self.max_side:
            return None
        if not self.tiles:
            return self.max_side
        from sueca.vision.tiles import TILE_SIDE

        return int(np.ceil(self.max_side / TILE_SIDE))

    def _read(self, frame: np.ndarray, memory, threshold: float | None, tiles: bool | None) -> CardDetections:
        dets = self._sized(frame, memory, threshold)
        if memory is not None or not self.tiles or tiles is False:
            return dets
        return self.read_tiles(frame, dets, threshold)

    def read_tiles(self, frame: np.ndarray, dets: CardDetections, threshold: float | None = None) -> CardDetections:
        """``dets`` (the still image ``frame`` read whole) with the cards its tiles read, where
        :attr:`tiles` wants them (:func:`sueca.vision.tiles.wants_tiles`: "always", or "small"
        cards in many pixels); ``sueca detect`` reads a large JPEG whole from a reduced decoding
        and, where its cards are small, its tiles from a finer one."""
        from sueca.vision.tiles import TILE_READING, tiled_look, wants_tiles

        h, w = frame.shape[:2]
        if not self.tiles or not wants_tiles(dets, (w, h), self.max_side, self.tiles):
            return dets
        if self.turn_portrait and h > w:  # as the whole photo was read (:meth:`__call__`)
            turned = np.ascontiguousarray(np.rot90(frame))
            return self.read_tiles(turned, dets.turned((w, h)), threshold).turned_back((w, h))
        # each tile is as wide as its frame: read as a still image of its own, with the passes
        # ``tile_reading`` leaves it (:meth:`_tile_reader`)
        how = {**TILE_READING, **(self.config.tile_reading or {})}
        tile = self._tile_reader(how)
        return tiled_look(lambda part, view: tile._sized(part, None, threshold, view), frame, dets,
                          hand_read=how["hand_read"], at_once=self.tiles_at_once)

    def _tile_reader(self, how: dict) -> "Recognizer":
        """This recognizer, or a twin sharing its networks whose config leaves out the second
        opinions ``how`` turns off for a tile (``flip``, ``zoom``, ``closeup``)."""
        from copy import copy
        from dataclasses import replace

        changes = {}
        if not how["flip"] and self.config.flip_pass:
            changes["flip_pass"] = False
        if not how["zoom"] and self.config.zoom_pass:
            changes["zoom_pass"] = False
        if not how["closeup"] and self.config.closeup:
            changes["closeup"] = None
        if not changes:
            return self
        twin = copy(self)
        twin.config = replace(self.config, **changes)
        if self.white is not None:  # its white pair takes the twin's config (_white_pair), not ours
            twin.white = copy(self.white)
        return twin

    def _sized(self, frame: np.ndarray, memory, threshold: float | None, view=None) -> CardDetections:
        h, w = frame.shape[:2]
        if not self.max_side or max(h, w) <= self.max_side:
            return self._whole(frame, memory, threshold, view)
        import cv2

        k = self.max_side / max(h, w)
        small = cv2.resize(frame, (max(1, round(w * k)), max(1, round(h * k))), interpolation=cv2.INTER_AREA)
        view = None if view is None else view.scaled(small.shape[1] / w, small.shape[0] / h)
        return self._whole(small, memory, threshold, view).scaled(w / small.shape[1], h / small.shape[0], (w, h))

    def _whole(self, frame: np.ndarray, memory, threshold: float | None, view=None) -> CardDetections:
        """:meth:`_detect`, and on a still image with large cards the close-up pass
        (``config.closeup``, :func:`sueca.vision.closeup.closeup_pass`); not on video, where
        the camera is overhead and a card found late is a play out of order.

        A strong colour cast is first taken back towards what the networks learnt
        (``config.balance``): a still image's own, checked on the cards the locator finds
        there (:func:`sueca.vision.balance.checked_on_cards`); a video's as measured on the
        cards of its recent frames (the memory's ``balance``,
        :class:`sueca.vision.balance.RunningBalance`, which sees each frame as it came)."""
        allowed, raw = self.config.balance, frame
        running = getattr(memory, "balance", None) if allowed is not None else None
        if allowed is not None and memory is None:
            from sueca.vision.balance import checked_on_cards

            frame = checked_on_cards(frame, allowed, self._card_middles)
        elif running is not None:
            frame = running(frame)
        use, dets = self._on_table(frame, memory, threshold, view)
        if running is not None:
            running.observe(raw, dets.corners, allowed)
        cfg = self.config.closeup
        if memory is not None or not cfg:
            return dets
        from sueca.vision.closeup import closeup_pass

        return closeup_pass(use, frame, dets, threshold, float(cfg["trigger"]), float(cfg["target"]))

    def _on_table(self, frame: np.ndarray, memory, threshold: float | None,
                  view=None) -> tuple["Recognizer", CardDetections]:
        """:meth:`_detect` by the networks for this table, and the recognizer they are: on a
        table as white as the cards (:mod:`sueca.vision.tabletop`, measured on the cards found)
        the locator and outliner tuned on white tops (``config.white``). A still image's table is
        told from the usual locator's boxes as the usual outliner draws them, before anything is
        read, and a white one is read by the white pair alone (reading it both ways cost a white
        top's frame 50 ms); a video uses them once its recent frames show it (the memory's
        ``table``)."""
        white = self.config.white
        if self.white is None or not white:
            return self, self._detect(frame, memory, threshold, view=view)
        from sueca.vision.tabletop import white_table

        pair = self._white_pair()

        meter = getattr(memory, "table", None)
        if memory is not None and meter is None:  # a memory that keeps no table: the usual pair
            return self, self._detect(frame, memory, threshold)
        if memory is not None:
            use = pair if meter.white(float(white["ratio"])) else self
            dets = use._detect(frame, memory, threshold)
            meter.observe(frame, dets.corners, int(white["least"]))
            if use is pair and white.get("video_conf") is not None:
                # on video an unread box lying still in the middle is a play: the white locator's
                # faint boxes on a marble's veins held a whole hand (models/EXPERIMENTS.md)
                keep = (np.asarray(dets.codes) != UNREADABLE) | (dets.locate_confidence >= float(white["video_conf"]))
                dets = dets[keep]
            return use, dets
        ratio, least = float(white["ratio"]), int(white["least"])
        dets = self._detect(frame, memory, threshold, white=lambda q: white_table(frame, q, ratio, least), view=view)
        if dets is None:  # the usual pair's outlines lie on a white table: read by the white pair alone
            return pair, pair._detect(frame, memory, threshold, view=view)
        return self, dets

    def _white_pair(self) -> "Recognizer":
        """:attr:`white`: this recognizer with the white tops' locator and outliner; its config,
        readers, face and small look are this one's as they are now (a caller that changed them
        here, a threshold, a stage switched off, changed them there too)."""
        w = self.white
        w.config, w.reader, w.second, w.face = self.config, self.reader, self.second, self.face
        w.small_locator, w.max_side = self.small_locator, self.max_side
        return w

    def _card_middles(self, frame: np.ndarray) -> np.ndarray:
        """The locator's boxes on ``frame`` shrunk to 80% about their centres (N, 4, 2): card
        stock, not the cloth a loose box takes in (:func:`sueca.vision.balance.checked_on_cards`)."""
        q = np.asarray(self.locator(frame).corners, np.float32).reshape(-1, 4, 2)
        mid = q.mean(axis=1, keepdims=True)
        return mid + 0.8 * (q - mid)

    def _detect(self, frame: np.ndarray, memory, threshold: float | None, white=None,
                view=None) -> CardDetections | None:
        """The cards of ``frame`` by this recognizer's networks; ``white``: a test of the
        outlines found (the locator's own boxes, (N, 4, 2)), checked before anything is read:
        where it holds, None (the frame is read by the white tops' pair instead, and reading
        it here too would cost the whole read twice); ``view``: ``frame`` is a tile of a still
        image (:class:`sueca.vision.tiles.TileView`): its boxes cut by an inner edge are left
        unread, and its outlines on cards the image read take those readings."""
        from sueca.vision.detect_cards import detect

        return detect(self, frame, memory, threshold, white, view)
