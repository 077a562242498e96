"""Procedural table-top textures: wood, formica, felt, tablecloth, marble, plain paint.

Each texture is a pure function of (kind, variant), cached, so scenes stay
deterministic whatever the cache already holds.

>>> t = table_texture("wood", 0)
>>> t.shape, t.dtype
((768, 768, 3), dtype('uint8'))
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

SIZE = 768
KINDS = ("wood", "formica", "felt", "cloth_check", "cloth_stripes", "marble", "plain", "cork")
#: From photographs (phototex.py), only once fetched: terrazzo tops and floors, an esplanade's grass.
PHOTO_KINDS = ("terrazzo", "grass")
FLOOR_KINDS = ("plain", "cork", "formica", "wood")
#: White tops as bright as the cards' stock: a café's white marble, a painted or laminated
#: white table, a white tablecloth. Drawn only where asked for (``render_scene(...,
#: tables=BRIGHT_KINDS)``), so the default scenes, and every recipe's data, stay as they were.
#: On such a table a card's edge is a step of a few grey levels (models/EXPERIMENTS.md,
#: seventeenth session).
BRIGHT_KINDS = ("white_marble", "white_paint", "white_laminate", "white_cloth")
#: Every table texture by name, in the order that seeds them (appended kinds keep the older ones' seeds).
ALL_KINDS = KINDS + PHOTO_KINDS + BRIGHT_KINDS
VARIANTS = 6


def table_kinds() -> tuple[str, ...]:
    from . import phototex

    return KINDS + (("terrazzo",) if phototex.available() else ())


def floor_kinds() -> tuple[str, ...]:
    from . import phototex

    return FLOOR_KINDS + (("terrazzo", "grass") if phototex.available() else ())


def _divisor(n: int, want: float) -> int:
    """The divisor of ``n`` closest to ``want`` (at least 2)."""
    divs = [d for d in range(2, n + 1) if n % d == 0]
    return min(divs, key=lambda d: abs(np.log(d / max(want, 1.0))))


def _periodic(small: np.ndarray, n: int) -> np.ndarray:
    """Cubic upsampling of a (gh, gw) grid to (n, n) that tiles seamlessly (the grid wraps)."""
    gh, gw = small.shape
    fy, fx = n // gh, n // gw
    pad = np.pad(small, 3, mode="wrap")
    big = cv2.resize(pad, ((gw + 6) * fx, (gh + 6) * fy), interpolation=cv2.INTER_CUBIC)
    return big[3 * fy:3 * fy + n, 3 * fx:3 * fx + n]


def _noise(rng: np.random.Generator, size: int, scale: int) -> np.ndarray:
    """Smooth, seamlessly tiling value noise in [0, 1]: a random grid upsampled with a cubic filter."""
    g = _divisor(size, size / scale)
    small = rng.random((g, g), dtype=np.float32)
    return _periodic(small, size).clip(0, 1)


def _fractal(rng, size, scales=(192, 64, 16, 4)) -> np.ndarray:
    out = np.zeros((size, size), np.float32)
    amp, tot = 1.0, 0.0
    for s in scales:
        out += amp * _noise(rng, size, s)
        tot += amp
        amp *= 0.5
    return out / tot


def _colourise(v: np.ndarray, dark, light) -> np.ndarray:
    d, l = np.asarray(dark, np.float32), np.asarray(light, np.float32)
    return (d + (l - d) * v[..., None]).clip(0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=64)
def table_texture(kind: str, variant: int) -> np.ndarray:
    """(SIZE, SIZE, 3) BGR texture; read-only."""
    if kind not in ALL_KINDS:
        raise ValueError(f"unknown table texture {kind!r}; known: {', '.join(ALL_KINDS)}")
    rng = np.random.default_rng([ALL_KINDS.index(kind), variant, 7])
    n = SIZE
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    if kind in PHOTO_KINDS:
        from . import phototex

        src = {"terrazzo": "gravel", "grass": "grass"}[kind]
        g = np.rot90(phototex.load(src, n), int(rng.integers(4)))
        g = (g - g.mean()) / (g.std() + 1e-6)
        pal = {"terrazzo": [((150, 150, 150), (235, 235, 235)), ((150, 170, 185), (225, 235, 245)),
                            ((40, 40, 45), (150, 150, 155)), ((140, 150, 180), (215, 220, 240)),
                            ((120, 130, 120), (215, 225, 215)), ((90, 100, 120), (190, 200, 215))],
               "grass": [((20, 60, 30), (80, 160, 110))] * 6}[kind][variant]
        contrast = rng.uniform(0.12, 0.22) if kind == "terrazzo" else 0.2
        img = _colourise((0.5 + contrast * g).clip(0, 1).astype(np.float32), *pal)
    elif kind == "wood":
        # Planks run along y; the grain follows them: long streaks and slowly wandering rings.
        def streaks(cols, rows):
            small = rng.random((_divisor(n, rows), _divisor(n, cols)), dtype=np.float32)
            return _periodic(small, n)

        pw = n // int(rng.integers(3, 9))   # whole planks per tile: the seam is a joint
        v = np.zeros((n, n), np.float32)
        x0 = 0
        joints = []
        while x0 < n:
            x1 = min(n, x0 + pw)
            sl = slice(max(x0, 0), x1)
            wander = streaks(4, 6)[:, sl] * 30
            freq = rng.uniform(0.15, 0.45)
            rings = 0.5 + 0.5 * np.sin((xx[:, sl] - x0 + wander) * freq)
            v[:, sl] = rings ** 2 * 0.35 + rng.uniform(-0.12, 0.12)
            joints.append(x1)
            x0 = x1
        v += streaks(n // 2, 6) * 0.35 + streaks(n // 6, 3) * 0.3
        pal = [((20, 45, 90), (70, 120, 180)), ((15, 30, 60), (45, 80, 120)), ((60, 100, 150), (140, 180, 215)),
               ((30, 50, 70), (90, 120, 150)), ((35, 70, 120), (95, 150, 205)), ((25, 35, 45), (70, 85, 100))][variant]
        img = _colourise(v.clip(0, 1), *pal)
        for x in joints[:-1]:   # plank joints
            img[:, x:x + 2] = (img[:, x:x + 2] * 0.55).astype(np.uint8)
    elif kind == "formica":
        base = [(210, 215, 220), (140, 170, 200), (170, 185, 150), (60, 60, 65), (200, 200, 200), (90, 120, 160)][variant]
        v = _noise(rng, n, 1) * 0.25 + _fractal(rng, n, (128, 32)) * 0.1
        img = _colourise(v, np.asarray(base) * 0.85, np.asarray(base) * 1.1)
        specks = rng.random((n, n)) < 0.01
        img[specks] = (img[specks] * 0.7).astype(np.uint8)
    elif kind == "felt":
        base = [(40, 100, 20), (30, 70, 20), (90, 40, 30), (40, 40, 110), (70, 70, 70), (40, 90, 60)][variant]
        v = _noise(rng, n, 1) * 0.5 + _fractal(rng, n, (64, 16)) * 0.5
        img = _colourise(v, np.asarray(base) * 0.75, np.asarray(base) * 1.25)
    elif kind == "cloth_check":
        p = int(rng.choice([16, 24, 32, 48, 64]))   # divides SIZE: tiles seamlessly
        a = ((xx // p) % 2) + ((yy // p) % 2)
        cols = [((230, 230, 235), (60, 60, 200)), ((235, 235, 235), (150, 80, 40)), ((220, 235, 240), (40, 120, 40)),
                ((230, 230, 230), (30, 30, 150)), ((200, 220, 230), (120, 60, 120)), ((235, 240, 240), (40, 40, 40))][variant]
        c0, c1 = np.asarray(cols[0], np.float32), np.asarray(cols[1], np.float32)
        img = (c0 + (c1 - c0) * (a[..., None] / 2.0))
        k = 2 * np.pi * 269 / n   # about 2.2 rad/px, a whole number of threads per tile
        weave = (np.sin(xx * k) * np.sin(yy * k))[..., None] * 8
        img = (img + weave).clip(0, 255).astype(np.uint8)
    elif kind == "cloth_stripes":
        p = int(rng.choice([24, 32, 48, 64, 96]))
        s = (xx % p) < p * rng.uniform(0.2, 0.5)
        base = np.asarray([(230, 235, 235), (200, 220, 240), (230, 225, 210)][variant % 3], np.float32)
        stripe = np.asarray([(50, 50, 180), (160, 90, 40), (40, 140, 60), (30, 150, 220)][variant % 4], np.float32)
        img = np.where(s[..., None], stripe, base) + (_noise(rng, n, 1)[..., None] - 0.5) * 12
        img = img.clip(0, 255).astype(np.uint8)
    elif kind == "marble":
        # Soft clouded ground plus thin, branching dark veins along turbulent level lines.
        t = _fractal(rng, n, (256, 96, 32, 8))
        ground = _fractal(rng, n, (384, 128, 48))
        # Whole periods of the linear drift across the tile keep it seamless.
        phase = (xx * 2 * int(rng.integers(1, 4)) / n + yy * 2 * int(rng.integers(0, 3)) / n
                 + t * rng.uniform(4, 7)) * np.pi
        veins = np.exp(-np.abs(np.sin(phase)) * rng.uniform(18, 40))
        fine = np.exp(-np.abs(np.sin(phase * 3 + 3 * _fractal(rng, n, (64, 16)))) * 60) * 0.5
        v = (0.75 + 0.25 * ground) * (1 - 0.55 * veins - 0.3 * fine)
        base = [((150, 150, 155), (248, 248, 250)), ((30, 30, 35), (110, 110, 115)),
                ((150, 175, 195), (228, 238, 246)), ((90, 115, 85), (200, 215, 200))][variant % 4]
        img = _colourise(v.clip(0, 1), *base)
    elif kind in BRIGHT_KINDS:
        img = _bright(kind, variant, rng, n, xx, yy)
    elif kind == "cork":
        v = _noise(rng, n, 2) * 0.6 + _noise(rng, n, 6) * 0.4
        img = _colourise(v, (60, 110, 160), (120, 170, 215))
    else:  # plain painted table
        base = np.asarray([(235, 235, 235), (50, 50, 55), (120, 90, 60), (60, 80, 120), (180, 200, 215), (100, 130, 110)][variant],
                          np.float32)
        v = _fractal(rng, n, (256, 64, 8))
        img = (base * (0.9 + 0.15 * v[..., None])).clip(0, 255).astype(np.uint8)
    img = np.ascontiguousarray(img)
    img.setflags(write=False)
    return img


def _bright(kind: str, variant: int, rng, n: int, xx: np.ndarray, yy: np.ndarray) -> np.ndarray:
    """A white top (:data:`BRIGHT_KINDS`), its ground 225-250 grey, warm or cool by ``variant``."""
    tint = np.asarray([(0, 0, 0), (-6, -2, 3), (4, 1, -3), (-3, -3, -3), (3, 3, 0), (0, -2, -4)][variant], np.float32)
    light = np.asarray((246, 247, 248), np.float32) + tint
    if kind == "white_marble":
        # grey veins on white, fainter than the marble kind's
        t = _fractal(rng, n, (256, 96, 32, 8))
        phase = (xx * 2 * int(rng.integers(1, 4)) / n + yy * 2 * int(rng.integers(0, 3)) / n
                 + t * rng.uniform(4, 7)) * np.pi
        veins = np.exp(-np.abs(np.sin(phase)) * rng.uniform(25, 50))
        v = (0.93 + 0.07 * _fractal(rng, n, (384, 128, 48))) * (1 - rng.uniform(0.15, 0.4) * veins)
        img = light * v[..., None]
    elif kind == "white_paint":
        img = light * (0.95 + 0.05 * _fractal(rng, n, (256, 64, 8)))[..., None]
    elif kind == "white_laminate":
        img = light * (0.96 + 0.03 * _noise(rng, n, 1) + 0.02 * _fractal(rng, n, (128, 32)))[..., None]
        specks = rng.random((n, n)) < 0.004
        img[specks] *= 0.85
    else:  # white_cloth: a fine weave and soft folds
        k = 2 * np.pi * 307 / n
        weave = np.sin(xx * k) * np.sin(yy * k) * 0.02
        folds = _fractal(rng, n, (384, 192)) * 0.06
        img = light * (0.95 + weave + folds)[..., None]
    return img.clip(0, 255).astype(np.uint8)
