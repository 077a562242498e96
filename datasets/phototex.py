"""Optional photographed textures (CC0) from the scikit-image wheel, fetched at build time.

``sueca dataset fetch-textures`` downloads the pinned wheel with pip (no install),
checks that each image's documentation says CC0, and caches two greyscale
photos under ``out/textures/``: gravel (tinted, it makes a terrazzo or granite
table top or floor, common in Portuguese cafés) and grass (an esplanade's floor
seen past the table's edge). Without the cache the procedural textures are used alone.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import cv2
import numpy as np

PACKAGE = "scikit-image"
VERSION = "0.26.0"
FILES = {"gravel": "gravel.png", "grass": "grass.png"}


def cache_dir() -> Path:
    env = os.environ.get("SUECA_TEXTURE_CACHE")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[1]
    base = repo / "out" if (repo / "pyproject.toml").exists() else Path.home() / ".cache" / "sueca"
    return base / "textures" / "skimage"


def available() -> bool:
    return (cache_dir() / "manifest.json").is_file()


def _licence_ok(fetchers: str, name: str) -> bool:
    """The docstring of ``def name()`` in skimage/data/_fetchers.py must say CC0."""
    m = re.search(rf"def {name}\(\):(.*?)(?=\ndef )", fetchers, re.S)
    return bool(m and "CC0" in m.group(1))


def fetch_textures(force: bool = False) -> Path:
    dest = cache_dir()
    if available() and not force:
        return dest
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                              "-d", tmp, f"{PACKAGE}=={VERSION}"], capture_output=True, text=True, timeout=600)
        if res.returncode != 0:
            raise RuntimeError(f"pip download {PACKAGE}=={VERSION} failed: {res.stderr.strip()[-300:]}")
        wheel = next(Path(tmp).glob("*.whl"))
        dest.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            fetchers = z.read("skimage/data/_fetchers.py").decode("utf-8")
            manifest = {"package": f"{PACKAGE}=={VERSION}", "files": {}}
            for name, fname in FILES.items():
                if not _licence_ok(fetchers, name):
                    raise RuntimeError(f"{PACKAGE}: {fname} is not documented as CC0; not using it")
                (dest / fname).write_bytes(z.read(f"skimage/data/{fname}"))
                manifest["files"][name] = {"file": fname, "licence": "CC0"}
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return dest


@functools.lru_cache(maxsize=8)
def load(name: str, size: int) -> np.ndarray:
    """(size, size) float32 greyscale in [0, 1], made into a seamless tile."""
    if not available():
        raise FileNotFoundError("photo textures are not cached: run 'sueca dataset fetch-textures' first")
    img = cv2.imread(str(cache_dir() / FILES[name]), cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise FileNotFoundError(f"{cache_dir() / FILES[name]}: missing or unreadable")
    # Seamless without mirroring: cross-fade with a copy shifted by half a tile, whose
    # wrapped edges are the photo's own neighbouring middle columns/rows.
    f = img.astype(np.float32) / 255.0
    h, w = f.shape
    shifted = np.roll(f, (h // 2, w // 2), axis=(0, 1))
    wgt = np.outer(np.sin(np.pi * (np.arange(h) + 0.5) / h), np.sin(np.pi * (np.arange(w) + 0.5) / w))
    m = f.mean()
    tile = m + (wgt * (f - m) + (1 - wgt) * (shifted - m)) / np.sqrt(wgt ** 2 + (1 - wgt) ** 2)
    out = cv2.resize(tile.astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC).clip(0, 1)
    out.setflags(write=False)
    return out
