"""How a card's reading is made from the readers' corner probabilities, and which
outlines of one frame are one card.

Pure functions of arrays, used by :class:`sueca.vision.recognizer.Recognizer`
(and by the training recipe, which calibrates on the same readings).

>>> p = np.full((2, 53), 0.001); p[0, 0] = 0.999; p[1, 52] = 0.99
>>> combine_corners(p, 0.99)
('AS', 0.999)
"""

from __future__ import annotations

import numpy as np

from sueca.vision.classes import CARD_CODES
from sueca.vision.detections import UNREADABLE

#: Reader classes: the 52 cards, then "no readable index here".
READER_CLASSES: tuple[str, ...] = CARD_CODES + ("?",)
UNREADABLE_CLASS = len(CARD_CODES)


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = np.asarray(logits, np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def probabilities(reader, crops: np.ndarray, starts: np.ndarray, known: list, temperature: float, classes: int,
                  only: list[int] | None = None) -> np.ndarray:
    """Class probabilities (len(crops), ``classes``) of corner crops whose rows for candidate j
    are ``starts[j]:starts[j + 1]``: ``known[j]`` where given, else ``reader``'s logits softened
    by ``temperature``, all unknown candidates in one call; ``only``: the candidates wanted
    (the others' rows stay 0).

    >>> reader = lambda crops: np.zeros((len(crops), 3))
    >>> p = probabilities(reader, np.zeros((4, 2, 2)), np.array([0, 2, 4]), [None, np.eye(2, 3)], 1.0, 3)
    >>> p.round(2).tolist()
    [[0.33, 0.33, 0.33], [0.33, 0.33, 0.33], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    out = np.zeros((len(crops), classes), np.float64)
    wanted = range(len(known)) if only is None else only
    todo = [j for j in wanted if known[j] is None]
    for j in wanted:
        if known[j] is not None:
            out[starts[j]:starts[j + 1]] = known[j]
    if todo:
        rows = np.concatenate([np.arange(starts[j], starts[j + 1]) for j in todo])
        out[rows] = softmax(reader(crops[rows]), temperature)
    return out


def combine_corners(probs: np.ndarray, threshold: float) -> tuple[str, float]:
    """One card's reading from its corner crops' class probabilities (k, 53).

    Crops come in pairs of opposite corners (two pairs when the quad's
    orientation was ambiguous: the pair with more readable evidence wins).
    Corners that read a card must agree; the confidence is the best corner's
    probability of the agreed card. Returns ``(code or UNREADABLE, confidence)``.

    >>> p = np.full((2, 53), 0.001); p[0, 5] = 0.95; p[1, 52] = 0.95
    >>> combine_corners(p, 0.9)
    ('6S', 0.95)
    """
    probs = np.asarray(probs, np.float64)
    pairs = [probs[i:i + 2] for i in range(0, len(probs), 2)]
    pair = max(pairs, key=lambda p: float(np.sum(1.0 - p[:, UNREADABLE_CLASS])))
    usable = pair[pair[:, UNREADABLE_CLASS] < 0.5]
    if len(usable) == 0:
        return UNREADABLE, 0.0
    ids = usable[:, :UNREADABLE_CLASS].argmax(axis=1)
    if np.any(ids != ids[0]):
        return UNREADABLE, 0.0  # the two corners disagree: ask rather than guess
    conf = float(usable[:, ids[0]].max())
    if conf < threshold:
        return UNREADABLE, conf
    return CARD_CODES[int(ids[0])], conf


def could_read(probs: np.ndarray, weight: float, threshold: float) -> bool:
    """Whether corner probabilities (k, 53) could read a card at ``threshold`` once each card's
    probability is multiplied by at most ``weight`` and normalised again (a face's weights,
    :func:`sueca.vision.face_suit.max_face_weight`). A crop's best card p against its "no
    readable index" u reaches at most weight p / (weight p + u).

    >>> p = np.full((2, 53), 0.0001); p[:, 52] = 0.99   # a box on the cloth
    >>> could_read(p, 52.0, 0.98), could_read(p, 52.0, 0.0)
    (False, True)
    >>> p[0, 5], p[0, 52] = 0.5, 0.49                    # an index half read
    >>> could_read(p, 52.0, 0.98), could_read(p, 1.0, 0.98)
    (True, False)
    """
    probs = np.asarray(probs, np.float64).reshape(-1, probs.shape[-1])
    if threshold <= 0.0:
        return len(probs) > 0
    if threshold >= 1.0:
        return False
    best = probs[:, :UNREADABLE_CLASS].max(axis=1)
    # a hair of slack: the bound must never call readable what floating point would read
    return bool(np.any(weight * 1.001 * best * (1.0 - threshold) >= threshold * probs[:, UNREADABLE_CLASS]))


def clear_reading(probs: np.ndarray, threshold: float, clear: float = 0.05) -> bool:
    """Whether corner probabilities (k, 53) read a card at ``threshold`` from a pair whose both
    corners show an index (each gives "no readable index" under ``clear``): no other outline
    of the card could read it better.

    >>> p = np.full((2, 53), 0.001); p[:, 5] = 0.99
    >>> clear_reading(p, 0.98), clear_reading(p, 0.995)
    (True, False)
    >>> p[1, 5], p[1, 52] = 0.2, 0.79                    # one corner covered
    >>> clear_reading(p, 0.98)
    False
    """
    probs = np.asarray(probs, np.float64)
    code, _ = combine_corners(probs, threshold)
    if code == UNREADABLE:
        return False
    pairs = [probs[i:i + 2] for i in range(0, len(probs), 2)]
    return any(len(p) == 2 and bool(np.all(p[:, UNREADABLE_CLASS] < clear)) for p in pairs)


def combine_readers(probs: list[np.ndarray], threshold: float) -> tuple[str, float]:
    """One card's reading from several readers' corner probabilities (one (k, 53) array each).

    Each reader reads the card on its own (:func:`combine_corners`); the card is read
    only where every reader reads the same code, at the lowest of their confidences.
    Readers trained apart (other width, other scenes) are rarely sure of the same
    wrong card: a suit smeared by blur fools one of them, not both.

    >>> a = np.full((2, 53), 0.001); a[0, 5] = 0.99; a[1, 52] = 0.95
    >>> b = a.copy(); b[0, 5] = 0.97
    >>> combine_readers([a, b], 0.9)
    ('6S', 0.97)
    >>> b[0, 5], b[0, 6] = 0.01, 0.97                    # the second reader reads 7S
    >>> combine_readers([a, b], 0.9)
    ('', 0.0)
    """
    read = [combine_corners(p, 0.0) for p in probs]
    codes = {code for code, _ in read}
    if len(codes) != 1 or UNREADABLE in codes:
        return UNREADABLE, 0.0
    conf = min(conf for _, conf in read)
    return (read[0][0] if conf >= threshold else UNREADABLE), conf


def same_place(old: np.ndarray, new: np.ndarray, shift: float = 0.2, size: float = 0.35) -> bool:
    """Whether the outline ``new`` (4, 2) is still about the card ``old`` outlined: its centre
    within ``shift`` of a diagonal, its area within ``size`` of the old one. An outline
    looked at again may slide onto a neighbouring card; that card is not this one.

    >>> q = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
    >>> same_place(q, q + 10), same_place(q, q + 60)
    (True, False)
    """
    import cv2

    diag = float(np.linalg.norm(old.max(axis=0) - old.min(axis=0)))
    if np.linalg.norm(old.mean(axis=0) - new.mean(axis=0)) > shift * diag:
        return False
    a, b = cv2.contourArea(old.astype(np.float32)), cv2.contourArea(new.astype(np.float32))
    return a > 0 and abs(b / a - 1.0) <= size


def outline_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two outlines (4, 2), as their convex hulls.

    >>> q = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    >>> round(outline_iou(q, q + [5, 0]), 3)
    0.333
    """
    inter, area_a, area_b = overlap_areas(a, b)
    union = area_a + area_b - inter
    return float(inter / union) if union > 0 else 0.0


def overlap_areas(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """(intersection, area of ``a``, area of ``b``) of two outlines (4, 2), as their convex hulls.

    >>> q = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    >>> overlap_areas(q, q + [5, 0])
    (50.0, 100.0, 100.0)
    """
    import cv2

    a = cv2.convexHull(np.asarray(a, np.float32)).reshape(-1, 2)
    b = cv2.convexHull(np.asarray(b, np.float32)).reshape(-1, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter), float(cv2.contourArea(a)), float(cv2.contourArea(b))


#: Outline IoU above which two located boxes are one card.
SAME_CARD_IOU = 0.88


def same_card_outlines(corners: np.ndarray, scores: np.ndarray, iou: float = SAME_CARD_IOU) -> np.ndarray:
    """Indices of the outlines to keep: of outlines overlapping by more than ``iou``, the
    best-scored one (cards of a trick overlap far less; a card laid exactly on another
    hides it).

    >>> q = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
    >>> same_card_outlines(np.stack([q, q + 2, q + 60]), np.array([0.5, 0.9, 0.8])).tolist()
    [1, 2]
    """
    import cv2

    order = np.argsort(-np.asarray(scores), kind="stable")
    quads = [cv2.convexHull(np.asarray(q, np.float32)).reshape(-1, 2) for q in corners]
    areas = [cv2.contourArea(q) for q in quads]
    kept: list[int] = []
    for i in order:
        same = False
        for j in kept:
            inter, _ = cv2.intersectConvexConvex(quads[i], quads[j])
            union = areas[i] + areas[j] - inter
            if union > 0 and inter / union > iou:
                same = True
                break
        if not same:
            kept.append(int(i))
    return np.asarray(sorted(kept), np.int64)


def one_box_per_card(corners: np.ndarray, codes: list[str], confs: np.ndarray, located: np.ndarray,
                     iou: float = SAME_CARD_IOU) -> np.ndarray:
    """Indices of the outlines to keep once read: :func:`same_card_outlines` again, a read
    outline before an unread one, the surer reading first (``confs``; unread ones by the
    locator's score ``located``). The second looks move an unread box onto a card's outline
    after the boxes were told apart, and can move it onto a card another box already read:
    one card then reads twice, as two codes where the crops differ by a pixel (a 2S read 2C
    beside it on a 1280x720 video made a played card of its own).

    >>> q = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
    >>> one_box_per_card(np.stack([q, q + 1, q + 60]), ["2S", "2C", "3H"], np.array([0.99, 0.97, 0.99]),
    ...                  np.array([0.9, 0.9, 0.9])).tolist()
    [0, 2]
    >>> one_box_per_card(np.stack([q, q + 1]), ["", "2C"], np.array([0.0, 0.97]), np.array([0.9, 0.5])).tolist()
    [1]
    """
    if len(codes) < 2:
        return np.arange(len(codes))
    read = np.asarray([c != UNREADABLE for c in codes], bool)
    return same_card_outlines(corners, np.where(read, 1.0 + np.asarray(confs, np.float64), located), iou)


def one_per_card(codes: list[str], confs: np.ndarray) -> tuple[list[str], np.ndarray]:
    """A deck holds each card once: when two cards read the same code, keep the surer one.

    The other becomes unreadable (one of the two readings is wrong; a wrong
    identity costs more than a missing one).
    """
    codes = list(codes)
    confs = confs.copy()
    best: dict[str, int] = {}
    for i in np.argsort(-confs, kind="stable"):
        c = codes[i]
        if c == UNREADABLE:
            continue
        if c in best:
            codes[i] = UNREADABLE
        else:
            best[c] = int(i)
    return codes, confs


#: A box this much inside a read card's outline, and this much smaller, shows that card's face,
#: not a card of its own (the outlines of a tight fan's cards overlap by 0.85 and are as large).
NESTED, NESTED_SMALLER = 0.95, 0.85
#: ... where that outline is a card's: at most this many times the median read card's area
CARD_SIZED = 1.25


def nested_in_read(corners: np.ndarray, codes: list[str], confs: np.ndarray | None = None,
                   frac: float = NESTED, under: np.ndarray | None = None) -> np.ndarray:
    """Mask of the boxes that lie (by at least ``frac`` of their own area) inside an outline
    that was read and is larger (their area at most :data:`NESTED_SMALLER` of it) but no
    larger than a card (:data:`CARD_SIZED` times the median area of the read outlines): two boxes
    on one card, kept apart by :func:`same_card_outlines` because the inner one is skewed or
    small. Cards are all one size, so no card of its own can show there: an inner box unread
    or read as another code saw the outer card's face cut in the wrong place (a 2S read
    inside a card read 2C) and goes; one that read the same code goes where it is the less
    sure of the two (``confs``), else the outer one does. One entry per card. ``under``: a mask
    of outlines found under other cards (a fanned spread's): the cards on top show inside
    them, so they hold no box.

    >>> q = np.array([[0, 0], [70, 0], [70, 100], [0, 100]], np.float32)
    >>> inner = np.array([[8, 6], [66, 10], [62, 90], [4, 86]], np.float32)
    >>> nested_in_read(np.stack([q, inner, q + 60]), ["2C", "2S", "3H"]).tolist()
    [False, True, False]
    >>> nested_in_read(np.stack([q, inner]), ["", "2S"]).tolist()       # the outer card unread
    [False, False]
    >>> nested_in_read(np.stack([q, inner]), ["2C", "2C"], np.array([0.98, 0.99])).tolist()
    [True, False]
    >>> nested_in_read(np.stack([q, q + [0, 12]]), ["2C", "2S"]).tolist()  # a tight fan's cards
    [False, False]
    >>> nested_in_read(np.stack([q, inner]), ["2C", "2S"], under=np.array([True, False])).tolist()
    [False, False]
    """
    import cv2

    quads = [cv2.convexHull(np.asarray(q, np.float32)).reshape(-1, 2) for q in np.asarray(corners).reshape(-1, 4, 2)]
    areas = [cv2.contourArea(q) for q in quads]
    confs = np.zeros(len(quads)) if confs is None else np.asarray(confs, np.float64)
    out = np.zeros(len(quads), bool)
    read = [a for a, c in zip(areas, codes) if c != UNREADABLE]
    # an outline larger than the frame's read cards (a box over two cards, a spread step's)
    # is no card's own: what lies inside it may well be a card
    card = float(np.median(read)) if read else 0.0
    for j, code in enumerate(codes):
        if code == UNREADABLE or out[j] or areas[j] > CARD_SIZED * card or (under is not None and under[j]):
            continue
        for i in range(len(quads)):
            if i == j or out[i] or areas[i] <= 0 or areas[i] > NESTED_SMALLER * areas[j]:
                continue
            inter, _ = cv2.intersectConvexConvex(quads[i], quads[j])
            if inter >= frac * areas[i]:
                if codes[i] == code and confs[i] > confs[j]:
                    out[j] = True
                    break
                out[i] = True
    return out


__all__ = ["READER_CLASSES", "NESTED", "NESTED_SMALLER", "CARD_SIZED", "nested_in_read", "UNREADABLE_CLASS",
           "could_read", "clear_reading",
           "SAME_CARD_IOU", "softmax", "probabilities", "combine_corners",
           "combine_readers",
           "outline_iou",
           "same_place", "same_card_outlines", "one_box_per_card", "one_per_card"]
