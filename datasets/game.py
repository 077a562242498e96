"""Render a simulated game as the video an overhead camera would record.

``render_game(out, seed)`` writes ``video.mp4``, ``calibration.json``,
``truth.json`` (the game record of interfaces.md; each play has ``seat`` and
``t``, the time the card came to rest) and ``events.json`` (extra truth: rest
frame and image corners of every play, trump placements, trick sweeps).

>>> import tempfile
>>> paths = demo_game(tempfile.mkdtemp(), hands=1)   # doctest: +SKIP
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import cv2
import numpy as np

from .camera import Camera, warp_sprite
from .cards import back_mip, face_mip, pick_level
from .distractors import MAKERS, hand_sprite
from .game_plan import GamePlan, plan_game
from .scene import _shadow, _similarity, _table
from .styles import resolve_styles


def _centre(sprite):
    sh, sw = sprite.shape[:2]
    return np.array([[1, 0, -sw / 2], [0, 1, -sh / 2], [0, 0, 1.0]])


class _Renderer:
    def __init__(self, plan: GamePlan, seed: int, styles=None, tables=None):
        self.plan = plan
        rng = np.random.default_rng([seed, 99])
        w, h = plan.size
        self.cam = Camera.overhead(plan.size, rng.uniform(3, 12), rng.uniform(0, 360), rng.uniform(-4, 4),
                                   rng.uniform(55, 70), rng.uniform(0.0, 0.1), 0.0, look_at=plan.centre)
        deck = resolve_styles(styles)
        self.style = deck[rng.integers(len(deck))].name
        bg, self.table = _table(rng, self.cam, plan.unit, kinds=tables)
        # Static clutter near the table corners, between the players.
        for k in range(int(rng.integers(1, 5))):
            kind = rng.choice(["glass", "coin", "phone", "sheet", "pack", "coin"])
            sprite = MAKERS[kind](rng, plan.unit)
            ang = rng.uniform(0, 360)
            corner = plan.centre + (plan.seat_dirs[k % 4] + plan.seat_dirs[(k + 1) % 4]) * 0.36 * np.array([w, h])
            M = self.cam.H @ _similarity(*(corner + rng.normal(0, plan.unit * 0.5, 2)), ang, 1.0) @ _centre(sprite)
            if kind != "sheet":
                _shadow(bg, sprite, self.cam.H @ _similarity(*(corner + 4), ang, 1.0) @ _centre(sprite), 0.3)
            warp_sprite(bg, sprite, M)
        self.bg = bg
        self.maps = self.cam.remap_maps()
        # Fixed light: a smooth gain field (uint8, 128 = 1.0) and a pool of noise frames.
        g = rng.uniform(0.75, 1.15, (3, 3, 1)).astype(np.float32) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
        field = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        self.gain = np.clip(field * 128, 0, 255).astype(np.uint8)
        sigma = rng.uniform(1.5, 4.0)
        self.noise = []
        for _ in range(6):
            n = rng.normal(0, sigma, (h, w, 1)).astype(np.float32)
            n3 = np.repeat(n, 3, axis=2)
            self.noise.append((np.clip(n3, 0, 255).astype(np.uint8), np.clip(-n3, 0, 255).astype(np.uint8)))
        # One skin tone and sleeve per player: same sub-seed for both hand poses.
        self.hands = {}
        for seat in range(4):
            for pose in ("pinch", "flat", "fist"):
                self.hands[(seat, pose)] = hand_sprite(np.random.default_rng([seed, 7, seat]), plan.unit, pose)
        proj = self.cam.project_linear(np.array([plan.centre, plan.centre + [0, plan.unit]]))
        self.level = pick_level(float(np.linalg.norm(proj[1] - proj[0])))

    def card_sprite(self, code, face_up):
        return face_mip(code, self.style, self.level)[0] if face_up else back_mip(self.style, self.level)

    def card_matrix(self, sprite, x, y, a):
        s = self.plan.unit / sprite.shape[0]
        return _similarity(x, y, a, 1.0) @ np.array([[s, 0, -sprite.shape[1] * s / 2],
                                                     [0, s, -sprite.shape[0] * s / 2], [0, 0, 1.0]])

    def frame(self, t: float, dt: float, index: int) -> np.ndarray:
        img = self.bg.copy()
        H = self.cam.H
        for code, tr, _ in self.plan.cards:
            if not tr.visible(t):
                continue
            x, y, a = tr.pose(t)
            px, py, _ = tr.pose(t - dt * 0.5)
            sprite = self.card_sprite(code, tr.is_face_up(t))
            speed = math.hypot(x - px, y - py)          # plane px per half frame: the shutter smear
            if speed > 1.5:
                k = min(31, int(speed * sprite.shape[0] / self.plan.unit)) | 1
                ker = np.zeros((k, k), np.float32)
                ang = math.atan2(y - py, x - px) - math.radians(a)
                c = k // 2
                cv2.line(ker, (int(c - math.cos(ang) * c), int(c - math.sin(ang) * c)),
                         (int(c + math.cos(ang) * c), int(c + math.sin(ang) * c)), 1.0, 1)
                sprite = cv2.filter2D(sprite, -1, ker / ker.sum(), borderType=cv2.BORDER_CONSTANT)
            M = self.card_matrix(sprite, x, y, a)
            lift = 6.0 if speed > 0.5 else 1.5         # carried cards cast a farther shadow
            _shadow(img, sprite, H @ _similarity(lift, lift, 0, 1.0) @ M, 0.3)
            warp_sprite(img, sprite, H @ M)
        for seat, pose, tr in self.plan.hands:
            if not tr.visible(t):
                continue
            x, y, a = tr.pose(t)
            sprite, (ax, ay) = self.hands[(seat, pose)]
            sh, sw = sprite.shape[:2]
            r = math.radians(a)
            off = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]]) @ [sw / 2 - ax, sh / 2 - ay]
            M = _similarity(x + off[0], y + off[1], a, 1.0) @ _centre(sprite)
            _shadow(img, sprite, H @ _similarity(self.plan.unit * 0.25, self.plan.unit * 0.2, 0, 1.0) @ M, 0.35)
            warp_sprite(img, sprite, H @ M)
        img = self.cam.apply_distortion(img, self.maps)
        img = cv2.multiply(img, self.gain, scale=1 / 128)
        pos, neg = self.noise[index % len(self.noise)]
        return cv2.subtract(cv2.add(img, pos), neg)


def render_game(out: str | Path, seed: int = 0, hands: int = 1, fps: float = 10.0, renuncias: int = 0,
                size=(1280, 960), clockwise: bool = False, progress: bool = True, pace: float = 1.0,
                styles=None, target: int = 4, tables=None) -> dict:
    """Simulate and render a game; returns the paths written (video, calibration, truth, events).
    ``tables``: table textures to draw the top from (e.g. :data:`~sueca.datasets.textures.BRIGHT_KINDS`;
    default the generator's own)."""
    if hands < 1 or fps <= 0 or renuncias < 0:
        raise ValueError(f"render_game: need hands >= 1, fps > 0, renuncias >= 0 (got {hands}, {fps}, {renuncias})")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    plan = plan_game(seed, hands, tuple(size), renuncias, clockwise, pace, target)
    r = _Renderer(plan, seed, styles, tables)
    w, h = plan.size
    n_frames = int(math.ceil(plan.duration * fps))
    video = out / "video.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), float(fps), (w, h))
    if not writer.isOpened():
        raise RuntimeError(f"OpenCV could not open an mp4v writer for {video}")
    from tqdm import tqdm

    try:
        for i in tqdm(range(n_frames), disable=not progress, unit="frame", desc="sueca dataset game"):
            writer.write(r.frame(i / fps, 1 / fps, i))
    finally:
        writer.release()

    cam = r.cam
    calib = {"image_size": [w, h], "center": [round(float(v), 1) for v in cam.project(plan.centre[None])[0]],
             "seats": [[round(float(v), 1) for v in p] for p in cam.project(np.array(plan.seat_edges))]}
    events = dict(plan.events)
    events.update({"fps": fps, "frames": n_frames, "size": [w, h], "style": r.style, "table": r.table,
                   "duration": round(plan.duration, 3)})
    for ev in events["plays"]:
        ev["rest_frame"] = int(math.ceil(ev["t"] * fps - 1e-9))
        sprite = r.card_sprite(ev["card"], True)
        M = r.card_matrix(sprite, *ev["rest_xy"], ev["rest_angle"])
        sh, sw = sprite.shape[:2]
        c = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], float) @ M.T
        ev["corners"] = np.round(cam.project(c[:, :2] / c[:, 2:3]), 1).tolist()
    paths = {"video": video, "calibration": out / "calibration.json", "truth": out / "truth.json",
             "events": out / "events.json"}
    paths["calibration"].write_text(json.dumps(calib, indent=1) + "\n")
    paths["truth"].write_text(json.dumps(plan.record, indent=1) + "\n")
    paths["events"].write_text(json.dumps(events, indent=1) + "\n")
    return paths


