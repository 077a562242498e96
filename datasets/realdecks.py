"""Held-out real decks: other artists' card designs, fetched at build time, never trained on.

The recognizer is meant for decks it never saw. The generator's own held-out
styles (``test_pt_serif``, ``test_light_sans``) are still drawn by the generator
that made the training decks, so they share its habits. These decks are drawn
by other people, printed-deck fashion: the classic French-pattern deck of
David Bellot (npm package ``svg-cards``, LGPL-2.1), Chris Aguilar's
English-pattern deck (npm ``cardsJS``, art LGPL-3.0) and the card themes that
Debian ships for KDE's card games (package ``kdegames-card-data-kf5``, GPL-2+) and
for GNOME's (``gnome-cards-data``, GPL-3+; ``styles.GNOME_THEMES``). The readers may
learn from those named in ``styles.REAL_TRAIN_STYLES`` and ``styles.REAL_MORE_STYLES``;
Bellot's, Aguilar's and KDE's Tigullio International (``styles.REAL_HELDOUT_STYLES``)
stay held out, and so do GNOME's copies of the first two.

``sueca dataset fetch-heldout-decks`` downloads them (npm, apt), checks each
licence, rasterises every card (PNG as packaged, or the KDE theme's SVG element
with ``rsvg-convert``, Debian package ``librsvg2-bin``) and caches them as
``svgdeck`` does, one folder per deck under ``out/decks/``. They are used only
by the styles in ``sueca.datasets.styles.REAL_STYLES``, which no training scene
draws. Nothing here runs in tests.
"""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from . import svgdeck
from .fetch import FETCH_ERRORS
from .styles import GNOME_THEMES

HEIGHT = svgdeck.HEIGHT
RANKS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
SUITS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
CODES = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


def _names(code: str) -> tuple[str, str]:
    """("queen", "heart") for "QH": the rank and suit words both packages name their cards by."""
    return RANKS.get(code[:-1], code[:-1]), SUITS[code[-1]]


@dataclass(frozen=True)
class Source:
    """Where one deck comes from: ``kind`` "npm" (PNG files in the package, named by suit and
    rank), "npm-svg" (SVG files named by card code), "deb" (a KDE theme's folder) or
    "deb-gnome" (a GNOME theme's ``.svgz``, elements named suit first)."""

    kind: str
    package: str
    version: str
    licence: str
    path: str  # npm: folder of PNGs (or SVGs) in the package; deb: the theme folder under /usr/share/carddecks;
    # deb-gnome: the theme file under /usr/share/aisleriot/cards
    #: npm packages whose card art carries its own licence beside the code's: that file, a
    #: phrase its text must hold, the licence's name (the package.json ``license`` is the code's)
    art_licence: tuple[str, str, str] | None = None


#: Deck name -> source. The KDE themes left out draw no corner index (future), use
#: German suits (xskat-german), print an upright index in the bottom corner and none
#: of the suit (ancient-egyptians), did not rasterise as whole cards (gm-paris's courts),
#: have no 2 to 6 (xskat-french, konqi-modern), draw pips only (penguins) or print the
#: rank in the top-right corner (the three oxygen themes).
DECKS: dict[str, Source] = {
    "bellot": Source("npm", "svg-cards", "4.0.2", "LGPL-2.1", "package/png/2x"),
    # Chris Aguilar's Vectorized Playing Cards 1.3, as SVGs named by card code; the code is MIT,
    # the art LGPL-3.0 (cards/COPYING.LESSER.txt)
    "aguilar": Source("npm-svg", "cardsJS", "1.1.1", "MIT", "package/cards",
                      ("package/cards/COPYING.LESSER.txt", "GNU LESSER GENERAL PUBLIC LICENSE\n                       Version 3",
                       "LGPL-3.0")),
    **{f"kde_{t.replace('-', '_')}": Source("deb", "kdegames-card-data-kf5", "4:22.12.3-1", "GPL-2+", f"svg-{t}")
       for t in ("standard", "nicu-white", "nicu-ornamental", "tigullio-international", "dondorf")},
    "kde_jolly_royal": Source("deb", "kdegames-card-data-kf5", "4:22.12.3-1", "GPL-2+", "svg-jolly-royal"),
    **{f"gnome_{t.replace('-', '_')}": Source("deb-gnome", "gnome-cards-data", "1:3.22.23-1", "GPL-3+", f"{t}.svgz")
       for t in GNOME_THEMES},
}


