"""Things on a café table that are not cards: hands and arms, coins, phones,
glasses, a paper score sheet, cigarette packs.

Every maker takes an ``rng`` and a ``unit`` (the card height in plane pixels)
and returns a BGRA sprite; alpha >= 128 is what hides what lies below.

>>> import numpy as np
>>> s, anchor = hand_sprite(np.random.default_rng(0), 100)
>>> s.shape[2], s.dtype
(4, dtype('uint8'))
"""

from __future__ import annotations

import cv2
import numpy as np

_AA = cv2.LINE_AA

#: BGR skin tones from very light to very dark.
SKIN_TONES = ((190, 210, 240), (170, 195, 235), (150, 180, 225), (120, 160, 210), (95, 135, 190),
              (75, 110, 165), (55, 85, 135), (40, 60, 100), (30, 45, 75))
SLEEVES = ((40, 40, 40), (200, 200, 200), (120, 60, 20), (30, 30, 140), (60, 90, 60), (150, 150, 150),
           (20, 20, 90), (200, 170, 120), (60, 60, 100))


def _i(x):
    return int(round(x))


def hand_sprite(rng: np.random.Generator, unit: float, pose: str | None = None):
    """(BGRA sprite, anchor (x, y)): an arm from the bottom edge, hand (palm down) at the top.

    The anchor is a point between the fingers, where a held card would be pinched.

    Hand length is about two card heights (a real hand is ~19 cm, a card 8.8 cm).
    ``pose``: "flat", "pinch" (fingers together, as when holding a card) or "fist".
    """
    pose = pose or rng.choice(["flat", "pinch", "fist"], p=[0.45, 0.4, 0.15])
    hl = unit * rng.uniform(1.8, 2.2)          # hand length
    hw = hl * rng.uniform(0.42, 0.5)           # palm width
    arm_len = unit * rng.uniform(4.5, 7.0)
    W, H = _i(hw * 2.0), _i(hl + arm_len)
    bgr = np.zeros((H, W, 3), np.uint8)
    a = np.zeros((H, W), np.uint8)
    skin = np.asarray(SKIN_TONES[rng.integers(len(SKIN_TONES))], np.float32) * rng.uniform(0.9, 1.1, 3)
    skin_c = tuple(float(v) for v in skin.clip(0, 255))
    cx = W / 2
    palm_cy = hl * 0.62
    # Forearm (tapering), then the sleeve.
    arm_w0, arm_w1 = hw * 0.75, hw * 1.05
    arm = np.array([[cx - arm_w0 / 2, palm_cy + hl * 0.25], [cx + arm_w0 / 2, palm_cy + hl * 0.25],
                    [cx + arm_w1 / 2, H], [cx - arm_w1 / 2, H]])
    cv2.fillPoly(bgr, [arm.astype(np.int32)], skin_c, _AA)
    cv2.fillPoly(a, [arm.astype(np.int32)], 255, _AA)
    if rng.random() < 0.8:
        sy = palm_cy + hl * rng.uniform(0.8, 2.2)
        sleeve = np.array([[cx - arm_w1 * 0.62, sy], [cx + arm_w1 * 0.62, sy], [cx + arm_w1 * 0.7, H],
                           [cx - arm_w1 * 0.7, H]])
        col = tuple(float(v) for v in np.asarray(SLEEVES[rng.integers(len(SLEEVES))]) * rng.uniform(0.8, 1.2))
        cv2.fillPoly(bgr, [sleeve.astype(np.int32)], col, _AA)
        cv2.fillPoly(a, [sleeve.astype(np.int32)], 255, _AA)
    # Palm.
    cv2.ellipse(bgr, (_i(cx), _i(palm_cy)), (_i(hw / 2), _i(hl * 0.3)), 0, 0, 360, skin_c, -1, _AA)
    cv2.ellipse(a, (_i(cx), _i(palm_cy)), (_i(hw / 2), _i(hl * 0.3)), 0, 0, 360, 255, -1, _AA)
    # Fingers: index..little, as thick round-capped lines.
    fw = hw * 0.22
    lens = np.array([0.42, 0.46, 0.43, 0.34]) * hl
    if pose == "fist":
        lens *= 0.35
    elif pose == "pinch":
        lens *= rng.uniform(0.7, 0.95)
    spread = {"flat": 0.13, "pinch": 0.03, "fist": 0.0}[pose] * rng.uniform(0.5, 1.5)
    base_y = palm_cy - hl * 0.22
    mirror = 1 if rng.random() < 0.5 else -1   # left or right hand
    for k in range(4):
        bx = cx + mirror * (k - 1.5) * hw * 0.24
        ang = mirror * (k - 1.5) * spread
        tip = (bx + np.sin(ang) * lens[k], base_y - np.cos(ang) * lens[k])
        t = max(2, _i(fw))
        cv2.line(bgr, (_i(bx), _i(base_y)), (_i(tip[0]), _i(tip[1])), skin_c, t, _AA)
        cv2.line(a, (_i(bx), _i(base_y)), (_i(tip[0]), _i(tip[1])), 255, t, _AA)
        # Knuckle crease and a nail, for texture.
        nail = tuple(float(v) for v in (skin * 1.12).clip(0, 255))
        cv2.circle(bgr, (_i(tip[0]), _i(tip[1] + fw * 0.2)), max(1, _i(fw * 0.3)), nail, -1, _AA)
        dark = tuple(float(v) for v in skin * 0.8)
        mid = (bx + (tip[0] - bx) * 0.5, base_y + (tip[1] - base_y) * 0.5)
        cv2.line(bgr, (_i(mid[0] - fw * 0.3), _i(mid[1])), (_i(mid[0] + fw * 0.3), _i(mid[1])), dark, 1, _AA)
    # Thumb from the side of the palm.
    tx = cx - mirror * hw * 0.45
    ty = palm_cy
    ta = -mirror * rng.uniform(0.3, 1.1)
    tl = hl * 0.33
    tip = (tx + np.sin(ta) * tl, ty - np.cos(ta) * tl)
    cv2.line(bgr, (_i(tx), _i(ty)), (_i(tip[0]), _i(tip[1])), skin_c, max(2, _i(fw * 1.15)), _AA)
    cv2.line(a, (_i(tx), _i(ty)), (_i(tip[0]), _i(tip[1])), 255, max(2, _i(fw * 1.15)), _AA)
    # Shading across the width (a round arm catches light in the middle).
    xs = np.linspace(-1, 1, W, dtype=np.float32)
    shade = (1.0 - 0.25 * xs ** 2)[None, :, None]
    bgr = (bgr.astype(np.float32) * shade).clip(0, 255).astype(np.uint8)
    return np.dstack([bgr, a]), (cx, base_y - lens[1] * 0.6)