#: The demo's deck: a fixed one, so that the demo does not change when styles are added.
DEMO_STYLE = "classic"
#: The demo's frame: the Pi camera's (``hardware.picamera.DEFAULT_SIZE``).
DEMO_SIZE = (1280, 960)


def _demo_files(out: Path) -> dict:
    names = {"video": "video.mp4", "calibration": "calibration.json", "truth": "truth.json", "events": "events.json"}
    return {k: out / v for k, v in names.items()}


def _demo_key(hands, seed, size, fps, style) -> dict:
    return {"seed": seed, "hands": hands, "demo": 2, "size": list(size), "fps": fps, "style": style}


def demo_ready(out_dir: str | Path, hands: int = 2, seed: int = 2024, size=DEMO_SIZE, fps: float = 8.0,
               style: str = DEMO_STYLE) -> bool:
    """Whether ``out_dir`` holds the demo game :func:`demo_game` would render with these
    arguments (its stamp says so), so that it returns at once."""
    out = Path(out_dir)
    stamp = out / "demo.json"
    if not (all(p.is_file() for p in _demo_files(out).values()) and stamp.is_file()):
        return False
    try:
        return json.loads(stamp.read_text()) == _demo_key(hands, seed, size, fps, style)
    except ValueError:
        return False


def demo_game(out_dir: str | Path, hands: int = 2, seed: int = 2024, size=DEMO_SIZE, fps: float = 8.0,
              style: str = DEMO_STYLE) -> dict:
    """A short deterministic game for the product's demo mode (1280x960, 8 fps, brisk pace).

    Renders once (about 57 s for the two hands on this machine); its cards are then about
    100 px tall, as the Pi camera's 1280x960 frame shows them when mounted as
    ``docs/raspberry-pi.md`` says (at 960x720, 40 s, they were 76 px, and the dashboard's
    camera view warned that they were small; both sizes' hands were read right). A later
    call with the same arguments and the files in place returns the paths at once.
    """
    out = Path(out_dir)
    paths = _demo_files(out)
    if demo_ready(out, hands, seed, size, fps, style):
        return paths
    # rendered aside and moved in whole: another demo playing the cached video meanwhile (or
    # one started after an interrupted render) never reads a half-written file
    aside = out / ".rendering"
    shutil.rmtree(aside, ignore_errors=True)
    made = render_game(aside, seed=seed, hands=hands, fps=fps, size=tuple(size), progress=False, pace=0.6,
                       styles=(style,))
    (out / "demo.json").unlink(missing_ok=True)
    for key, path in paths.items():
        os.replace(made[key], path)
    shutil.rmtree(aside, ignore_errors=True)
    (out / "demo.json").write_text(json.dumps(_demo_key(hands, seed, size, fps, style)))
    return paths
