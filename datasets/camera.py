"""The camera model and photometric effects shared by scenes and game videos.

A table point (x, y) in *plane pixels* maps to the image by a homography made
from a pinhole camera tilted by up to ~30 degrees, then through radial lens
distortion. At the point the camera looks at, one plane pixel is one image pixel.

>>> import numpy as np
>>> cam = Camera.overhead((640, 480))
>>> cam.project(np.array([[320.0, 240.0]])).round(3).tolist()
[[320.0, 240.0]]
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np


def _rot(ax: str, a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    if ax == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if ax == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@dataclass(frozen=True, eq=False)
class Camera:
    """Plane -> image homography ``H`` plus radial distortion (k1, k2)."""

    size: tuple[int, int]          # (w, h) of the image
    H: np.ndarray                  # 3x3, plane pixels -> undistorted image pixels
    k1: float = 0.0
    k2: float = 0.0

    @staticmethod
    def overhead(size, tilt_deg: float = 0.0, tilt_dir_deg: float = 0.0, roll_deg: float = 0.0,
                 fov_deg: float = 60.0, k1: float = 0.0, k2: float = 0.0, look_at=None) -> "Camera":
        """A camera above the plane point ``look_at`` (default: the image centre)."""
        w, h = size
        f = 0.5 * max(w, h) / np.tan(np.radians(fov_deg) / 2)
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
        d = np.radians(tilt_dir_deg)
        # Tilt about an axis in the image plane, then roll about the optical axis.
        tilt = _rot("z", d) @ _rot("x", np.radians(tilt_deg)) @ _rot("z", -d)
        R = tilt @ _rot("z", np.radians(roll_deg))
        t = np.array([0, 0, f])    # distance f: unit magnification at the look-at point
        P = K @ np.column_stack([R[:, 0], R[:, 1], t])
        cx, cy = look_at if look_at is not None else (w / 2, h / 2)
        T = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
        H = P @ T
        return Camera((int(w), int(h)), H / H[2, 2], float(k1), float(k2))

    @property
    def norm(self) -> float:
        return 0.5 * max(self.size)

    @functools.cached_property
    def zoom(self) -> float:
        """Barrel distortion pulls in content from outside the frame; zoom so the corners stay inside."""
        w, h = self.size
        r2 = ((w / 2) ** 2 + (h / 2) ** 2) / self.norm ** 2
        f = 1 + self.k1 * r2 + self.k2 * r2 * r2
        return 1.0 / f if f > 1 else 1.0

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 2) plane points -> (N, 2) final (distorted) image points."""
        return self.distort(self.project_linear(pts))

    def project_linear(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        q = np.column_stack([p, np.ones(len(p))]) @ self.H.T
        return q[:, :2] / q[:, 2:3]

    def _radial(self, r):
        return self.zoom * r * (1 + self.k1 * r * r + self.k2 * r ** 4)

    @functools.cached_property
    def _valid(self) -> tuple[float, float, float]:
        """(r_lim, f(r_lim), slope): where the radial model stops growing steadily, and beyond it
        a straight continuation (points far outside the frame must not fold back in)."""
        r = np.linspace(0, 4, 4001)
        fp = np.gradient(self._radial(r), r)
        bad = np.nonzero(fp < 0.3 * self.zoom)[0]
        i = bad[0] - 1 if len(bad) else len(r) - 1
        return float(r[i]), float(self._radial(r[i])), float(max(fp[i], 0.3 * self.zoom))

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Undistorted -> distorted image points: invert the remap model radially (bisection)."""
        if self.k1 == 0 and self.k2 == 0:
            return np.asarray(pts, np.float64)
        c = np.array(self.size, np.float64) / 2
        u = (np.asarray(pts, np.float64).reshape(-1, 2) - c) / self.norm
        ru = np.hypot(u[:, 0], u[:, 1])
        r_lim, f_lim, slope = self._valid
        z, k1, k2 = self.zoom, self.k1, self.k2
        # Newton on the steadily increasing part of the model (converges in a few steps) ...
        r = np.clip(ru / z, 0, r_lim)
        for _ in range(8):
            f = z * r * (1 + k1 * r * r + k2 * r ** 4)
            fp = z * (1 + 3 * k1 * r * r + 5 * k2 * r ** 4)
            r = np.clip(r - (f - ru) / np.maximum(fp, 1e-6), 0, r_lim)
        # ... and bisection for any point it left unsettled.
        bad = (np.abs(self._radial(r) - ru) > 1e-9) & (ru <= f_lim)
        if bad.any():
            lo, hi = np.zeros(bad.sum()), np.full(bad.sum(), r_lim)
            for _ in range(60):
                mid = (lo + hi) / 2
                below = self._radial(mid) < ru[bad]
                lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
            r[bad] = (lo + hi) / 2
        lo = hi = r
        rd = np.where(ru <= f_lim, (lo + hi) / 2, r_lim + (ru - f_lim) / slope)
        scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1 / self.zoom)
        return u * scale[:, None] * self.norm + c

    def unproject(self, img_pts: np.ndarray) -> np.ndarray:
        """Undistorted image points -> plane points."""
        p = np.asarray(img_pts, np.float64).reshape(-1, 2)
        q = np.column_stack([p, np.ones(len(p))]) @ np.linalg.inv(self.H).T
        return q[:, :2] / q[:, 2:3]

    def remap_maps(self):
        """cv2.remap maps that apply the lens distortion to a whole image (None if none)."""
        if self.k1 == 0 and self.k2 == 0:
            return None
        w, h = self.size
        # The maps are smooth: compute them on a coarse grid and upsample (much cheaper).
        # cv2.resize maps output pixel x to input (x + 0.5) / 8 - 0.5, so coarse sample i sits
        # at 8 * i + 3.5; one extra cell on each side keeps the borders exact.
        gw, gh = w // 8 + 3, h // 8 + 3
        xs = (8 * (np.arange(gw) - 1) + 3.5).astype(np.float32)
        ys = (8 * (np.arange(gh) - 1) + 3.5).astype(np.float32)
        xx, yy = np.meshgrid(xs, ys)
        cx, cy, n = w / 2, h / 2, self.norm
        dx, dy = (xx - cx) / n, (yy - cy) / n
        r2 = dx * dx + dy * dy
        s = (1 + self.k1 * r2 + self.k2 * r2 * r2) * self.zoom
        mx, my = (dx * s * n + cx).astype(np.float32), (dy * s * n + cy).astype(np.float32)
        big = gw * 8, gh * 8
        mx = cv2.resize(mx, big, interpolation=cv2.INTER_LINEAR)[8:8 + h, 8:8 + w]
        my = cv2.resize(my, big, interpolation=cv2.INTER_LINEAR)[8:8 + h, 8:8 + w]
        return np.ascontiguousarray(mx), np.ascontiguousarray(my)

    def apply_distortion(self, img: np.ndarray, maps=None, nearest: bool = False) -> np.ndarray:
        maps = maps if maps is not None else self.remap_maps()
        if maps is None:
            return img
        # Labels (nearest) get no made-up border; images reflect (the zoom keeps that rare).
        return cv2.remap(img, maps[0], maps[1], cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_CONSTANT if nearest else cv2.BORDER_REFLECT, borderValue=0)


def random_camera(rng: np.random.Generator, size, max_tilt: float = 30.0, distortion: bool = True) -> Camera:
    """Mostly near-overhead cameras, some tilted up to ``max_tilt`` degrees."""
    tilt = max_tilt * float(rng.beta(1.3, 2.2))
    k1 = float(rng.uniform(-0.12, 0.22)) if distortion and rng.random() < 0.7 else 0.0
    k2 = float(rng.uniform(-0.03, 0.05)) if k1 else 0.0
    return Camera.overhead(size, tilt, rng.uniform(0, 360), rng.uniform(0, 360), rng.uniform(45, 80), k1, k2)


def warp_roi(sprite: np.ndarray, M: np.ndarray, size: tuple[int, int]):
    """Warp ``sprite`` by ``M`` into only the part of a (w, h) canvas it covers.

    Returns (x0, y0, warped) or None when it falls outside the canvas.
    """
    sh, sw = sprite.shape[:2]
    c = np.array([[0, 0, 1], [sw, 0, 1], [sw, sh, 1], [0, sh, 1]], np.float64) @ M.T
    if (c[:, 2] <= 1e-6).any():
        return None
    c = c[:, :2] / c[:, 2:3]
    W, H = size
    x0, y0 = max(int(np.floor(c[:, 0].min())) - 1, 0), max(int(np.floor(c[:, 1].min())) - 1, 0)
    x1, y1 = min(int(np.ceil(c[:, 0].max())) + 2, W), min(int(np.ceil(c[:, 1].max())) + 2, H)
    if x1 <= x0 or y1 <= y0:
        return None
    # Geometry uses pixel-edge coordinates (a sprite spans 0..sw); OpenCV samples pixel centres.
    T = np.array([[1, 0, -x0 - 0.5], [0, 1, -y0 - 0.5], [0, 0, 1.0]]) @ M @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1.0]])
    warped = cv2.warpPerspective(sprite, T, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return x0, y0, warped


def composite(dst: np.ndarray, x0: int, y0: int, warped: np.ndarray, idmap=None, obj_id: int = 0,
              opacity: float = 1.0) -> np.ndarray:
    """Alpha-blend a warped BGRA patch at (x0, y0); returns its alpha (float32 0..1)."""
    a = warped[..., 3].astype(np.float32) * (opacity / 255.0)
    h, w = a.shape
    roi = dst[y0:y0 + h, x0:x0 + w]
    a3 = a[..., None]
    roi[:] = (roi * (1 - a3) + warped[..., :3] * a3).astype(np.uint8)
    if idmap is not None:
        idmap[y0:y0 + h, x0:x0 + w][a >= 0.5] = obj_id
    return a


def darken(dst: np.ndarray, x0: int, y0: int, alpha: np.ndarray, strength: float, blur: int = 0) -> None:
    """Multiply ``dst`` by (1 - strength * alpha) at (x0, y0), clipped to ``dst``; a soft shadow."""
    if blur > 1:
        alpha = cv2.GaussianBlur(alpha, (blur | 1, blur | 1), 0)
    H, W = dst.shape[:2]
    h, w = alpha.shape
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x0 + w, W), min(y0 + h, H)
    if cx0 >= cx1 or cy0 >= cy1:
        return
    a = alpha[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0]
    roi = dst[cy0:cy1, cx0:cx1]
    roi[:] = (roi * (1 - strength * a[..., None])).astype(np.uint8)


def warp_sprite(dst: np.ndarray, sprite: np.ndarray, M: np.ndarray, idmap: np.ndarray | None = None,
                obj_id: int = 0, opacity: float = 1.0, shadow: tuple | None = None):
    """Alpha-composite a BGRA sprite onto ``dst`` through homography ``M`` (sprite px -> dst px).

    Only the bounding box is warped (cheap for small cards). Where the
    sprite's alpha >= 0.5, ``idmap`` takes ``obj_id``. ``shadow`` = (dx, dy,
    strength) first darkens the table under the sprite's silhouette, offset by
    (dx, dy) image px. Returns (x0, y0, alpha) or None when outside ``dst``.
    """
    H, W = dst.shape[:2]
    res = warp_roi(sprite, M, (W, H))
    if res is None:
        return None
    x0, y0, warped = res
    if shadow is not None:
        dx, dy, strength = shadow
        a = warped[..., 3].astype(np.float32) / 255.0
        darken(dst, x0 + int(round(dx)), y0 + int(round(dy)), a, strength, int(max(a.shape) * 0.04))
    return x0, y0, composite(dst, x0, y0, warped, idmap, obj_id, opacity)


@functools.lru_cache(maxsize=8)
def _radial(w: int, h: int) -> np.ndarray:
    """Squared distance from the centre, 0 there and 1 at the corners."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    r.setflags(write=False)
    return r