def cache_dir(deck: str) -> Path:
    return svgdeck.cache_dir(deck)


def available(deck: str) -> bool:
    return svgdeck.available(deck)


def _npm_pack(src: Source, tmp: str) -> tarfile.TarFile:
    res = subprocess.run(["npm", "pack", f"{src.package}@{src.version}", "--pack-destination", tmp],
                         capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        raise RuntimeError(f"npm pack {src.package}@{src.version} failed: {res.stderr.strip()[-300:]}")
    return check_licences(src, tarfile.open(next(Path(tmp).glob("*.tgz"))))


def check_licences(src: Source, tf: tarfile.TarFile) -> tarfile.TarFile:
    """``tf`` (an npm package) if its package.json and, where the art has its own, the art's
    licence file say what ``src`` expects; a RuntimeError naming the difference otherwise."""
    meta = json.load(tf.extractfile("package/package.json"))
    if meta.get("license") != src.licence:
        raise RuntimeError(f"{src.package}: licence {meta.get('license')!r} is not {src.licence}; not using it")
    if src.art_licence is not None:
        path, phrase, _ = src.art_licence
        try:
            text = tf.extractfile(path).read().decode("utf-8", "replace")
        except KeyError:
            raise RuntimeError(f"{src.package}: no {path}, so the card art's licence is unknown; not using it")
        if phrase not in text:
            raise RuntimeError(f"{src.package}: {path} does not name the expected licence; not using it")
    return tf


def _svg_png(data: bytes, height: int) -> np.ndarray | None:
    """One SVG card rasterised ``height`` px tall (``rsvg-convert``), BGRA."""
    if shutil.which("rsvg-convert") is None:
        raise RuntimeError("rsvg-convert is missing: apt-get install librsvg2-bin")
    res = subprocess.run(["rsvg-convert", "-h", str(height)], input=data, capture_output=True, timeout=120)
    if res.returncode != 0 or not res.stdout:
        return None
    return cv2.imdecode(np.frombuffer(res.stdout, np.uint8), cv2.IMREAD_UNCHANGED)


def _deb_tree(src: Source, tmp: str) -> Path:
    """The unpacked .deb (``apt-get download``, no install), its licence checked."""
    res = subprocess.run(["apt-get", "download", f"{src.package}={src.version}"], cwd=tmp,
                         capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        raise RuntimeError(f"apt-get download {src.package}={src.version} failed: {res.stderr.strip()[-300:]}")
    deb = next(Path(tmp).glob("*.deb"))
    root = Path(tmp) / "x"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True, timeout=120)
    copyright_ = (root / "usr/share/doc" / src.package / "copyright").read_text()
    if f"License: {src.licence}" not in copyright_:
        raise RuntimeError(f"{src.package}: its copyright file does not say {src.licence}; not using it")
    return root


def _whole_card(img: np.ndarray, size: tuple[int, int] | None) -> np.ndarray | None:
    """The card itself out of an element's render: some themes' elements carry art that
    overflows the card (clipped when drawn), so the rendered extents are too large. The
    card is then the largest opaque region, which must have the deck's usual size."""
    alpha = (img[..., 3] > 250).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(alpha)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, 4]))
    x, y, w, h = (int(v) for v in stats[k, :4])
    if size is not None and (abs(w - size[0]) > 0.03 * size[0] or abs(h - size[1]) > 0.03 * size[1]):
        return None
    if not 0.6 <= w / h <= 0.78 or stats[k, 4] < 0.85 * w * h:
        return None
    return np.ascontiguousarray(img[y:y + h, x:x + w])


def _rsvg(svg: Path, element: str, zoom: float) -> np.ndarray | None:
    res = subprocess.run(["rsvg-convert", "-i", element, "-z", f"{zoom:.5f}", str(svg)],
                         capture_output=True, timeout=120)
    if res.returncode != 0 or not res.stdout:
        return None
    return cv2.imdecode(np.frombuffer(res.stdout, np.uint8), cv2.IMREAD_UNCHANGED)


