"""PyTorch backend of the recognizer (development and benchmarks; needs the training extra).

Same interface and the same pre/post-processing as the ONNX backend: only the
network runs in torch, so the two can be compared output for output.

>>> # load_recognizer(backend="ultralytics")   # uses models/locator.pt + reader.pt  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sueca.vision.onnx_backend import Located, crops_to_nchw, decode_obb, letterbox


def _torch(threads: int | None):
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - depends on the venv
        raise RuntimeError("backend 'ultralytics' needs torch + ultralytics (pip install -e '.[train]')") from exc
    if threads:
        torch.set_num_threads(int(threads))
    return torch


class TorchLocator:
    """YOLO-OBB locator from an ultralytics checkpoint, run as a plain torch module."""

    def __init__(self, path: str | Path, imgsz: tuple[int, int], conf: float = 0.35, iou: float = 0.5,
                 threads: int | None = None):
        self.torch = _torch(threads)
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"modelo não encontrado / model not found: {path}")
        import os
        import tempfile

        from sueca.vision.train_locator import setup_ultralytics

        # ultralytics writes settings on import: keep them in a scratch folder, offline, and
        # keep its log lines off stdout (sueca detect prints JSON lines there)
        os.environ.setdefault("YOLO_VERBOSE", "False")
        setup_ultralytics(os.environ.get("YOLO_CONFIG_DIR") or Path(tempfile.gettempdir()) / "sueca_yolo_config")
        from ultralytics import YOLO

        self.model = YOLO(str(path)).model.float().eval()
        self.model.fuse() if hasattr(self.model, "fuse") else None
        self.imgsz = tuple(int(v) for v in imgsz)
        self.conf, self.iou = conf, iou

    def raw(self, frame: np.ndarray):
        blob, lb = letterbox(frame, self.imgsz)
        with self.torch.inference_mode():
            out = self.model(self.torch.from_numpy(blob))
        if isinstance(out, (tuple, list)):
            out = out[0]
        return out.numpy(), lb

    def __call__(self, frame: np.ndarray, conf: float | None = None) -> Located:
        """The cards of ``frame``; ``conf``: the score they need, instead of ``self.conf``."""
        out, lb = self.raw(frame)
        return decode_obb(out, lb, self.conf if conf is None else conf, self.iou)


def _load_net(torch, path: str | Path, build):
    """A network saved as state dict + architecture arguments (``reader.pt``, ``outliner.pt``)."""
    ckpt = torch.load(str(path), map_location="cpu", weights_only=True)
    model = build(**ckpt["arch"])
    model.load_state_dict(ckpt["state_dict"])
    return model.eval()


class TorchReader:
    """Index reader from ``reader.pt``: (N, H, W[, 3]) uint8 crops -> (N, C) logits."""

    outputs = 0  # width of the empty answer to no crops

    def __init__(self, path: str | Path, threads: int | None = None):
        self.torch = _torch(threads)
        from sueca.vision.reader_net import build_reader

        self.model = _load_net(self.torch, path, build_reader)

    def __call__(self, crops: np.ndarray) -> np.ndarray:
        if len(crops) == 0:
            return np.zeros((0, self.outputs), np.float32)
        with self.torch.inference_mode():
            return self.model(self.torch.from_numpy(crops_to_nchw(crops))).numpy()


class TorchOutliner(TorchReader):
    """Outliner network from ``outliner.pt``: (N, S, S, 3) uint8 views -> (N, 8) corners."""

    outputs = 8

    def __init__(self, path: str | Path, threads: int | None = None):
        self.torch = _torch(threads)
        from sueca.vision.outline_net import build_outliner

        self.model = _load_net(self.torch, path, build_outliner)
