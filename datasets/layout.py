"""Where things lie on the table in a training scene.

``plan_layout`` returns the objects in drawing order (bottom first): card
``Placement``s and distractor tuples ``(kind, sprite, x, y, angle, shade[, scale])``,
all in plane pixels (see ``camera.Camera``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..vision.classes import CARD_CODES
from .distractors import MAKERS, hand_sprite


@dataclass(frozen=True)
class Placement:
    code: str
    style: str
    x: float
    y: float
    angle: float            # degrees; 0 = card upright in the plane
    face_up: bool = True
    glare: float = 0.0
    blur_px: float = 0.0    # motion blur length in image pixels
    blur_angle: float = 0.0


def _unit(a_deg: float) -> np.ndarray:
    a = np.radians(a_deg)
    return np.array([np.cos(a), np.sin(a)])


class _Deck:
    """Draws distinct card codes; all 52 French cards are equally likely."""

    def __init__(self, rng):
        self.order = list(rng.permutation(len(CARD_CODES)))

    def draw(self) -> str:
        return CARD_CODES[self.order.pop()] if self.order else CARD_CODES[0]


def _visible_region(cam):
    w, h = cam.size
    m = 0.05
    pts = np.array([[w * m, h * m], [w * (1 - m), h * m], [w * (1 - m), h * (1 - m)], [w * m, h * (1 - m)]])
    return cam.unproject(pts)


def _random_point(rng, region: np.ndarray) -> np.ndarray:
    # Bilinear point of the (convex) visible quad.
    u, v = rng.random(2)
    top = region[0] + (region[1] - region[0]) * u
    bot = region[3] + (region[2] - region[3]) * u
    return top + (bot - top) * v


def plan_layout(rng, cam, unit: float, style: str, deck_styles, layout=None, distractors: bool = True) -> list:
    """Objects of one scene in drawing order. ``unit`` = card height in plane px."""
    region = _visible_region(cam)
    centre = region.mean(0) + rng.normal(0, 0.08, 2) * cam.size
    deck = _Deck(rng)
    layout = layout or rng.choice(["game", "scatter", "fan"], p=[0.5, 0.3, 0.2])
    other_style = deck_styles[rng.integers(len(deck_styles))].name
    sty = (lambda: other_style if rng.random() < 0.15 else style)

    def card(x, y, angle, face_up=True, moving=False):
        glare = float(rng.uniform(0.2, 0.6)) if rng.random() < 0.2 else 0.0
        blur = float(rng.uniform(2, 14)) if (moving or rng.random() < 0.05) else 0.0
        return Placement(deck.draw(), sty(), float(x), float(y), float(angle % 360), face_up, glare, blur,
                         float(rng.uniform(0, 180)))

    under, cards, over = [], [], []
    if distractors and rng.random() < 0.35:
        kind = rng.choice(["sheet", "coaster", "napkin", "receipt"], p=[0.5, 0.2, 0.15, 0.15])
        under.append(_distractor(rng, kind, unit, _random_point(rng, region)))

    base = rng.uniform(0, 360)
    seat_dir = [base + 90 * s for s in range(4)]
    holder = None  # card being put down by a hand
    held = []      # (pivot, seat direction) of fans held by players
    if layout == "game":
        dealer = int(rng.integers(4))
        r_edge = unit * rng.uniform(2.2, 3.2)
        # Face-down piles of won tricks near some players.
        for s in range(4):
            if rng.random() < 0.45:
                d = _unit(seat_dir[s] + rng.normal(0, 25))
                p = centre + d * r_edge * rng.uniform(0.9, 1.3)
                ang = seat_dir[s] + 90 + rng.normal(0, 30)
                for _ in range(int(rng.integers(1, 6))):
                    q = p + rng.normal(0, unit * 0.04, 2)
                    cards.append(card(q[0], q[1], ang + rng.normal(0, 8), face_up=False))
        # Players holding their cards: a fan of backs in a fist at the table's edge.
        for s in range(4):
            if rng.random() < 0.25:
                u = _unit(seat_dir[s])
                pivot = centre + u * (r_edge + unit * rng.uniform(0.1, 0.6))
                up = np.degrees(np.arctan2(-(-u[0]), -u[1]))   # card top towards the table centre
                n_held = int(rng.integers(3, 10))
                spread = rng.uniform(6, 14)
                for k in range(n_held):
                    a = up + spread * (k - (n_held - 1) / 2)
                    top = np.array([np.sin(np.radians(a)), -np.cos(np.radians(a))])
                    q = pivot + top * unit * 0.3
                    cards.append(card(q[0], q[1], a, face_up=False))
                held.append((pivot, seat_dir[s]))
        # The turned trump card beside the dealer.
        if rng.random() < 0.8:
            d = _unit(seat_dir[dealer])
            perp = _unit(seat_dir[dealer] + 90)
            p = centre + d * r_edge * rng.uniform(0.8, 1.1) + perp * unit * rng.uniform(-0.9, 0.9)
            cards.append(card(p[0], p[1], seat_dir[dealer] + 90 + rng.normal(0, 40)))
        # The trick in the middle, leader first (underneath).
        n = int(rng.choice([0, 1, 2, 3, 4, 4], p=[0.05, 0.15, 0.2, 0.25, 0.2, 0.15]))
        leader = int(rng.integers(4))
        for k in range(n):
            s = (leader + k) % 4
            d = _unit(seat_dir[s])
            p = centre + d * unit * rng.uniform(0.2, 1.0) + _unit(seat_dir[s] + 90) * unit * rng.normal(0, 0.25)
            ang = seat_dir[s] + 90 + rng.normal(0, 25) if rng.random() < 0.7 else rng.uniform(0, 360)
            moving = k == n - 1 and rng.random() < 0.3
            cards.append(card(p[0], p[1], ang, moving=moving))
            if moving or (k == n - 1 and rng.random() < 0.25):
                holder = (p, seat_dir[s], ang)
    elif layout == "fan":
        for _ in range(int(rng.integers(1, 3))):
            p0 = _random_point(rng, region)
            ang = rng.uniform(0, 360)
            step = unit * cards_step(rng)
            spread = rng.uniform(0, 6)
            for k in range(int(rng.integers(3, 10))):
                a = ang + spread * k
                q = p0 + _unit(ang) * step * k
                cards.append(card(q[0], q[1], a))
    n_scatter = int(rng.integers(3, 12)) if layout == "scatter" else int(rng.integers(0, 4))
    for _ in range(n_scatter):
        q = _random_point(rng, region)
        cards.append(card(q[0], q[1], rng.uniform(0, 360), face_up=rng.random() < 0.85))
    if not any(c.face_up for c in cards):
        q = _random_point(rng, region)
        cards.append(card(q[0], q[1], rng.uniform(0, 360)))

    if distractors:
        for _ in range(int(rng.integers(0, 4))):
            kind = rng.choice(["coin", "coin", "phone", "glass", "pack", "receipt", "bcard", "coaster", "napkin"])
            over.append(_distractor(rng, kind, unit, _random_point(rng, region)))
        for pivot, sdir in held:
            over.append(_hand(rng, unit, pivot, sdir + rng.normal(0, 10), pose="fist"))
        n_hands = int(rng.choice([0, 1, 2, 3], p=[0.3, 0.4, 0.2, 0.1]))
        face_up = [c for c in cards if c.face_up]
        for i in range(n_hands):
            if i == 0 and holder is not None:
                p, sdir, ang = holder
                # Fingers on the card's edge towards the player.
                target = p + _unit(sdir) * unit * rng.uniform(0.2, 0.55)
                over.append(_hand(rng, unit, target, sdir + rng.normal(0, 15), pose="pinch"))
            elif face_up and rng.random() < 0.7:
                # Each hand goes for its own card: three hands on one card look staged.
                c = face_up[rng.integers(len(face_up))]
                face_up = [f for f in face_up if np.hypot(f.x - c.x, f.y - c.y) > 1.5 * unit]
                target = np.array([c.x, c.y]) + rng.normal(0, unit * 0.4, 2)
                out = np.degrees(np.arctan2(*(target - centre)[::-1])) if np.linalg.norm(target - centre) > 1 else \
                    rng.uniform(0, 360)
                over.append(_hand(rng, unit, target, out + rng.normal(0, 30)))
            else:
                over.append(_hand(rng, unit, _random_point(rng, region), rng.uniform(0, 360)))
    return under + cards + over


def cards_step(rng) -> float:
    """Offset between fanned cards, in card heights: just enough to show an index."""
    return float(rng.uniform(0.13, 0.3))


def _distractor(rng, kind, unit, p):
    sprite = MAKERS[kind](rng, unit)
    return (kind, sprite, float(p[0]), float(p[1]), float(rng.uniform(0, 360)), kind not in ("sheet", "napkin"))


#: Hands are drawn once per (variant, pose) at this card height, then scaled: a pool of
#: ``HAND_VARIANTS`` arms per pose, cheap after the first use, still a pure function of the seed.
HAND_UNIT = 64.0
HAND_VARIANTS = 128


@functools.lru_cache(maxsize=1024)
def pooled_hand(variant: int, pose: str):
    sprite, anchor = hand_sprite(np.random.default_rng([variant, 31]), HAND_UNIT, pose)
    sprite.setflags(write=False)
    return sprite, anchor


def _hand(rng, unit, target, out_deg, pose=None):
    """A hand whose anchor lies on ``target`` with the arm pointing along ``out_deg``."""
    pose = pose or str(rng.choice(["flat", "pinch", "fist"], p=[0.45, 0.4, 0.15]))
    sprite, (ax, ay) = pooled_hand(int(rng.integers(HAND_VARIANTS)), pose)
    k = unit / HAND_UNIT
    sh, sw = sprite.shape[:2]
    angle = out_deg - 90  # sprite's arm points +y
    off = np.array([sw / 2 - ax, sh / 2 - ay]) * k
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    c = np.asarray(target) + rot @ off
    return ("hand", sprite, float(c[0]), float(c[1]), float(angle), True, k)
