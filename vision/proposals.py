"""Card-shaped patches of card stock: a classical second opinion for the locator.

The learned locator sometimes scores a lone card with little print (an ace on a
plain cloth) below its threshold for seconds, until the next card lands beside
it. A card lying alone is the easy case for plain image processing: a bright,
grey-white patch, brighter than the cloth around it, with a card's aspect and
straight sides. This finds such patches; the recognizer reads them like located
cards, but only at the single-image threshold (both readers sure), so a napkin
or a receipt costs a reader call and nothing else.

>>> import cv2
>>> frame = np.full((480, 640, 3), (40, 90, 40), np.uint8)
>>> card = cv2.boxPoints(((400, 200), (50, 70), 25)).astype(np.int32)
>>> _ = cv2.fillPoly(frame, [card], (235, 235, 235))
>>> rb = card_stock(frame)
>>> rb.shape, [round(float(v)) for v in rb[0, :2]]
((1, 5), [400, 200])
"""

from __future__ import annotations

import cv2
import numpy as np

#: Width the frame is searched at; a card 100 px tall at 1280 is 25 px here.
WORK_WIDTH = 320
#: Short/long side ratio of the patch (a card is 0.71; tilted cameras shorten one side).
ASPECT = (0.55, 0.85)
#: Long side of the patch, as a fraction of the frame's short side.
LONG_SIDE = (0.05, 0.3)
#: Patch area over its rotated rectangle's: a card's sides are straight.
MIN_SOLIDITY = 0.85
#: Lowest mean brightness over the cloth around (0-255) for a patch to count.
MIN_CONTRAST = 25.0


def _stock(small: np.ndarray) -> np.ndarray:
    """Whiteness: bright and unsaturated (card stock), low on coloured cloths."""
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    return np.clip(hsv[..., 2].astype(np.int16) - hsv[..., 1].astype(np.int16), 0, 255).astype(np.uint8)


def shrunk(frame: np.ndarray) -> np.ndarray:
    """The frame at :data:`WORK_WIDTH` wide (area interpolation), as :func:`card_stock` searches it;
    the locator's letterbox takes the same image where its size fits (4:3 and wider frames)."""
    h, w = frame.shape[:2]
    return cv2.resize(frame, (WORK_WIDTH, max(8, round(h * WORK_WIDTH / w))), interpolation=cv2.INTER_AREA)


def card_stock(frame: np.ndarray, small: np.ndarray | None = None) -> np.ndarray:
    """Rotated boxes (N, 5) ``cx, cy, w, h, angle`` (radians, frame pixels) of lone
    card-shaped patches of card stock in a BGR frame (``small``: :func:`shrunk` of it, if made).

    Cards that overlap others, lie under a hand or on a white table make no
    card-shaped patch and are left to the locator.
    """
    h, w = frame.shape[:2]
    k = WORK_WIDTH / w
    size = (WORK_WIDTH, max(8, round(h * k)))
    white = _stock(small if small is not None and small.shape[1::-1] == size else shrunk(frame))
    # the cloth's own whiteness, from a window far wider than a card: a median ignores the cards
    tiny = cv2.resize(white, (64, max(4, round(64 * size[1] / size[0]))), interpolation=cv2.INTER_AREA)
    cloth = cv2.resize(cv2.medianBlur(tiny, 9), size, interpolation=cv2.INTER_LINEAR)
    above = cv2.subtract(white, cloth)
    _, mask = cv2.threshold(above, MIN_CONTRAST, 255, cv2.THRESH_BINARY)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    short = min(size)
    rows = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < 20:
            continue
        (cx, cy), (rw, rh), deg = cv2.minAreaRect(c)
        long_side, short_side = max(rw, rh), min(rw, rh)
        if not LONG_SIDE[0] * short <= long_side <= LONG_SIDE[1] * short:
            continue
        if not ASPECT[0] <= short_side / long_side <= ASPECT[1]:
            continue
        if area / max(rw * rh, 1e-6) < MIN_SOLIDITY:
            continue
        # contour points are pixel centres, half a pixel in; the card's edge pixels, partly
        # cloth, are in the mask too: the two make up for each other in the size
        rows.append([(cx + 0.5) / k - 0.5, (cy + 0.5) / k - 0.5, rw / k, rh / k, np.deg2rad(deg)])
    return np.asarray(rows, np.float32).reshape(-1, 5)


#: A located box this long (share of the frame's short side) means cards larger than the
#: locator learnt (6-20% of the frame): a close-up photo.
BIG_CARD = 0.22
#: The zoomed-out look shrinks the frame this many times into a frame-sized canvas.
ZOOM_OUT = 3.0
#: Input (h, w) of the locator's small copy (:func:`small_look`): a 4:3 frame is shrunk ten
#: times, so a card 0.2-0.7 of the frame high is 19-67 px (the locator learnt 15-48 px).
SMALL_IMGSZ = (96, 128)
#: Its boxes count from this long (share of the frame's short side): it also finds the cards
#: of an overhead camera (10-18% there), which the full pass boxes better, and each box
#: added is outlined and read.
SMALL_MIN = 0.18


