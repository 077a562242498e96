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
SKIN_TONES = ((165, 188, 228), (150, 178, 225), (150, 180, 225), (120, 160, 210), (95, 135, 190),
              (75, 110, 165), (55, 85, 135), (40, 60, 100), (30, 45, 75))
SLEEVES = ((40, 40, 40), (200, 200, 200), (120, 60, 20), (30, 30, 140), (60, 90, 60), (150, 150, 150),
           (20, 20, 90), (200, 170, 120), (60, 60, 100))


def _i(x):
    return int(round(x))


def hand_sprite(rng: np.random.Generator, unit: float, pose: str | None = None):
    """(BGRA sprite, anchor (x, y)): an arm from the bottom edge, hand (palm down) at the top.

    Hand length is about two card heights (a real hand is ~19 cm, a card 8.8 cm).
    ``pose``: "flat", "pinch" (fingers together, as when holding a card) or "fist".
    The anchor is a point between the fingers, where a held card would be pinched.
    """
    pose = pose or rng.choice(["flat", "pinch", "fist"], p=[0.45, 0.4, 0.15])
    hl = unit * rng.uniform(1.8, 2.2)          # hand length
    hw = hl * rng.uniform(0.42, 0.5)           # palm width
    arm_len = unit * rng.uniform(4.5, 7.0)
    W, H = _i(hw * 2.0), _i(hl + arm_len)
    a = np.zeros((H, W), np.uint8)
    skin = np.asarray(SKIN_TONES[rng.integers(len(SKIN_TONES))], np.float32) * rng.uniform(0.9, 1.05, 3)
    skin = skin.clip(0, 235)
    creases = np.zeros((H, W), np.uint8)       # dark lines: between fingers, knuckles
    cx = W / 2
    palm_cy = hl * 0.62
    mirror = 1 if rng.random() < 0.5 else -1   # left or right hand
    # Forearm (tapering from elbow to wrist).
    arm_w0, arm_w1 = hw * 0.72, hw * 1.05
    arm = np.array([[cx - arm_w0 / 2, palm_cy + hl * 0.25], [cx + arm_w0 / 2, palm_cy + hl * 0.25],
                    [cx + arm_w1 / 2, H], [cx - arm_w1 / 2, H]])
    cv2.fillPoly(a, [arm.astype(np.int32)], 255, _AA)
    # Palm: an egg, narrower at the wrist.
    palm = [(cx + np.sin(t) * hw / 2 * (1 - 0.18 * max(0.0, np.cos(t + np.pi))),
             palm_cy - np.cos(t) * hl * 0.3) for t in np.linspace(0, 2 * np.pi, 40)]
    cv2.fillPoly(a, [np.round(palm).astype(np.int32)], 255, _AA)
    # Fingers: two segments each, tapering; pinch brings the tips together.
    fw = hw * 0.23
    lens = np.array([0.42, 0.47, 0.44, 0.34]) * hl
    if pose == "fist":
        lens *= 0.3
    elif pose == "pinch":
        lens *= rng.uniform(0.75, 0.95)
    spread = {"flat": 0.12, "pinch": 0.02, "fist": 0.0}[pose] * rng.uniform(0.5, 1.5)
    base_y = palm_cy - hl * 0.2
    tips = []
    for k in range(4):
        bx = cx + mirror * (k - 1.5) * hw * 0.235
        ang = mirror * (k - 1.5) * spread + rng.normal(0, 0.03)
        d = np.array([np.sin(ang), -np.cos(ang)])
        p0 = np.array([bx, base_y + fw * 0.5])
        p1 = p0 + d * lens[k] * 0.55
        p2 = p0 + d * lens[k]
        t0, t1 = max(2, _i(fw * (1.0 if k < 3 else 0.85))), max(2, _i(fw * (0.85 if k < 3 else 0.75)))
        cv2.line(a, (_i(p0[0]), _i(p0[1])), (_i(p1[0]), _i(p1[1])), 255, t0, _AA)
        cv2.line(a, (_i(p1[0]), _i(p1[1])), (_i(p2[0]), _i(p2[1])), 255, t1, _AA)
        # Outline of the finger: shows the gaps between neighbours.
        side = np.array([-d[1], d[0]]) * t1 / 2
        for sgn in (-1, 1):
            q0, q1 = p0 + sgn * side * 1.15, p2 + sgn * side
            cv2.line(creases, (_i(q0[0]), _i(q0[1])), (_i(q1[0]), _i(q1[1])), 110, 1, _AA)
        kn = p0 + d * lens[k] * 0.55
        cv2.line(creases, (_i(kn[0] - side[0]), _i(kn[1] - side[1])), (_i(kn[0] + side[0]), _i(kn[1] + side[1])), 70, 1, _AA)
        tips.append((p2, d, t1))
    # Thumb from the side of the palm.
    tx, ty = cx - mirror * hw * 0.42, palm_cy + hl * 0.02
    ta = -mirror * rng.uniform(0.35, 1.0)
    tl = hl * 0.34
    tip = (tx + np.sin(ta) * tl, ty - np.cos(ta) * tl)
    cv2.line(a, (_i(tx), _i(ty)), (_i(tip[0]), _i(tip[1])), 255, max(2, _i(fw * 1.2)), _AA)
    # Shading: bodies are round, so darker towards their silhouette.
    dist = cv2.distanceTransform((a > 127).astype(np.uint8), cv2.DIST_L2, 3)
    round_ = np.clip(dist / max(1.0, fw * 0.7), 0, 1)
    shade = 0.7 + 0.28 * np.sqrt(round_)
    tex = cv2.resize(rng.normal(1.0, 0.025, (max(2, H // 12), max(2, W // 12))).astype(np.float32), (W, H))
    bgr = skin[None, None, :] * (shade * tex)[..., None]
    bgr *= (1 - creases.astype(np.float32)[..., None] / 255.0 * 0.5)
    bgr = bgr.clip(0, 255).astype(np.uint8)
    for p2, d, t1 in tips:   # nails: paler, near the tips
        c = p2 - d * t1 * 0.35
        nail = tuple(float(v) for v in np.clip(skin * 1.15 + 12, 0, 255))
        cv2.ellipse(bgr, (_i(c[0]), _i(c[1])), (max(1, _i(t1 * 0.32)), max(1, _i(t1 * 0.42))),
                    float(np.degrees(np.arctan2(d[1], d[0]))) + 90, 0, 360, nail, -1, _AA)
    # Sleeve over the forearm, sometimes a watch.
    if rng.random() < 0.8:
        sy = palm_cy + hl * rng.uniform(0.8, 2.2)
        sleeve = np.array([[cx - arm_w1 * 0.62, sy], [cx + arm_w1 * 0.62, sy], [cx + arm_w1 * 0.72, H],
                           [cx - arm_w1 * 0.72, H]]).astype(np.int32)
        col = np.asarray(SLEEVES[rng.integers(len(SLEEVES))], np.float32) * rng.uniform(0.8, 1.2)
        sm = np.zeros((H, W), np.uint8)
        cv2.fillPoly(sm, [sleeve], 255, _AA)
        folds = 0.8 + 0.2 * np.sin(np.linspace(0, rng.uniform(8, 20), H))[:, None] * np.ones((1, W))
        cloth = (col[None, None, :] * (folds * (0.8 + 0.2 * round_.clip(0, 1)))[..., None]).clip(0, 255)
        m = sm.astype(np.float32)[..., None] / 255
        bgr = (bgr * (1 - m) + cloth * m).astype(np.uint8)
        a = np.maximum(a, sm)
    elif rng.random() < 0.5:
        wy = _i(palm_cy + hl * 0.42)
        cv2.rectangle(bgr, (_i(cx - arm_w0 * 0.55), wy), (_i(cx + arm_w0 * 0.55), wy + max(2, _i(hl * 0.09))),
                      (30, 30, 30) if rng.random() < 0.5 else (160, 170, 180), -1, _AA)
    a = cv2.GaussianBlur(a, (3, 3), 0)   # soft silhouette, like a real edge
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


def _text_lines(img, rng, x0, y0, x1, y1, ink, step):
    """Rows of fake print (short dark dashes), like receipts and business cards."""
    y = y0
    while y < y1:
        x = x0
        while x < x1:
            wlen = rng.uniform(0.04, 0.18) * (x1 - x0)
            cv2.line(img, (_i(x), _i(y)), (_i(min(x + wlen, x1)), _i(y)), ink, max(1, _i(step * 0.22)), _AA)
            x += wlen + step * 0.8
        y += step * rng.uniform(1.6, 2.6)


def receipt_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    """A till receipt: narrow white paper with printed rows (a white rectangle that is not a card)."""
    w = unit * rng.uniform(0.75, 0.95)
    h = unit * rng.uniform(1.3, 2.6)
    W, H = _i(w), _i(h)
    bgr = np.empty((H, W, 3), np.uint8)
    bgr[:] = np.asarray((245, 246, 246), np.float32) * rng.uniform(0.9, 1.0)
    _text_lines(bgr, rng, W * 0.08, H * 0.06, W * 0.92, H * 0.94, (70, 70, 70), max(2.0, H / 60))
    return np.dstack([bgr, np.full((H, W), 255, np.uint8)])


def bcard_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    """A business card / loyalty card (85x55 mm): card-sized, printed, but no index."""
    h = unit * 55 / 88
    w = unit * 85 / 88
    W, H = _i(w), _i(h)
    bgr = np.empty((H, W, 3), np.uint8)
    col = np.asarray([(250, 250, 250), (240, 230, 210), (60, 40, 30), (200, 220, 240)][rng.integers(4)], np.float32)
    bgr[:] = col
    ink = (30, 30, 30) if col.mean() > 128 else (230, 230, 230)
    cv2.circle(bgr, (_i(W * 0.2), _i(H * 0.35)), max(2, _i(H * 0.16)), tuple(float(v) for v in rng.uniform(0, 255, 3)),
               -1, _AA)
    _text_lines(bgr, rng, W * 0.42, H * 0.25, W * 0.92, H * 0.85, ink, max(2.0, H / 12))
    a = np.full((H, W), 255, np.uint8)
    return np.dstack([bgr, a])


def coaster_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    """A beer mat: round or square cardboard with a printed logo ring."""
    n = max(8, _i(unit * rng.uniform(1.0, 1.2)))
    bgr = np.empty((n, n, 3), np.uint8)
    bgr[:] = np.asarray([(240, 240, 240), (40, 40, 160), (30, 120, 200), (120, 60, 20)][rng.integers(4)])
    logo = tuple(float(v) for v in rng.uniform(0, 255, 3))
    cv2.circle(bgr, (n // 2, n // 2), _i(n * 0.32), logo, max(1, _i(n * 0.06)), _AA)
    cv2.putText(bgr, rng.choice(["SAGRES", "SUPER", "BOCK"]), (_i(n * 0.18), _i(n * 0.56)),
                cv2.FONT_HERSHEY_DUPLEX, n / 260, logo, max(1, _i(n / 90)), _AA)
    a = np.zeros((n, n), np.uint8)
    if rng.random() < 0.5:
        cv2.circle(a, (n // 2, n // 2), n // 2 - 1, 255, -1, _AA)
    else:
        a[:] = 255
    return np.dstack([bgr, a])


def napkin_sprite(rng: np.random.Generator, unit: float) -> np.ndarray:
    """A paper napkin: soft white square with fold lines and a crumpled edge."""
    n = max(8, _i(unit * rng.uniform(1.0, 1.6)))
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    base = 238 + 10 * np.sin(xx * rng.uniform(0.05, 0.2) + yy * rng.uniform(0.05, 0.2))
    fold = (np.abs(xx - n / 2) < 1) | (np.abs(yy - n / 2) < 1)
    base = np.where(fold, base - 25, base)
    bgr = np.repeat(base[..., None], 3, axis=2).clip(0, 255).astype(np.uint8)
    r = np.hypot(xx - n / 2, yy - n / 2) / (n / 2)
    edge = 1.25 + 0.1 * np.sin(np.arctan2(yy - n / 2, xx - n / 2) * rng.integers(5, 11))
    a = np.where(np.maximum(np.abs(xx - n / 2), np.abs(yy - n / 2)) / (n / 2) < 0.97, 255, 0).astype(np.uint8)
    a[r > edge] = 0
    return np.dstack([bgr, a])


MAKERS = {"coin": coin_sprite, "phone": phone_sprite, "glass": glass_sprite, "sheet": sheet_sprite,
          "pack": pack_sprite, "receipt": receipt_sprite, "bcard": bcard_sprite, "coaster": coaster_sprite,
          "napkin": napkin_sprite}
