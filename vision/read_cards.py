"""How a recognizer reads the cards of given outlines: both readers' corner probabilities,
weighed by each card's face, combined into one code and confidence a card
(:meth:`sueca.vision.recognizer.Recognizer.read_quads` is this, for a recognizer's networks).

The pure combining rules are :mod:`sueca.vision.readings`; this module runs the networks
and decides which of them to ask about which outline (lazily on a still image, from the
crop memory on video).
"""

from __future__ import annotations

import numpy as np

from sueca.vision.classes import CARD_CODES
from sueca.vision.detections import UNREADABLE
from sueca.vision.readings import (UNREADABLE_CLASS, clear_reading, combine_corners, combine_readers, could_read,
                                   probabilities)
from sueca.vision.rectify import corner_orderings, cut_rows


def read_quads(rec, frame: np.ndarray, quads, exact: bool = True, threshold: float | None = None, memo=None,
               faces: dict | None = None, unwanted: set | frozenset = frozenset()) -> tuple[list[str], np.ndarray]:
    """The codes and confidences ``rec`` (a :class:`~sueca.vision.recognizer.Recognizer`) reads
    on the cards outlined by ``quads`` (N, 4, 2).

    ``quads`` may also be a list of (k, 4, 2) candidate outlines per card: each
    candidate is read from its two portrait orderings and the candidate with
    the most readable evidence decides (see :func:`combine_corners`).
    ``memo`` (:class:`~sueca.vision.crop_memory.CropMemory`, for video): a candidate
    whose crops are what they were last frame keeps the probabilities read then.
    ``faces`` (this frame's faces by outline, :meth:`FaceSuit.card_probabilities`): where
    the model's face-suit check fuses, the readers' probabilities are weighed by each
    card's face (looked at on its first candidate, where the first reader could read the card
    once weighed: :func:`~sueca.vision.readings.could_read`) before they are combined.
    ``unwanted``: codes the caller drops whatever they read; a card the first reader reads
    as one of them is not asked of the second (it comes back as the first read it).
    """
    cfg = rec.config
    per_card = [np.asarray(q, np.float32).reshape(-1, 4, 2) for q in quads]
    amb = cfg.ambiguous if exact else 0.0
    flat = [c for cands in per_card for c in cands]
    if not flat:
        return [], np.zeros((0,), np.float32)
    lazy = cfg.lazy and memo is None and len(flat) > len(per_card)
    orderings = corner_orderings(np.stack(flat), amb)
    starts = np.concatenate([[0], np.cumsum([len(o) for o in orderings])]).astype(int)
    crops = np.zeros((starts[-1], *cfg.crop.shape), np.uint8)
    edges = np.cumsum([0] + [len(cands) for cands in per_card])  # each card's candidates
    # lazily, each card's first candidate is cut first; the others where it reads unclearly
    cut_rows(frame, orderings, cfg.crop, crops, [int(a) for a in edges[:-1]] if lazy else range(len(flat)))
    kept = memo.lookup_all(flat, crops, starts) if memo is not None else [None] * len(flat)
    n_classes = len(cfg.reader_classes)
    threshold = cfg.threshold if threshold is None else threshold
    cand_spans = [range(a, b) for a, b in zip(edges[:-1], edges[1:])]
    spans = [slice(starts[a], starts[b]) for a, b in zip(edges[:-1], edges[1:])]  # ... and its crops
    fuse = faces is not None and rec.face is not None and rec.face.fuse
    face: list | None = None  # each card's face, where looked at
    if fuse:
        from sueca.vision.face_suit import face_weights, max_face_weight, weighed_by

        # only the faces of cards the first reader could read once weighed are looked at: a
        # box on the cloth is read as nothing whatever its face says
        face = [None] * len(per_card)
    by_rank = fuse and rec.face.rank
    most = max_face_weight(by_rank) if fuse else 1.0  # the largest factor a face can give
    weights: dict = {}  # (card, rank): its face's factors, made once

    def weighed(p: np.ndarray, i: int, rank: bool = by_rank) -> np.ndarray:  # the memory keeps them unweighed
        if face is None or face[i] is None:
            return p
        if (i, rank) not in weights:
            weights[i, rank] = face_weights(face[i], rank, rec.face.court_power)
        return weighed_by(p, weights[i, rank])

    def look(cards: list[int], rows: list[slice]) -> None:  # faces of the cards that could read
        want = [i for i, r in zip(cards, rows)
                if face[i] is None and could_read(first[r], most, threshold)]
        if want:
            for i, p in zip(want, rec.face.card_probabilities(frame, [flat[edges[i]] for i in want],
                                                               memo, faces)):
                face[i] = p

    known_first = [r.first if r else None for r in kept]
    if lazy:
        # a card whose first outline reads clearly from both corners is settled there: its
        # other outlines (grown, a second look's) are not read, by either reader
        lead = [int(a) for a in edges[:-1]]
        first = probabilities(rec.reader, crops, starts, known_first, cfg.temperature, n_classes, only=lead)
        if fuse:
            look(list(range(len(lead))), [slice(starts[a], starts[a + 1]) for a in lead])
        for i, a in enumerate(lead):
            s = slice(starts[a], starts[a + 1])
            if len(cand_spans[i]) > 1 and clear_reading(weighed(first[s], i), threshold):
                cand_spans[i], spans[i] = range(a, a + 1), s
        rest = [j for i, a in enumerate(lead) for j in cand_spans[i] if j != a]
        if rest:
            cut_rows(frame, orderings, cfg.crop, crops, rest)
            first += probabilities(rec.reader, crops, starts, known_first, cfg.temperature, n_classes, only=rest)
    else:
        first = probabilities(rec.reader, crops, starts, known_first, cfg.temperature, n_classes)
    if fuse:
        look(list(range(len(per_card))), spans)

    def own(p: np.ndarray, i: int, code: str) -> bool:  # a corner's index reads that rank
        q = weighed(p, i, False)
        usable = q[q[:, UNREADABLE_CLASS] < 0.5]
        return any(CARD_CODES[k][:-1] == code[:-1] for k in usable[:, :UNREADABLE_CLASS].argmax(axis=1))

    read = [combine_corners(weighed(first[s], i), threshold) for i, s in enumerate(spans)]
    codes, confs = [c for c, _ in read], [f for _, f in read]
    if by_rank:
        # the face's rank makes the readers surer of their own card, never of another:
        # pips miscounted by the face would otherwise win over the index
        codes = [c if c == UNREADABLE or own(first[s], i, c) else UNREADABLE
                 for i, (c, s) in enumerate(zip(codes, spans))]
    # the second reader only where the first read a card: elsewhere the pair reads nothing anyway
    ask = [i for i, code in enumerate(codes) if code != UNREADABLE and code not in unwanted] \
        if rec.second is not None else []
    second, asked = None, [j for i in ask for j in cand_spans[i]]
    if ask:
        known = [r.second if r is not None else None for r in kept]
        second = probabilities(rec.second, crops, starts, known, float(cfg.second_reader["temperature"]),
                               n_classes, only=asked)
        for i in ask:
            codes[i], confs[i] = combine_readers([weighed(first[spans[i]], i), weighed(second[spans[i]], i)],
                                                 threshold)
            if by_rank and codes[i] != UNREADABLE and not own(second[spans[i]], i, codes[i]):
                codes[i] = UNREADABLE
    if memo is not None:
        memo.keep_all(flat, crops, starts, kept, first, second, asked)
        if face is not None:  # kept with the crops: a still card's face is looked at once
            seen = [flat[edges[i]] for i, f in enumerate(face) if f is not None]
            if seen:
                rec.face.card_probabilities(frame, seen, memo, faces)
    return codes, np.asarray(confs, np.float32)