def zoomed_out(locator, frame: np.ndarray, factor: float = ZOOM_OUT) -> tuple[np.ndarray, np.ndarray]:
    """The locator's boxes (rboxes, scores) on the frame shrunk ``factor`` times into the
    middle of a canvas of its own size, mapped back to the frame.

    A phone photo of a few cards shows each a third or half of the frame high; the
    locator learnt cards of 6-20% (the overhead camera), and misses such big ones.
    Shrunk three times they are that size again. The canvas is the colour of the
    frame's border, so no edge of the photo looks like a card's.

    >>> class One:  # a locator that finds one box at the canvas centre
    ...     def __call__(self, img):
    ...         from sueca.vision.onnx_backend import Located, rbox_corners
    ...         h, w = img.shape[:2]
    ...         rb = np.array([[w / 2, h / 2, 30, 40, 0.1]], np.float32)
    ...         return Located(rb, rbox_corners(rb), np.array([0.9], np.float32))
    >>> rb, sc = zoomed_out(One(), np.zeros((300, 600, 3), np.uint8))
    >>> rb.astype(float).round(2).tolist(), sc.astype(float).round(2).tolist()
    ([[300.0, 150.0, 90.0, 120.0, 0.1]], [0.9])
    """
    h, w = frame.shape[:2]
    sw, sh = max(1, int(round(w / factor))), max(1, int(round(h / factor)))
    border = np.concatenate([frame[0], frame[-1], frame[:, 0], frame[:, -1]])
    canvas = np.empty_like(frame)
    canvas[:] = np.median(border, axis=0).astype(frame.dtype)
    ox, oy = (w - sw) // 2, (h - sh) // 2
    canvas[oy:oy + sh, ox:ox + sw] = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    found = locator(canvas)
    rb = np.asarray(found.rboxes, np.float32).reshape(-1, 5).copy()
    gx, gy = w / sw, h / sh
    rb[:, 0], rb[:, 1] = (rb[:, 0] - ox) * gx, (rb[:, 1] - oy) * gy
    rb[:, 2:4] *= (gx + gy) / 2
    inside = (rb[:, 0] >= 0) & (rb[:, 0] < w) & (rb[:, 1] >= 0) & (rb[:, 1] < h)
    return rb[inside], np.asarray(found.scores, np.float32)[inside]


def small_look(small_locator, frame: np.ndarray, small: np.ndarray | None = None,
               min_side: float = SMALL_MIN) -> tuple[np.ndarray, np.ndarray]:
    """(rboxes, scores) of ``small_locator`` (the locator's weights at a small input size,
    e.g. 96x128) on the whole frame, in frame pixels: a card half the frame high is 48 px
    there, inside the sizes the locator learnt, at a seventh of a full pass's pixels.
    Only boxes at least ``min_side`` of the frame's short side long are kept.
    ``small``: :func:`shrunk` of the frame, if made; the letterbox is cut from it (a
    quarter of a millisecond instead of one).

    >>> class One:  # a locator that finds one box in the middle of what it is given
    ...     def __call__(self, img):
    ...         from sueca.vision.onnx_backend import Located, rbox_corners
    ...         h, w = img.shape[:2]
    ...         rb = np.array([[w / 2, h / 2, w / 4, h / 4, 0.1]], np.float32)
    ...         return Located(rb, rbox_corners(rb), np.array([0.9], np.float32))
    >>> frame = np.zeros((960, 1280, 3), np.uint8)
    >>> small_look(One(), frame, shrunk(frame))[0].astype(float).round(2).tolist()
    [[640.0, 480.0, 320.0, 240.0, 0.1]]
    """
    h, w = frame.shape[:2]
    src = small if small is not None and small.shape[1] < w else frame
    found = small_locator(src)
    rb = np.asarray(found.rboxes, np.float32).reshape(-1, 5).copy()
    k = w / src.shape[1]
    rb[:, :4] *= k
    big = rb[:, 2:4].max(axis=1) >= min_side * min(h, w)
    return rb[big], np.asarray(found.scores, np.float32)[big]