def _element(code: str, suit_first: bool) -> str:
    """The SVG element id of a card: KDE's themes say "queen_heart", GNOME's "heart_queen"."""
    rank, suit = _names(code)
    return f"{suit}_{rank}" if suit_first else f"{rank}_{suit}"


def _kde_cards(theme: Path, suit_first: bool = False) -> tuple[dict, np.ndarray | None]:
    """The 52 faces and the back of one SVG theme (a KDE or GNOME card theme folder)."""
    if shutil.which("rsvg-convert") is None:
        raise RuntimeError("rsvg-convert is missing: apt-get install librsvg2-bin")
    svgz = next(theme.glob("*.svgz"))
    svg = theme / "theme.svg"
    svg.write_bytes(gzip.decompress(svgz.read_bytes()))
    # the zoom that makes a card HEIGHT px tall, from a card whose element is the card alone
    probe = _rsvg(svg, _element("2C", suit_first), 1.0)
    if probe is None:
        raise RuntimeError(f"{theme.name}: no element {_element('2C', suit_first)!r}")
    zoom = HEIGHT / probe.shape[0]
    renders = {code: _rsvg(svg, _element(code, suit_first), zoom) for code in CODES}
    plain = [c for c in (_whole_card(r, None) for r in renders.values() if r is not None) if c is not None]
    if not plain:
        return {}, None
    size = tuple(int(v) for v in np.median([c.shape[1::-1] for c in plain], axis=0))
    cards = {code: _whole_card(r, size) for code, r in renders.items() if r is not None}
    back = _rsvg(svg, "back", zoom)
    return {c: im for c, im in cards.items() if im is not None}, (None if back is None else _whole_card(back, None))


