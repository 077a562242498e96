"""The suit from the card's face: a weight on the readers' suit, and a check of it.

The readers read a corner index whose suit sign is 4-6 px on a café camera; some printed
decks' small spades and clubs are read as each other, frame after frame and sure of it
(``models/EXPERIMENTS.md``, 2026-12-05). The face shows the suit large: the pips of a
number card, the signs by a court's figure. A small network (the reader's, 5 classes:
S, H, D, C and "the face says nothing": face down, mostly covered, no card) looks at the
whole card rectified to 72x48. Where the model fuses (``FaceSuit.fuse``), its suit weighs
the readers' probabilities before a card's corners are combined (:func:`weigh`: the rank
still comes from the index alone). Then, where it gives the suit read less than ``doubt``
and another suit at least ``sure``, the reading is withdrawn (reported unreadable: the
referee can be asked, a wrong card corrupts the score). (A card just put down, blurred,
got clubs 0.01 and spades 0.84 where the readers said clubs: "sure of another suit"
alone at 0.9 let it through; ``models/EXPERIMENTS.md``.)

>>> probs = np.array([[0.01, 0.0, 0.0, 0.97, 0.02],   # clubs, not spades
...                   [0.03, 0.0, 0.0, 0.8, 0.17],    # clubs rather than spades
...                   [0.3, 0.0, 0.0, 0.65, 0.05],    # clubs, but spades not ruled out
...                   [0.0, 0.0, 0.0, 0.0, 1.0]])     # the face says nothing
>>> disagrees(["2S", "3S", "4S", "5S"], probs).tolist()
[True, True, False, False]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sueca.vision.classes import CARD_CODES
from sueca.vision.detections import UNREADABLE
from sueca.vision.readings import softmax
from sueca.vision.rectify import CropSpec, crop_top_left, portrait_orderings

#: The whole card and a little around it (an outline a few percent off still shows it all);
#: 72 rows so that the network's three halvings leave 9, which its 3x2 pooling divides
#: (ONNX exports only such pooling).
FACE_SPEC = CropSpec(box=(-0.02, -0.02, 1.02, 1.02), size=(72, 48), channels=3)
SUITS = "SHDC"
SAYS_NOTHING = 4  # the fifth class


def face_crops(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """(2N, 72, 48, 3) uint8: each outline of ``corners`` (N, 4, 2) upright, then turned 180 degrees."""
    out = [crop_top_left(frame, o, FACE_SPEC) for q in np.asarray(corners, np.float32).reshape(-1, 4, 2)
           for o in portrait_orderings(q)[:2]]
    return np.stack(out) if out else np.zeros((0, *FACE_SPEC.size, 3), np.uint8)


def disagrees(codes, probs: np.ndarray, sure: float = 0.5, doubt: float = 0.05, rank: bool = False) -> np.ndarray:
    """Per card: the face gives the code's suit under ``doubt`` and another suit at least
    ``sure`` (unread codes: False). ``probs``: (N, 5), or a whole-card face's (N, 53)
    (:func:`suit_of_face`); with ``rank`` the same test on the rank group too
    (:func:`rank_of_face`: a pip count, or "a court")."""
    probs = np.asarray(probs, np.float64).reshape(len(codes), -1)
    suits = suit_of_face(probs)
    ranks = rank_of_face(probs) if rank and probs.shape[1] > SAYS_NOTHING + 1 else None
    out = np.zeros(len(codes), bool)
    for i, code in enumerate(codes):
        if code == UNREADABLE:
            continue
        out[i] = _ruled_out(suits[i], SUITS.index(code[-1]), sure, doubt) or (
            ranks is not None and _ruled_out(ranks[i], RANK_GROUP[code[:-1]], sure, doubt))
    return out


def _ruled_out(p: np.ndarray, read: int, sure: float, doubt: float) -> bool:
    other = max(p[k] for k in range(len(p) - 1) if k != read)
    return bool(p[read] < doubt and other >= sure)


#: Each card class's suit (0-3), in the readers' class order.
_SUIT_OF = np.array([SUITS.index(code[-1]) for code in CARD_CODES])
#: What a face shows of the rank: its pips' count (A, 2 ... 10), or a court figure, which
#: differs from deck to deck (J, Q and K are one group).
RANK_GROUP = {**{r: i for i, r in enumerate(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10"))},
              "J": 10, "Q": 10, "K": 10}
_GROUP_OF = np.array([RANK_GROUP[code[:-1]] for code in CARD_CODES])
_COURT = _GROUP_OF == RANK_GROUP["J"]  # the courts, in the readers' class order
_GROUP_SIZE = np.bincount(_GROUP_OF[:13])  # ranks per group (1, ..., 1, 3)
_SUIT_GROUP = _SUIT_OF * len(_GROUP_SIZE) + _GROUP_OF  # each card's (suit, rank group)
_SHARE = np.bincount(_SUIT_GROUP) / len(CARD_CODES)  # each (suit, rank group)'s share of the 52


def _members(group_of: np.ndarray) -> np.ndarray:
    """(52, G) membership matrix of a grouping of the cards (``group_of``: 52 ints in 0..G-1)."""
    return np.eye(int(group_of.max()) + 1)[group_of]


#: The three groupings' memberships, made once (a frame weighs many crop sets).
_BY_SUIT, _BY_GROUP, _BY_SUIT_GROUP = _members(_SUIT_OF), _members(_GROUP_OF), _members(_SUIT_GROUP)


def _marginal(probs: np.ndarray, members: np.ndarray) -> np.ndarray:
    """(N, G + 1): a whole-card face's (N, 53) probabilities summed by each card's group
    (``members``: a grouping's (52, G) membership matrix), "says nothing" last."""
    probs = np.asarray(probs, np.float64).reshape(-1, len(CARD_CODES) + 1)
    return np.column_stack([probs[:, :len(CARD_CODES)] @ members, probs[:, len(CARD_CODES):].sum(axis=1)])


def suit_of_face(probs: np.ndarray) -> np.ndarray:
    """(N, 5) S H D C and "says nothing" from a face's (N, 5) or whole-card (N, 53) probabilities."""
    probs = np.asarray(probs, np.float64)
    return probs if probs.shape[-1] == SAYS_NOTHING + 1 else _marginal(probs, _BY_SUIT)


def rank_of_face(probs: np.ndarray) -> np.ndarray:
    """(N, 12): the rank groups of :data:`RANK_GROUP` and "says nothing", from a whole-card
    face's (N, 53) probabilities."""
    return _marginal(probs, _BY_GROUP)


def weigh(probs: np.ndarray, face: np.ndarray, rank: bool = False) -> np.ndarray:
    """Readers' probabilities (k, 53) weighed by what the face says of the suit (5,) or of
    the whole card (53,): P(card | index, face) is proportional to
    P(card | index) P(suit | face) / (1/4), with "says nothing" spread evenly over the
    suits (so a face that says nothing changes nothing) and the "no readable index" class
    as it was. With ``rank`` (a whole-card face), by the suit and rank group together
    (:data:`RANK_GROUP`: P(suit, group | face) over its share of the 52 cards); else the
    rank comes from the index alone, and a suit sign of a few pixels the readers half read
    is settled by the pips.

    >>> p = np.zeros((1, 53)); p[0, CARD_CODES.index("2C")], p[0, CARD_CODES.index("2S")] = 0.6, 0.4
    >>> q = weigh(p, np.array([0.99, 0.0, 0.0, 0.01, 0.0]))
    >>> round(float(q[0, CARD_CODES.index("2S")]), 3), round(float(q[0, CARD_CODES.index("2C")]), 3)
    (0.985, 0.015)
    >>> bool(np.allclose(weigh(p, np.array([0, 0, 0, 0, 1.0])), p))
    True
    """
    return weighed_by(probs, face_weights(face, rank))


def face_weights(face: np.ndarray, rank: bool = False, court_power: float = 1.0) -> np.ndarray:
    """(52,) the factor :func:`weigh` multiplies each card's probability by (one face, made
    once for all the crops and readers that face weighs). ``court_power``: a court's factor
    (by suit and rank group) is raised to it.

    >>> face = np.zeros(53); face[CARD_CODES.index("QS")], face[CARD_CODES.index("QC")] = 0.8, 0.2
    >>> w = face_weights(face, True)
    >>> round(float(w[CARD_CODES.index("QS")] / w[CARD_CODES.index("QC")]), 2)
    4.0
    >>> w = face_weights(face, True, court_power=0.25)
    >>> round(float(w[CARD_CODES.index("QS")] / w[CARD_CODES.index("QC")]), 2)
    1.41
    """
    face = np.asarray(face, np.float64).reshape(1, -1)
    if rank and face.shape[1] > SAYS_NOTHING + 1:
        # suit and rank group together, not each on its own: a blurred 2S whose face says
        # "a two" and "spades, a little" must not lend its two to the index's 2C
        joint = _marginal(face, _BY_SUIT_GROUP)[0]
        w = ((joint[:-1] + joint[-1] * _SHARE) / _SHARE)[_SUIT_GROUP]
        if court_power != 1.0:
            # a court's face shows its suit only by signs as small as the index's, which blur
            # with it: its word is not a second witness, so it counts for less
            w[_COURT] = w[_COURT] ** court_power
        return w
    suit = suit_of_face(face)[0]
    return 4.0 * (suit[:SAYS_NOTHING] + suit[SAYS_NOTHING] / SAYS_NOTHING)[_SUIT_OF]


def max_face_weight(rank: bool = False) -> float:
    """The largest factor :func:`face_weights` gives a card: 4 by the suit alone (a face sure
    of one suit), 52 by suit and rank group (sure of a one-card group: 1 / its share of 52).

    >>> max_face_weight(), max_face_weight(True)
    (4.0, 52.0)
    """
    return float(1.0 / _SHARE.min()) if rank else 4.0


def weighed_by(probs: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Readers' probabilities (k, 53) times card factors ``w`` (52,), normalised again."""
    out = np.array(probs, np.float64, copy=True)
    out[:, :len(_SUIT_OF)] *= w
    return out / out.sum(axis=1, keepdims=True)


def _key(quad: np.ndarray) -> bytes:
    return np.ascontiguousarray(quad, np.float32).tobytes()


@dataclass
class FaceSuit:
    """``net(crops) -> logits`` (N, 5) on :data:`FACE_SPEC` crops; its temperature; a reading is
    withdrawn where the face gives its suit under ``doubt`` and another at least ``sure``;
    ``fuse``: the readers' probabilities are also weighed by the face's suit before they
    are combined (:func:`weigh`)."""

    net: object
    temperature: float = 1.0
    sure: float = 0.5
    doubt: float = 0.05
    fuse: bool = False
    #: a whole-card face (53 classes): its rank group weighs too
    rank: bool = False
    #: ... and withdraws a reading too. Off: a face counts the pips of a deck it never saw
    #: wrong sure of itself (Bellot's nines as tens or eights, in every scene), and the
    #: weighing already keeps the face's count from renaming a card (models/EXPERIMENTS.md)
    rank_check: bool = False
    #: a court's factor is raised to this power (1: as any card's): a court's face shows its
    #: suit by signs as small as the index's, so a blurred queen's face agrees with the
    #: readers' wrong suit (a QC read QS at 0.986, the face giving spades 0.88:
    #: models/EXPERIMENTS.md, eleventh session)
    court_power: float = 1.0

    def probabilities(self, frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """(N, K): the two upright views of each card averaged (K: the network's classes)."""
        crops = face_crops(frame, corners)
        if not len(crops):
            return np.zeros((0, SAYS_NOTHING + 1))
        p = softmax(self.net(crops), self.temperature)
        return p.reshape(-1, 2, p.shape[1]).mean(axis=1)

    def card_probabilities(self, frame: np.ndarray, quads, memo=None, seen: dict | None = None) -> np.ndarray:
        """(N, 5) for the cards outlined by ``quads``, each looked at once: taken from ``seen``
        (this frame's, by outline) or from ``memo`` (a :class:`~sueca.vision.crop_memory.CropMemory`:
        a still card's face is kept with its corner crops) where there, else looked at now;
        what was looked at is kept in both."""
        quads = [np.asarray(q, np.float32).reshape(4, 2) for q in quads]
        out: list = [None] * len(quads)
        for j, q in enumerate(quads):
            if seen is not None and _key(q) in seen:
                out[j] = seen[_key(q)]
            elif memo is not None and (r := memo.reading(q)) is not None and r.face is not None:
                out[j] = r.face
        todo = [j for j, p in enumerate(out) if p is None]
        if todo:
            for j, p in zip(todo, self.probabilities(frame, np.stack([quads[j] for j in todo]))):
                out[j] = p
        for j, q in enumerate(quads):
            if seen is not None:
                seen[_key(q)] = out[j]
            if memo is not None and (r := memo.reading(q)) is not None and r.face is None:
                r.face = out[j]
        return np.stack(out) if out else np.zeros((0, SAYS_NOTHING + 1))

    def check(self, frame: np.ndarray, corners: np.ndarray, codes: list[str], candidates=None,
              memo=None, seen: dict | None = None) -> np.ndarray:
        """Which of the read cards the face contradicts (bool per card; unread cards False).
        Each card is looked at on its first candidate outline where ``candidates`` are given
        (as the readers read it), else on ``corners``; ``memo``, ``seen``: as
        :meth:`card_probabilities`."""
        ask = [i for i, c in enumerate(codes) if c != UNREADABLE]
        out = np.zeros(len(codes), bool)
        if not ask:
            return out
        quads = [np.asarray(candidates[i], np.float32).reshape(-1, 4, 2)[0] if candidates is not None
                 else np.asarray(corners[i], np.float32) for i in ask]
        probs = self.card_probabilities(frame, quads, memo, seen)
        out[ask] = disagrees([codes[i] for i in ask], probs, self.sure, self.doubt, self.rank and self.rank_check)
        return out