def coin_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    d = unit * rng.uniform(0.22, 0.3)          # 2-2.6 cm coin vs 8.8 cm card
    n = max(6, _i(d)) | 1
    base = np.asarray([(60, 150, 190), (150, 150, 155), (80, 130, 170)][rng.integers(3)], np.float32)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - n / 2
    r = np.hypot(xx, yy) / (n / 2)
    light = 0.8 + 0.35 * (-(xx + yy) / n)
    bgr = (base * light[..., None] * (1 - 0.25 * (np.abs(r - 0.85) < 0.06))[..., None]).clip(0, 255)
    a = np.clip((1.0 - r) * n / 2, 0, 1) * 255
    return np.dstack([bgr.astype(np.uint8), a.astype(np.uint8)])


def phone_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    h = unit * rng.uniform(1.6, 1.9)
    w = h * rng.uniform(0.46, 0.5)
    W, H = _i(w), _i(h)
    bgr = np.zeros((H, W, 3), np.uint8)
    a = np.zeros((H, W), np.uint8)
    r = _i(w * 0.12)
    body = tuple(float(v) for v in [(20, 20, 20), (200, 200, 205), (80, 60, 40), (120, 100, 180)][rng.integers(4)])
    cv2.rectangle(a, (0, 0), (W - 1, H - 1), 255, -1)
    cv2.rectangle(bgr, (0, 0), (W - 1, H - 1), body, -1)
    for cx, cy in ((0, 0), (W - 1, 0), (0, H - 1), (W - 1, H - 1)):  # rounded corners
        cv2.rectangle(a, (cx - r if cx else 0, cy - r if cy else 0), (cx + r if not cx else W - 1, cy + r if not cy else H - 1), 0, -1)
    for cx, cy in ((r, r), (W - 1 - r, r), (r, H - 1 - r), (W - 1 - r, H - 1 - r)):
        cv2.circle(a, (cx, cy), r, 255, -1, _AA)
    if rng.random() < 0.6:  # screen up: dark glass with a reflection
        m = max(1, _i(w * 0.05))
        cv2.rectangle(bgr, (m, m), (W - 1 - m, H - 1 - m), (15, 12, 10), -1)
        g = np.linspace(0, 1, W)[None, :] * np.linspace(0, 1, H)[:, None]
        bgr = (bgr + (60 * g)[..., None]).clip(0, 255).astype(np.uint8)
    return np.dstack([bgr, a])