def index_quad(img: np.ndarray) -> list:
    """The top-left corner index (rank over suit) of a BGRA card face, measured from its ink.

    Other artists' indices are larger or further in than ``svgdeck._index_quad``
    expects, so this grows the index from the rank: the inked shape nearest the
    corner, the shapes beside it on the same line (the "1" and "0" of a 10), then
    the shape just under them (the suit).
    """
    h, w = img.shape[:2]
    ink = (img[..., 3] > 128) & (img[..., :3].astype(int).sum(-1) < 600)
    m = int(np.ceil(0.025 * w))  # the card's printed outline
    quarter = np.zeros((h // 2, w // 2), np.uint8)
    quarter[m:, m:] = ink[m:h // 2, m:w // 2]
    n, _, stats, _ = cv2.connectedComponentsWithStats(quarter)
    parts = [tuple(int(v) for v in stats[i, :4]) for i in range(1, n)
             if stats[i, 4] > 4 and stats[i, 3] > 0.02 * h and stats[i, 2] < 0.3 * w and stats[i, 3] < 0.3 * h]
    if not parts:
        raise ValueError("realdecks: no index ink found in the top-left corner")
    x0, y0, bw, bh = min(parts, key=lambda b: b[0] + b[1])
    x1, y1 = x0 + bw, y0 + bh
    if bw < 0.8 * bh:  # a "1": the "0" of a 10 stands beside it, top and foot level with it
        for x, y, bw2, bh2 in sorted(parts):
            if x >= x1 - 1 and x - x1 < 0.3 * bh and abs(y - y0) < 0.15 * bh and abs(y + bh2 - y1) < 0.15 * bh:
                x1 = max(x1, x + bw2)
                break
    rank_w = max(x1 - x0, 0.6 * bh)
    # the suit sign: the nearest shape below, centred under the rank and no bigger than it
    under = [b for b in parts if y1 - 0.1 * bh <= b[1] < y1 + 0.6 * bh and b[2] <= 1.6 * rank_w and b[3] <= 1.2 * bh
             and x0 - 0.3 * rank_w < b[0] + b[2] / 2 < x1 + 0.3 * rank_w]
    if under:
        x, y, bw2, bh2 = min(under, key=lambda b: b[1])
        x0, x1, y1 = min(x0, x), max(x1, x + bw2), max(y1, y + bh2)
    return [[x0 - 2, y0 - 2], [x1 + 2, y0 - 2], [x1 + 2, y1 + 2], [x0 - 2, y1 + 2]]


def _write(deck: str, src: Source, cards: dict, back: np.ndarray | None) -> Path:
    if len(cards) != 52:
        missing = sorted(set(CODES) - set(cards))
        raise RuntimeError(f"{deck}: {len(missing)} cards did not rasterise as whole cards: {', '.join(missing)}")
    dest = cache_dir(deck)
    dest.mkdir(parents=True, exist_ok=True)
    licence = src.licence if src.art_licence is None else f"{src.art_licence[2]} (card art; code {src.licence})"
    manifest = {"package": f"{src.package}@{src.version}", "licence": licence, "height": HEIGHT, "cards": {}}
    for code, img in cards.items():
        if img.shape[2] == 3:
            img = np.dstack([img, np.full(img.shape[:2], 255, np.uint8)])
        s = HEIGHT / img.shape[0]
        img = cv2.resize(img, (round(img.shape[1] * s), HEIGHT), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(dest / f"{code}.png"), img)
        manifest["cards"][code] = {"file": f"{code}.png", "index_quad": index_quad(img)}
    if back is not None:
        cv2.imwrite(str(dest / "back.png"), back)
        manifest["backs"] = ["back.png"]
    (dest / "manifest.json").write_text(json.dumps(manifest, indent=1))
    svgdeck._manifest.cache_clear()
    return dest


def fetch_heldout_decks(names=None, force: bool = False, log=print) -> dict[str, str]:
    """Fetch, check and cache the held-out decks (all of :data:`DECKS` by default).
    Returns deck -> cache folder, or -> the reason it could not be made."""
    out: dict[str, str] = {}
    names = list(names or DECKS)
    for name in names:
        if name not in DECKS:
            raise ValueError(f"unknown held-out deck {name!r}; known: {', '.join(DECKS)}")
    todo = [n for n in names if force or not available(n)]
    out.update({n: str(cache_dir(n)) for n in names if n not in todo})
    with tempfile.TemporaryDirectory() as tmp:
        deb_roots: dict[str, Path] = {}  # package -> unpacked tree, each downloaded once
        for name in todo:
            src = DECKS[name]
            try:
                if src.kind in ("npm", "npm-svg"):
                    with _npm_pack(src, tempfile.mkdtemp(dir=tmp)) as tf:
                        if src.kind == "npm-svg":
                            def svg(name: str) -> np.ndarray | None:
                                return _svg_png(tf.extractfile(f"{src.path}/{name}.svg").read(), HEIGHT)

                            cards = {code: svg(code) for code in CODES}
                            cards = {c: im for c, im in cards.items() if im is not None}
                            back = svg("Blue_Back")
                        else:
                            def png(name: str) -> np.ndarray:
                                data = tf.extractfile(f"{src.path}/{name}.png").read()
                                return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)

                            cards = {}
                            for code in CODES:
                                rank, suit = _names(code)
                                cards[code] = png(f"{suit}_{rank}")
                            back = png("back")
                else:
                    if src.package not in deb_roots:
                        deb_roots[src.package] = _deb_tree(src, tempfile.mkdtemp(dir=tmp))
                    root = deb_roots[src.package]
                    if src.kind == "deb":
                        cards, back = _kde_cards(root / "usr/share/carddecks" / src.path)
                    else:  # one .svgz per theme: give it a folder of its own, as a KDE theme has
                        theme = Path(tempfile.mkdtemp(dir=tmp))
                        shutil.copy(root / "usr/share/aisleriot/cards" / src.path, theme)
                        cards, back = _kde_cards(theme, suit_first=True)
                out[name] = str(_write(name, src, cards, back))
            except FETCH_ERRORS as e:
                out[name] = f"not made: {e}"
            log(f"{name}: {out[name]}")
    return out


__all__ = ["DECKS", "Source", "fetch_heldout_decks", "available", "cache_dir"]