def with_second_opinions(locator, frame: np.ndarray, flip: bool, stock: bool, iou: float,
                         zoom: bool = False, faint: float | None = None, faint_max: int = 0,
                         small_locator=None, always_zoom: bool = False) -> tuple:
    """``locator(frame)``'s cards, plus those of the second opinions switched on (``flip``:
    the locator on the left-right mirrored frame; ``stock``: :func:`card_stock`; ``zoom``:
    :func:`small_look` with ``small_locator`` where given, else :func:`zoomed_out`, only where
    nothing was found or a box is :data:`BIG_CARD` long, or on every frame with ``always_zoom``;
    ``faint``: the locator's own boxes scored from ``faint`` up to its threshold, from either
    pass, the best ``faint_max`` of those on no card found before) that overlap none found
    before by more than ``iou`` (probabilistic IoU, as the locator's NMS). Returns (Located,
    mask of the added boxes)."""
    from sueca.vision.onnx_backend import Located, nms_rotated, probiou_matrix, rbox_corners

    low = faint if faint is not None and faint_max > 0 and faint < locator.conf else None
    kw = {} if low is None else {"conf": low}
    # one shrink of the frame for the card stock pass and the locator's letterbox (2 ms at 1280x960)
    small = shrunk(frame) if stock or (zoom and small_locator is not None) else None
    if flip and hasattr(locator, "both"):  # one letterbox for both passes (ONNX Runtime)
        located, mirrored = locator.both(frame, small, **kw) if small is not None else locator.both(frame, **kw)
    else:
        located = locator(frame, **kw)
        # cv2.flip: numpy copies a reversed-stride frame ten times slower (9 ms at 1280x960)
        mirrored = locator(cv2.flip(frame, 1), **kw) if flip else None
    faint_boxes = []
    if low is not None:
        # NMS keeps the same strong boxes at any lower threshold: only the faint ones are new
        located, weak = _split(located, locator.conf)
        faint_boxes.append(weak)
    boxes = [np.asarray(located.rboxes, np.float32).reshape(-1, 5)]
    scores = [np.asarray(located.scores, np.float32)]
    extra = []
    if flip:
        if low is not None:
            mirrored, weak = _split(mirrored, locator.conf)
            faint_boxes.append(_unmirrored(weak, frame.shape[1]))
        extra.append((*_unmirrored((np.asarray(mirrored.rboxes, np.float32).reshape(-1, 5),
                                    np.asarray(mirrored.scores, np.float32)), frame.shape[1]), None))
    if stock:
        rb = card_stock(frame, small)
        extra.append((rb, np.zeros(len(rb), np.float32), None))
    if zoom:
        found = np.concatenate([boxes[0]] + [rb for rb, _, _ in extra])
        # a locator's small boxes on the parts of a large card hide it from the trigger: where
        # the look is cheap (a small input), a still image takes it always
        if always_zoom or not len(found) or float(found[:, 2:4].max()) >= BIG_CARD * min(frame.shape[:2]):
            look = small_look(small_locator, frame, small) if small_locator is not None else \
                zoomed_out(locator, frame)
            extra.insert(0, (*look, None))
    if faint_boxes:
        rb = np.concatenate([b for b, _ in faint_boxes])
        sc = np.concatenate([s for _, s in faint_boxes])
        best = nms_rotated(rb, sc, iou)  # both passes' boxes of one card are one, best first
        # last, and only the best few of those on no card found already
        extra.append((rb[best], sc[best], faint_max))
    first = len(scores[0])
    for rb, sc, most in extra:  # each pass adds its boxes on no card found before (at most ``most``)
        if not len(rb):
            continue
        have = np.concatenate(boxes)
        new = probiou_matrix(rb, have).max(axis=1) <= iou if len(have) else np.ones(len(rb), bool)
        if most is not None:
            new &= np.cumsum(new) <= most
        boxes.append(rb[new])
        scores.append(sc[new])
    if sum(len(b) for b in boxes) == first:
        return located, np.zeros(first, bool)
    rb = np.concatenate(boxes)
    return Located(rb, rbox_corners(rb), np.concatenate(scores)), np.arange(len(rb)) >= first


def _split(located, conf: float) -> tuple:
    """(the boxes scored above ``conf`` as a Located, (rboxes, scores) of the others)."""
    from sueca.vision.onnx_backend import Located

    sc = np.asarray(located.scores, np.float32)
    rb = np.asarray(located.rboxes, np.float32).reshape(-1, 5)
    strong = sc > conf  # as the locator's own decoding
    return Located(rb[strong], np.asarray(located.corners)[strong], sc[strong]), (rb[~strong], sc[~strong])


def _unmirrored(found: tuple, width: int) -> tuple:
    """(rboxes, scores) found on the left-right mirrored frame, in the frame's own pixels."""
    rb = found[0].copy()
    rb[:, 0] = width - rb[:, 0]
    rb[:, 4] = -rb[:, 4]  # a mirrored box turns the other way
    return rb, found[1]


__all__ = ["BIG_CARD", "ZOOM_OUT", "SMALL_IMGSZ", "SMALL_MIN", "shrunk", "card_stock", "zoomed_out", "small_look",
           "with_second_opinions"]
