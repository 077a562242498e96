"""The truth of a ``sueca dataset game`` video, frame by frame, without its pixels.

``sueca dataset game`` renders a *plan* (``sueca.datasets.game_plan``): where
every card and every hand is at every instant, seen through a random camera.
``PlanTable`` replays the same plan and camera and gives, per frame, the
face-up cards in image coordinates with how much of each the hands leave in
view, ready for :class:`sueca.vision.simtable.OracleDetector`. This measures
the tracker and play events on the dataset's own timing, occlusions and
renúncias while no trained recognizer is at hand; the real check is the
video through the real recognizer (``scripts/eval_games.py --video``).

>>> # table = PlanTable(seed=5, hands=1); table.truth()[0]["trump_card"]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import cv2
import numpy as np

from .simtable import SimCard, SimFrame


@dataclass
class PlanTable:
    """The plan and camera of ``sueca dataset game --seed S --hands N`` (same defaults)."""

    seed: int
    hands: int = 1
    size: tuple[int, int] = (1280, 960)
    renuncias: int = 0
    clockwise: bool = False
    pace: float = 1.0
    target: int = 4  # riscos that end the match (a renúncia alone scores 4)

    def __post_init__(self) -> None:
        from sueca.datasets.game import _Renderer
        from sueca.datasets.game_plan import plan_game

        self.plan = plan_game(self.seed, self.hands, tuple(self.size), self.renuncias, self.clockwise, self.pace,
                              self.target)
        r = _Renderer(self.plan, self.seed)
        self._r = r
        self.cam = r.cam
        sprite = r.card_sprite(self.plan.record["hands"][0]["plays"][0]["card"]
                               if isinstance(self.plan.record["hands"][0]["plays"][0], str)
                               else self.plan.record["hands"][0]["plays"][0]["card"], True)
        sh, sw = sprite.shape[:2]
        self._card_rect = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], float)
        self._card_sprite_shape = (sh, sw)
        self._hand_hulls = {}
        for key, (spr, _anchor) in r.hands.items():
            alpha = spr[:, :, 3] if spr.shape[2] == 4 else np.full(spr.shape[:2], 255, np.uint8)
            ys, xs = np.nonzero(alpha > 64)
            pts = np.stack([xs, ys], 1).astype(np.float32)
            hull = cv2.convexHull(pts).reshape(-1, 2)
            self._hand_hulls[key] = (hull, spr.shape[:2], _anchor)

    def calibration(self):
        from sueca.vision.geometry import Calibration

        w, h = self.plan.size
        c = self.cam.project(self.plan.centre[None])[0]
        seats = self.cam.project(np.array(self.plan.seat_edges))
        return Calibration.from_json({"image_size": [w, h], "center": [float(c[0]), float(c[1])],
                                      "seats": [[float(x), float(y)] for x, y in seats]})

    def truth(self) -> list[dict]:
        """The hands of truth.json, for :func:`sueca.vision.gamecheck.compare`."""
        return self.plan.record["hands"]

    def _card_quad(self, x: float, y: float, a: float) -> np.ndarray:
        from sueca.datasets.game import _similarity

        sh, sw = self._card_sprite_shape
        s = self.plan.unit / sh
        M = _similarity(x, y, a, 1.0) @ np.array([[s, 0, -sw * s / 2], [0, s, -sh * s / 2], [0, 0, 1.0]])
        c = self._card_rect @ M.T
        return self.cam.project(c[:, :2] / c[:, 2:3])

    def _hand_poly(self, seat, pose, x, y, a) -> np.ndarray:
        from sueca.datasets.game import _centre, _similarity

        hull, (sh, sw), (ax, ay) = self._hand_hulls[(seat, pose)]
        r = math.radians(a)
        off = np.array([[math.cos(r), -math.sin(r)], [math.sin(r), math.cos(r)]]) @ [sw / 2 - ax, sh / 2 - ay]
        M = _similarity(x + off[0], y + off[1], a, 1.0) @ _centre(np.zeros((sh, sw)))
        pts = np.column_stack([hull, np.ones(len(hull))]) @ M.T
        return self.cam.project(pts[:, :2] / pts[:, 2:3])

    def frames(self, fps: float = 10.0) -> Iterator[SimFrame]:
        """Frame ``i`` at ``t = i / fps``, as the renderer draws it."""
        n = int(math.ceil(self.plan.duration * fps))
        dt = 1.0 / fps
        for i in range(n):
            t = i / fps
            hands = [self._hand_poly(seat, pose, *tr.pose(t)).astype(np.float32)
                     for seat, pose, tr in self.plan.hands if tr.visible(t)]
            cards = []
            for code, tr, _z in self.plan.cards:
                if not tr.visible(t) or not tr.is_face_up(t):
                    continue
                x, y, a = tr.pose(t)
                px, py, _ = tr.pose(t - dt)
                quad = self._card_quad(x, y, a).astype(np.float32)
                area = abs(cv2.contourArea(quad))
                covered = 0.0
                for hp in hands:
                    inter, _ = cv2.intersectConvexConvex(quad, hp)
                    covered += inter
                visible = max(0.0, 1.0 - covered / area) if area > 0 else 0.0
                cx, cy = quad.mean(0)
                speed = math.hypot(x - px, y - py) / dt
                cards.append(SimCard(code, float(cx), float(cy), 0.0, visible, speed, quad))
            yield SimFrame(cards, t, i)
