"""ONNX Runtime models of card recognition: the YOLO-OBB locator and the index reader.

Only numpy, OpenCV and onnxruntime: this is what runs on the Raspberry Pi.
The post-processing mirrors ultralytics' (letterbox with grey 114 padding,
class-score threshold, rotated NMS by probabilistic IoU) but is written here
so that the runtime never needs torch.

>>> import numpy as np
>>> rb = np.array([[50, 50, 20, 40, 0.0], [51, 50, 20, 40, 0.0]], np.float32)
>>> nms_rotated(rb, np.array([0.9, 0.8], np.float32), iou=0.5).tolist()
[0]
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np


def make_session(path: str | Path, threads: int | None = None):
    """An ONNX Runtime CPU session; ``threads`` caps intra-op threads (None: ORT default).

    Intra-op threads do not spin-wait for work. A frame runs four sessions one
    after another (locator, outliner, two readers); spinning pool threads of the
    session that just finished kept stealing the cores from the next one, which
    doubled the locator's time on a 2-core machine (benchmarks/bench_pipeline.py:
    15.7 frames/s spinning, 31.5 without, same video).

    8-bit networks multiply exactly on every x86 CPU: without VNNI (AVX2, most AMD CPUs
    before Zen 4, Intel before Ice Lake) ONNX Runtime's default u8 x s8 kernel adds pairs
    of products in 16 bits, which saturate: there the installed recognizer read 819 of the
    held-out test's 1132 readable cards instead of 988 (``models/EXPERIMENTS.md``,
    twenty-first session). ``session.x64quantprecision`` makes it multiply u8 x u8 instead,
    exactly; ONNX Runtime applies it only on such a CPU (with VNNI, or on the Pi's ARM cores,
    nothing changes).
    """
    import onnxruntime as ort

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"modelo não encontrado / model not found: {path}")
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.x64quantprecision", "1")
    if threads:
        opts.intra_op_num_threads = int(threads)
        opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


def available_cores() -> int:
    """CPU cores this process may run on (a container's or taskset's limit, not the machine's)."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# --------------------------------------------------------------------------- letterbox


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the network input: ``x_in = x * gain + pad_x``."""

    gain: float
    pad_x: float
    pad_y: float

    def to_image(self, xy: np.ndarray) -> np.ndarray:
        """Map (..., 2) network-input points back to image pixels."""
        out = np.asarray(xy, np.float32).copy()
        out[..., 0] = (out[..., 0] - self.pad_x) / self.gain
        out[..., 1] = (out[..., 1] - self.pad_y) / self.gain
        return out


def letterbox(image: np.ndarray, shape: tuple[int, int],
              resized: np.ndarray | None = None) -> tuple[np.ndarray, Letterbox]:
    """Resize ``image`` (BGR uint8) into ``shape`` = (h, w) keeping aspect, centred, grey padding.

    Returns the NCHW float32 RGB tensor in [0, 1] and the mapping back. ``resized``: the
    image already shrunk by ``cv2.INTER_AREA`` (used where it has the fitted size, else ignored).
    """
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"expected a BGR image (H, W, 3), got {None if image is None else image.shape}")
    h, w = image.shape[:2]
    th, tw = shape
    gain = min(th / h, tw / w)
    nh, nw = int(round(h * gain)), int(round(w * gain))
    interp = cv2.INTER_AREA if gain < 1 else cv2.INTER_LINEAR
    if resized is None or resized.shape[:2] != (nh, nw) or gain >= 1:
        resized = cv2.resize(image, (nw, nh), interpolation=interp) if (nh, nw) != (h, w) else image
    top = int(round((th - nh) / 2 - 0.1))
    left = int(round((tw - nw) / 2 - 0.1))
    canvas = np.full((th, tw, 3), 114, np.uint8)
    canvas[top:top + nh, left:left + nw] = resized
    # channels first and reversed (RGB), then scaled in place: half the time of one fused expression
    blob = canvas.transpose(2, 0, 1)[::-1].astype(np.float32)
    blob *= np.float32(1.0 / 255.0)
    return blob[None], Letterbox(gain, float(left), float(top))


# --------------------------------------------------------------------------- rotated boxes


def rbox_corners(rboxes: np.ndarray) -> np.ndarray:
    """(N, 5) ``cx, cy, w, h, angle`` (radians) -> (N, 4, 2) corners, clockwise on screen."""
    rb = np.asarray(rboxes, np.float32).reshape(-1, 5)
    c, s = np.cos(rb[:, 4]), np.sin(rb[:, 4])
    # half-extent vectors along the box's own axes
    ux = np.stack([c, s], 1) * (rb[:, 2:3] / 2)
    uy = np.stack([-s, c], 1) * (rb[:, 3:4] / 2)
    ctr = rb[:, :2]
    # with y pointing down, -ux-uy, +ux-uy, +ux+uy, -ux+uy runs clockwise on screen
    return np.stack([ctr - ux - uy, ctr + ux - uy, ctr + ux + uy, ctr - ux + uy], axis=1)


def _covariance(rb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entries a, b, c of the 2x2 covariance of each rotated box seen as a uniform rectangle."""
    w2, h2 = rb[:, 2] ** 2 / 12.0, rb[:, 3] ** 2 / 12.0
    cos, sin = np.cos(rb[:, 4]), np.sin(rb[:, 4])
    a = w2 * cos**2 + h2 * sin**2
    b = w2 * sin**2 + h2 * cos**2
    c = (w2 - h2) * cos * sin
    return a, b, c


def probiou_matrix(r1: np.ndarray, r2: np.ndarray, eps: float = 1e-7) -> np.ndarray:
    """(N, M) probabilistic IoU (1 - Hellinger distance of the boxes' Gaussians)."""
    r1 = np.asarray(r1, np.float64).reshape(-1, 5)
    r2 = np.asarray(r2, np.float64).reshape(-1, 5)
    a1, b1, c1 = (v[:, None] for v in _covariance(r1))
    a2, b2, c2 = (v[None, :] for v in _covariance(r2))
    dx = r1[:, None, 0] - r2[None, :, 0]
    dy = r1[:, None, 1] - r2[None, :, 1]
    A, B, C = a1 + a2, b1 + b2, c1 + c2
    det = A * B - C**2 + eps
    # Bhattacharyya distance between two Gaussians
    t1 = (A * dy**2 + B * dx**2) / det * 0.25
    t2 = (C * (-dx) * dy) / det * 0.5  # == (C * (x2-x1) * (y1-y2)) / det / 2
    t3 = 0.5 * np.log(det / (4 * np.sqrt(np.clip(a1 * b1 - c1**2, 0, None) * np.clip(a2 * b2 - c2**2, 0, None)) + eps) + eps)
    bd = np.clip(t1 + t2 + t3, eps, 100.0)
    hd = np.sqrt(1.0 - np.exp(-bd) + eps)
    return (1.0 - hd).astype(np.float32)


def nms_rotated(rboxes: np.ndarray, scores: np.ndarray, iou: float = 0.5) -> np.ndarray:
    """Greedy NMS on rotated boxes; indices kept, best score first."""
    order = np.argsort(-np.asarray(scores), kind="stable")
    if order.size == 0:
        return order
    rb = np.asarray(rboxes)[order]
    m = probiou_matrix(rb, rb)
    keep: list[int] = []
    suppressed = np.zeros(len(order), bool)
    for i in range(len(order)):
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= m[i] > iou
    return order[np.asarray(keep, np.int64)]


# --------------------------------------------------------------------------- models


@dataclass(frozen=True)
class Located:
    """Cards found by the locator, in image pixels: rotated boxes, corners, scores."""

    rboxes: np.ndarray  # (N, 5) cx, cy, w, h, angle
    corners: np.ndarray  # (N, 4, 2) clockwise
    scores: np.ndarray  # (N,)

    def __len__(self) -> int:
        return len(self.scores)


def decode_obb(raw: np.ndarray, lb: Letterbox, conf: float, iou: float, max_det: int = 64) -> Located:
    """Ultralytics OBB head output (1, 4 + nc + 1, A) -> cards in image pixels."""
    pred = np.asarray(raw)[0].T  # (A, 4 + nc + 1)
    scores = pred[:, 4:-1].max(axis=1)
    sel = scores > conf
    pred, scores = pred[sel], scores[sel]
    rb = np.concatenate([pred[:, :4], pred[:, -1:]], axis=1).astype(np.float32)
    keep = nms_rotated(rb, scores, iou)[:max_det]
    rb, scores = rb[keep], scores[keep]
    rb[:, :2] = lb.to_image(rb[:, :2])
    rb[:, 2:4] /= lb.gain
    return Located(rb, rbox_corners(rb), scores.astype(np.float32))


class OnnxLocator:
    """YOLO-OBB card locator on ONNX Runtime: ``locator(frame_bgr) -> Located``."""

    def __init__(self, path: str | Path, imgsz: tuple[int, int], conf: float = 0.35, iou: float = 0.5,
                 threads: int | None = None, mirror: bool = True):
        self.path = Path(path)  # the network file (float or 8-bit)
        self.session = make_session(path, threads)
        self.input_name = self.session.get_inputs()[0].name
        self.imgsz = tuple(int(v) for v in imgsz)
        self.conf, self.iou = conf, iou
        # the mirrored pass runs beside the frame's own: each on half the cores, in one session
        # (ONNX Runtime sessions may run concurrently). This network parallelises poorly inside
        # one run (2 cores: 14.7 ms on two threads, 19.5 on one), so two runs side by side cost
        # 21.5 ms where one after the other cost 31.4 (benchmarks/bench_recognition.py).
        cores = int(threads) if threads else available_cores()
        # ``mirror``: whether :meth:`both` will run (a second session beside the first)
        self._pair = make_session(path, max(1, cores // 2)) if cores >= 2 and mirror else None
        # its thread starts at the first mirrored pass
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="sueca-locator") if self._pair is not None else None

    @property
    def sessions(self) -> tuple:
        """The ONNX Runtime sessions it runs: the frame's, and the mirrored pass's where it has one."""
        return (self.session,) if self._pair is None else (self.session, self._pair)

    def raw(self, frame: np.ndarray) -> tuple[np.ndarray, Letterbox]:
        blob, lb = letterbox(frame, self.imgsz)
        return self.session.run(None, {self.input_name: blob})[0], lb

    def __call__(self, frame: np.ndarray, conf: float | None = None) -> Located:
        """The cards of ``frame``; ``conf``: the score they need, instead of ``self.conf``."""
        out, lb = self.raw(frame)
        return decode_obb(out, lb, self.conf if conf is None else conf, self.iou)

    def both(self, frame: np.ndarray, resized: np.ndarray | None = None,
             conf: float | None = None) -> tuple[Located, Located]:
        """The cards of ``frame`` and those of its left-right mirror image, in the mirror's
        pixels (as ``self(cv2.flip(frame, 1))``), from one letterbox: the mirrored input is
        the letterboxed frame's columns reversed, its padding mirrored with it. ``resized``:
        see :func:`letterbox`; ``conf``: as for :meth:`__call__`."""
        blob, lb = letterbox(frame, self.imgsz, resized)
        mirrored = np.ascontiguousarray(blob[..., ::-1])
        if self._pair is None:
            out = self.session.run(None, {self.input_name: blob})[0]
            out_m = self.session.run(None, {self.input_name: mirrored})[0]
        else:
            side = self._pool.submit(self._pair.run, None, {self.input_name: mirrored})
            out = self._pair.run(None, {self.input_name: blob})[0]
            out_m = side.result()[0]
        nw = frame.shape[1] * lb.gain
        lb_m = Letterbox(lb.gain, float(self.imgsz[1] - nw - lb.pad_x), lb.pad_y)
        conf = self.conf if conf is None else conf
        return decode_obb(out, lb, conf, self.iou), decode_obb(out_m, lb_m, conf, self.iou)


def crops_to_nchw(crops: np.ndarray) -> np.ndarray:
    """(N, H, W) grey or (N, H, W, 3) BGR uint8 crops -> (N, C, H, W) float32 in [0, 1]."""
    x = np.asarray(crops, np.float32) / 255.0
    x = x[:, None] if x.ndim == 3 else x.transpose(0, 3, 1, 2)
    return np.ascontiguousarray(x, np.float32)


#: A small network's batch of at least this many crops is split over its sessions.
SPLIT_LEAST = 4
#: ... over at most this many single-threaded sessions (one per core).
SPLIT_MAX = 4


class OnnxReader:
    """Index reader on ONNX Runtime: (N, H, W[, 3]) uint8 crops -> (N, C) logits.

    The small networks (readers, face, outliner) gain nothing from a second thread inside
    one run (a reader's 24 crops: 4.14 ms on one thread, 4.21 on two), so with ``threads``
    unset a batch of at least :data:`SPLIT_LEAST` crops is cut into one part per core, each
    run by a single-threaded session of its own, side by side; every crop is computed as
    alone, so the logits are the same bit for bit (``models/EXPERIMENTS.md``, eighteenth
    session). ``threads``: one session with that many threads, as before.
    """

    def __init__(self, path: str | Path, threads: int | None = None):
        self.path = Path(path)  # the network file (float or 8-bit)
        parts = 1 if threads else min(available_cores(), SPLIT_MAX)
        if parts > 1:
            self._parts = tuple(make_session(path, 1) for _ in range(parts))
            self._pool = ThreadPoolExecutor(parts - 1, thread_name_prefix="sueca-nets")
        else:
            self._parts, self._pool = (make_session(path, threads),), None
        self.session = self._parts[0]
        self.input_name = self.session.get_inputs()[0].name

    @property
    def sessions(self) -> tuple:
        """The ONNX Runtime sessions a batch may be split over (the first runs small batches)."""
        return self._parts

    def __call__(self, crops: np.ndarray) -> np.ndarray:
        if len(crops) == 0:
            return np.zeros((0, 0), np.float32)
        x = crops_to_nchw(crops)
        k = min(len(self._parts), len(x) // SPLIT_LEAST) if self._pool is not None else 1
        if k < 2:
            return self.session.run(None, {self.input_name: x})[0]
        cuts = np.linspace(0, len(x), k + 1).round().astype(int)
        side = [self._pool.submit(s.run, None, {self.input_name: x[a:b]})
                for s, a, b in zip(self._parts[1:k], cuts[1:k], cuts[2:])]
        own = self.session.run(None, {self.input_name: x[:cuts[1]]})[0]
        return np.concatenate([own] + [f.result()[0] for f in side])


class OnnxOutliner(OnnxReader):
    """Outliner network on ONNX Runtime: (N, S, S, 3) uint8 views -> (N, 8) corners in view units."""

    def __call__(self, views: np.ndarray) -> np.ndarray:
        if len(views) == 0:
            return np.zeros((0, 8), np.float32)
        return super().__call__(views)