def glass_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    """A glass seen from above: bright rim, see-through middle (low alpha), tinted drink."""
    d = unit * rng.uniform(0.7, 1.0)
    n = max(8, _i(d))
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - n / 2
    r = np.hypot(xx, yy) / (n / 2)
    drink = np.asarray([(40, 120, 200), (30, 60, 120), (200, 200, 200), (20, 30, 50)][rng.integers(4)], np.float32)
    rim = (np.abs(r - 0.93) < 0.07).astype(np.float32)
    bgr = drink * (1 - rim[..., None]) + 235 * rim[..., None]
    hl = np.exp(-((xx + n * 0.2) ** 2 + (yy + n * 0.2) ** 2) / (2 * (n * 0.08) ** 2))
    bgr = (bgr + 200 * hl[..., None]).clip(0, 255)
    a = np.where(r < 1, 90 + 165 * rim + 100 * hl, 0).clip(0, 255)
    return np.dstack([bgr.astype(np.uint8), a.astype(np.uint8)])


def sheet_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    """A paper score sheet ("Nós | Eles") with tally marks."""
    h = unit * rng.uniform(2.0, 3.2)
    w = h * rng.uniform(0.65, 0.75)
    W, H = _i(w), _i(h)
    paper = np.asarray([(245, 248, 250), (220, 240, 250), (235, 235, 235)][rng.integers(3)], np.float32)
    bgr = np.empty((H, W, 3), np.uint8)
    bgr[:] = paper
    ink = (140, 60, 30) if rng.random() < 0.6 else (40, 40, 40)
    t = max(1, _i(W / 120))
    cv2.line(bgr, (W // 2, _i(H * 0.08)), (W // 2, H - _i(H * 0.05)), ink, t, _AA)
    cv2.line(bgr, (_i(W * 0.08), _i(H * 0.14)), (_i(W * 0.92), _i(H * 0.14)), ink, t, _AA)
    cv2.putText(bgr, "NOS", (_i(W * 0.12), _i(H * 0.11)), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, W / 400, ink, t, _AA)
    cv2.putText(bgr, "ELES", (_i(W * 0.6), _i(H * 0.11)), cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, W / 400, ink, t, _AA)
    for col in (0, 1):
        for k in range(int(rng.integers(0, 9))):
            x = W * (0.12 + 0.5 * col) + (k % 4) * W * 0.08
            y = H * (0.2 + 0.12 * (k // 4))
            cv2.line(bgr, (_i(x), _i(y)), (_i(x + rng.normal(0, 2)), _i(y + H * 0.08)), ink, t, _AA)
    ys = np.linspace(0, 1, H, dtype=np.float32)[:, None, None]
    bgr = (bgr * (0.95 + 0.05 * ys)).clip(0, 255).astype(np.uint8)
    return np.dstack([bgr, np.full((H, W), 255, np.uint8)])


def pack_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    """A cigarette pack (or a matchbox/lighter-sized box): coloured block, white band, a word."""
    h = unit * rng.uniform(0.9, 1.05)
    w = h * rng.uniform(0.55, 0.65)
    W, H = _i(w), _i(h)
    col = np.asarray([(30, 30, 170), (240, 240, 240), (160, 110, 30), (30, 130, 200), (20, 20, 20)][rng.integers(5)],
                     np.float32)
    bgr = np.empty((H, W, 3), np.uint8)
    bgr[:] = col
    cv2.rectangle(bgr, (0, _i(H * 0.55)), (W, _i(H * 0.8)), (235, 235, 235), -1)
    cv2.putText(bgr, rng.choice(["SG", "Ventil", "Marlb", "CAMEL"]), (_i(W * 0.05), _i(H * 0.72)),
                cv2.FONT_HERSHEY_DUPLEX, W / 160, (20, 20, 20), max(1, _i(W / 60)), _AA)
    return np.dstack([bgr.clip(0, 255).astype(np.uint8), np.full((H, W), 255, np.uint8)])


MAKERS = {"coin": coin_sprite, "phone": phone_sprite, "glass": glass_sprite, "sheet": sheet_sprite,
          "pack": pack_sprite}