def photometric(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Light colour, gradient, low light + sensor noise, defocus, JPEG artefacts."""
    h, w = img.shape[:2]
    # Colour temperature: warm (tungsten) to cold (daylight/fluorescent).
    temp = rng.uniform(-1, 1) * strength
    gain = np.array([1 - 0.18 * temp, 1.0, 1 + 0.15 * temp], np.float32) * rng.uniform(0.95, 1.05, 3)
    # Smooth light gradient: a low-res random field upsampled (one channel; the colour is a scalar gain).
    g = rng.uniform(0.55, 1.2, (3, 3)).astype(np.float32)
    bright = rng.uniform(0.45, 1.15) if rng.random() < 0.25 else rng.uniform(0.8, 1.15)
    field = cv2.resize(g * np.float32(bright), (w, h), interpolation=cv2.INTER_CUBIC)
    if rng.random() < 0.6:  # lens vignetting: darker corners
        field *= 1.0 - rng.uniform(0.1, 0.45) * _radial(w, h)
    f = img.astype(np.float32)
    f *= field[..., None]
    f = cv2.multiply(f, (float(gain[0]), float(gain[1]), float(gain[2]), 0.0))
    if rng.random() < 0.5:  # washed-out or punchy colour (cheap phone/webcam processing)
        sat = float(rng.uniform(0.55, 1.35))
        gray = cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)
        f = cv2.addWeighted(f, sat, cv2.merge([gray, gray, gray]), 1 - sat, 0)
    # Sensor noise, stronger in low light (cv2.randn: deterministic from a seed drawn from rng).
    sigma = rng.uniform(1, 4) + (10 if bright < 0.65 else 0) * rng.random()
    cv2.setRNGSeed(int(rng.integers(2 ** 31)))
    noise = np.empty((h, w), np.float32)
    cv2.randn(noise, 0.0, float(sigma))
    f = cv2.add(f, cv2.merge([noise, noise, noise]))
    out = np.clip(f, 0, 255, out=f).astype(np.uint8)
    r = rng.random()
    if r < 0.3:  # defocus
        k = int(rng.choice([3, 5]))
        out = cv2.GaussianBlur(out, (k, k), 0)
    elif r < 0.5:  # in-camera sharpening halos
        blur = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(1.0, 2.0)))
        amt = float(rng.uniform(0.3, 1.0))
        out = cv2.addWeighted(out, 1 + amt, blur, -amt, 0)
    if rng.random() < 0.8:
        q = int(rng.integers(35, 95))
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out
