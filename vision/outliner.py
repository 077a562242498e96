"""Learned outline refinement: a small CNN moves a rough card box onto the card's corners.

The locator works at 320 px, where a card is ~25 px: its boxes are often off
by 10-25 degrees or a fifth of the card, and the classical outline stage
(:mod:`sueca.vision.refine`) gives up on piles, hands and striped cloths. The
reader needs the corner within a few percent. So each rough box is cut out of
the full-resolution frame into a *normalised view* (``size`` px square, the
box's long side upright and ``1 / reach`` of the view) and the outliner
regresses the card's four corners there (view units, [-1, 1]). Two passes: the
second view is centred on the first answer.

The corners come back clockwise on screen, in no particular rotation (the
reader tries both portrait orderings anyway).

>>> import numpy as np
>>> rough = np.array([[40, 20], [100, 20], [100, 110], [40, 110]], np.float32)
>>> view = View.around(rough, size=64, reach=1.7)
>>> np.allclose(view.to_image(view.to_view(rough)), rough, atol=1e-3)
True
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from sueca.vision.rectify import clockwise


@dataclass(frozen=True)
class View:
    """A similarity map between a ``size`` x ``size`` view and the frame.

    ``image = centre + scale * (x * e_u + y * e_v)`` for view units (x, y) in
    [-1, 1] (x right, y down in the view).
    """

    centre: np.ndarray  # (2,)
    e_u: np.ndarray  # (2,) unit vector, view x axis in the frame
    e_v: np.ndarray  # (2,) unit vector, view y axis in the frame (the box's long side)
    scale: float  # frame pixels per view unit (half the view's side)
    size: int

    @classmethod
    def around(cls, quad: np.ndarray, size: int, reach: float) -> "View":
        """The view of a rough quad (4, 2): its rotated rectangle, long side along the view's y."""
        (cx, cy), (w, h), a = cv2.minAreaRect(np.asarray(quad, np.float32).reshape(4, 2))
        t = np.radians(a)
        along_w = np.array([np.cos(t), np.sin(t)], np.float64)
        along_h = np.array([-np.sin(t), np.cos(t)], np.float64)
        e_v = along_h if h >= w else along_w
        if e_v[1] < 0 or (e_v[1] == 0 and e_v[0] < 0):
            e_v = -e_v  # a fixed sense, so equal boxes give equal views
        e_u = np.array([e_v[1], -e_v[0]])  # right-handed with y down: no mirror
        long_side = max(w, h, 1.0)
        return cls(np.array([cx, cy], np.float64), e_u, e_v, 0.5 * reach * long_side, int(size))

    def to_view(self, pts: np.ndarray) -> np.ndarray:
        d = np.asarray(pts, np.float64) - self.centre
        return np.stack([d @ self.e_u, d @ self.e_v], axis=-1) / self.scale

    def to_image(self, xy: np.ndarray) -> np.ndarray:
        xy = np.asarray(xy, np.float64)
        return (self.centre + self.scale * (xy[..., :1] * self.e_u + xy[..., 1:2] * self.e_v)).astype(np.float32)

    def cut(self, frame: np.ndarray) -> np.ndarray:
        """The view's pixels (size, size, C) uint8, area-averaged when shrinking."""
        s = self.size
        k = max(1, int(2 * self.scale / s))  # render k times larger, then average down (no aliasing)
        n = s * k
        px = 2.0 * self.scale / n  # frame pixels per rendered pixel
        # rendered pixel centre (i + 0.5) -> view unit -1 + (i + 0.5) * 2 / n -> frame
        origin = self.centre + self.scale * (-1 + 1.0 / n) * (self.e_u + self.e_v)
        m = np.array([[px * self.e_u[0], px * self.e_v[0], origin[0]],
                      [px * self.e_u[1], px * self.e_v[1], origin[1]]], np.float64)
        out = cv2.warpAffine(frame, m, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_REPLICATE)
        if k > 1:
            out = cv2.resize(out, (s, s), interpolation=cv2.INTER_AREA)
        return out


class Outliner:
    """``outliner(frame, quads) -> quads``: rough boxes (N, 4, 2) to card outlines (N, 4, 2).

    ``net(views) -> (N, 8)``: any backend taking (N, size, size, 3) uint8 views
    (ONNX Runtime at run time, torch in training).
    """

    def __init__(self, net, size: int = 64, reach: float = 1.7, passes: int = 2):
        self.net, self.size, self.reach, self.passes = net, int(size), float(reach), int(passes)

    def views(self, frame: np.ndarray, quads: np.ndarray) -> tuple[list[View], np.ndarray]:
        views = [View.around(q, self.size, self.reach) for q in np.asarray(quads, np.float32).reshape(-1, 4, 2)]
        cuts = [v.cut(frame) for v in views]
        return views, (np.stack(cuts) if cuts else np.zeros((0, self.size, self.size, 3), np.uint8))

    def __call__(self, frame: np.ndarray, quads: np.ndarray) -> np.ndarray:
        out = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        if len(out) == 0:
            return out
        for _ in range(self.passes):
            views, cuts = self.views(frame, out)
            pred = np.asarray(self.net(cuts), np.float64).reshape(-1, 4, 2)
            out = np.stack([clockwise(v.to_image(p)) for v, p in zip(views, pred)])
        return out.astype(np.float32)
