"""Deck styles: the one place that says how the synthetic decks look.

A style is a small frozen dataclass; add one to ``STYLES`` to extend the
generator. Styles named in ``TEST_STYLES`` are never used for training scenes,
so a held-out split can measure how the model copes with a deck it never saw.

>>> style = get_style("classic")
>>> style.rank_text("Q"), get_style("portugues").rank_text("Q")
('Q', 'D')
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

#: Letters printed in the index for the court cards and the ace.
LETTERS = {
    "en": {"A": "A", "K": "K", "Q": "Q", "J": "J"},
    # Portuguese decks: Rei, Dama, Valete (the ace stays A).
    "pt": {"A": "A", "K": "R", "Q": "D", "J": "V"},
}

# BGR colours.
RED = (38, 28, 196)
DARK_RED = (40, 30, 160)
BLACK = (28, 26, 24)
BLUE = (170, 80, 20)
GREEN = (50, 130, 30)
ORANGE = (20, 130, 230)


@dataclass(frozen=True)
class DeckStyle:
    """How one deck looks.

    ``index_scale`` is the rank glyph height as a fraction of the card height
    (about 0.10 standard, 0.16 jumbo). ``suit_colours`` maps S, H, D, C to BGR.
    """

    name: str
    fonts: tuple[str, ...] = ("DejaVuSans-Bold.ttf",)
    index_scale: float = 0.105
    letters: str = "en"
    suit_colours: dict = field(default_factory=lambda: {"S": BLACK, "H": RED, "D": RED, "C": BLACK})
    pip_variant: int = 0
    stock: tuple[int, int, int] = (246, 248, 250)
    border: tuple[int, int, int] | None = None
    corner_radius: float = 0.055      # of the card width
    aspect: float = 0.716             # width / height: poker 63x88 mm
    index_margin: float = 0.035       # of the card height
    court_split: str = "diagonal"     # or "horizontal"
    court_palette: int = 0
    back_pattern: str = "diamonds"
    back_colour: tuple[int, int, int] = (40, 40, 170)
    index_suit_scale: float = 0.75    # suit glyph width / rank glyph height
    condensed: float = 1.0            # horizontal squeeze of the rank glyph
    external: str | None = None       # a fetched real deck ("letele", see svgdeck.py); stock tints it
    art_hue: int = 0                  # real decks: hue turn (degrees) of the court figures' colours
    restyle: bool = True              # real decks: recolour and reletter to this style (False: the art as printed)
    art_from: str | None = None       # real decks: the courts' and aces' art from this other fetched deck (``artmix``)
    # where printers differ from the hand-made decks (None / defaults: the hand-made layout)
    index_inset: float | None = None  # index column's left edge, of the card width
    pip_gap: float = 0.02             # space between the index column and the pips, of the width
    pip_scale: float = 1.0            # pip size over the hand-made decks'
    pip_top: float = 0.12             # top of the pip field, of the card height

    def rank_text(self, rank: str) -> str:
        return LETTERS[self.letters].get(rank, rank)

    def colour(self, suit: str) -> tuple[int, int, int]:
        return self.suit_colours[suit]


FOUR_COLOUR = {"S": BLACK, "H": RED, "D": BLUE, "C": GREEN}
FOUR_COLOUR_EU = {"S": BLACK, "H": RED, "D": ORANGE, "C": GREEN}

STYLES: tuple[DeckStyle, ...] = (
    DeckStyle("classic"),
    DeckStyle("portugues", fonts=("P052-Bold.otf", "DejaVuSerif-Bold.ttf"), letters="pt", stock=(232, 242, 247),
              back_pattern="lattice", back_colour=(30, 110, 40), court_palette=1, pip_variant=1),
    DeckStyle("jumbo", index_scale=0.165, fonts=("LiberationSans-Bold.ttf", "DejaVuSans-Bold.ttf"),
              back_pattern="rings", back_colour=(150, 60, 20), index_margin=0.03),
    DeckStyle("four_colour", suit_colours=FOUR_COLOUR, fonts=("DejaVuSansCondensed-Bold.ttf",),
              back_pattern="dots", back_colour=(30, 30, 150), court_split="horizontal"),
    DeckStyle("bridge_serif", aspect=0.637, fonts=("C059-Bold.otf", "LiberationSerif-Bold.ttf", "DejaVuSerif-Bold.ttf"),
              index_scale=0.095, pip_variant=2, stock=(238, 244, 248), border=(120, 120, 120),
              back_pattern="diamonds", back_colour=(130, 40, 40), court_palette=2),
    DeckStyle("pt_jumbo", letters="pt", index_scale=0.15, fonts=("DejaVuSans-Bold.ttf",),
              suit_colours={"S": BLACK, "H": DARK_RED, "D": DARK_RED, "C": BLACK}, stock=(225, 238, 245),
              back_pattern="lattice", back_colour=(40, 40, 140), pip_variant=1, court_palette=1),
    DeckStyle("narrow_mono", fonts=("DejaVuSansMono-Bold.ttf",), condensed=0.8, index_scale=0.11,
              pip_variant=2, back_pattern="stripes", back_colour=(60, 60, 60), border=(60, 60, 180)),
    DeckStyle("casino", fonts=("NimbusSansNarrow-Bold.otf", "LiberationSansNarrow-Bold.ttf", "DejaVuSansCondensed-Bold.ttf"),
              index_scale=0.14, back_pattern="dots", back_colour=(20, 20, 160), court_palette=2,
              court_split="horizontal"),
    DeckStyle("bookman_pt", fonts=("URWBookman-Demi.otf", "FreeSerifBold.ttf", "DejaVuSerif-Bold.ttf"), letters="pt",
              index_scale=0.12, stock=(236, 242, 246), pip_variant=2, back_pattern="dots", back_colour=(30, 90, 30),
              court_palette=2),
    DeckStyle("helvetica_4c", fonts=("NimbusSans-Bold.otf", "FreeSansBold.ttf", "LiberationSans-Bold.ttf"),
              suit_colours=FOUR_COLOUR_EU, index_scale=0.13, back_pattern="logo", back_colour=(110, 40, 20)),
    # Real deck art (CC0), used only once fetched with 'sueca dataset fetch-deck'.
    DeckStyle("kennard", external="letele", aspect=366 / 512, stock=(255, 255, 255)),
    DeckStyle("kennard_cream", external="letele", aspect=366 / 512, stock=(222, 236, 246)),
    DeckStyle("kennard_pt", external="letele", aspect=366 / 512, letters="pt", stock=(232, 240, 246),
              fonts=("C059-Bold.otf", "DejaVuSerif-Bold.ttf"), suit_colours={"S": BLACK, "H": RED, "D": RED, "C": BLACK}),
    DeckStyle("kennard_4c", external="letele", aspect=366 / 512, suit_colours=FOUR_COLOUR),
    DeckStyle("kennard_violet_courts", external="letele", aspect=366 / 512, art_hue=40, stock=(238, 244, 248)),
    DeckStyle("kennard_pt_warm", external="letele", aspect=366 / 512, art_hue=-30, letters="pt",
              fonts=("DejaVuSerif-Bold.ttf",), stock=(225, 238, 246)),
    # Held out: only for the test split.
    DeckStyle("test_pt_serif", fonts=("DejaVuSerifCondensed-Bold.ttf", "DejaVuSerif-Bold.ttf"), letters="pt",
              suit_colours=FOUR_COLOUR_EU, stock=(215, 232, 240), index_scale=0.12, pip_variant=3,
              back_pattern="diamonds", back_colour=(40, 120, 160), court_palette=3, border=(90, 90, 90)),
    DeckStyle("test_light_sans", fonts=("DejaVuSans.ttf",), index_scale=0.13, pip_variant=3,
              stock=(250, 250, 250), back_pattern="lattice", back_colour=(140, 30, 90), court_palette=3,
              aspect=0.66, court_split="horizontal"),
)

#: Styles reserved for a held-out test split (never drawn for training scenes).
TEST_STYLES: tuple[str, ...] = ("test_pt_serif", "test_light_sans")

#: GNOME's card themes (Debian package ``gnome-cards-data``, ``realdecks.py``) the readers may learn from. Left out:
#: Bellot's and Tigullio's (the held-out decks' own art), Dondorf and Ornamental (as KDE's,
#: already here), Paris (Bellot's French pattern redrawn: its courts correlate 0.56-0.71 with his),
#: the Russian decks' Cyrillic letters (slavic_costumes, Атласные), decks with no corner index
#: on their pip cards (swiss-xvii, tarocco), the skat and bitmap variants, and Orell (most
#: faces did not rasterise); Guyenne Classic, one of whose faces has no ink near its
#: top-left corner for ``realdecks.index_quad``.
GNOME_THEMES = ("ancient_french", "anglo", "anglo_modern", "anglo_modern_4_color", "anglo_poker", "atlasnye",
                "gnomangelo", "lattmann", "neoclassical", "neoclassical_4_color", "plastic",
                "rheinland", "simplistic", "tango", "tango_nuevo", "berlin")

#: Other artists' decks, as printed (``realdecks.py``; used once fetched): a second held-out
#: check, never drawn for training scenes and not part of the ``test`` split's figures.
REAL_STYLES: tuple[DeckStyle, ...] = tuple(
    DeckStyle(f"real_{deck}", external=deck, restyle=False, stock=(255, 255, 255))
    for deck in ("bellot", "kde_standard", "kde_nicu_white", "kde_nicu_ornamental", "kde_tigullio_international",
                 "kde_dondorf", "aguilar", "kde_jolly_royal", *(f"gnome_{t.replace('-', '_')}" for t in GNOME_THEMES)))
#: The real decks the readers may learn from (``train_real.tune_on_real_decks``); the others
#: (David Bellot's, KDE's Tigullio International, Chris Aguilar's) stay held out for
#: ``scripts/real_decks_check.py``.
REAL_TRAIN_STYLES: tuple[str, ...] = ("real_kde_standard", "real_kde_nicu_white", "real_kde_nicu_ornamental",
                                      "real_kde_dondorf")
#: More of them (2026-12-04, later): KDE's Jolly Royal and GNOME's themes (``GNOME_THEMES`` above).
#: Apart from ``REAL_TRAIN_STYLES`` so that ``"real_train"`` still names the decks earlier runs
#: learnt from; ``resolve_styles("real_more")`` names these, ``"real_train_all"`` both.
REAL_MORE_STYLES: tuple[str, ...] = ("real_kde_jolly_royal",
                                     *(f"real_gnome_{t.replace('-', '_')}" for t in GNOME_THEMES))
#: The held-out ones: never learnt from, never used to choose anything.
REAL_HELDOUT_STYLES: tuple[str, ...] = ("real_bellot", "real_kde_tigullio_international", "real_aguilar")

#: Typefaces a generated deck may print its index in: the upright faces of the
#: Debian font packages, less those of the held-out styles (their fonts stay unseen).
GENERATED_FONTS: tuple[str, ...] = (
    "C059-Bold.otf", "C059-Roman.otf", "P052-Bold.otf", "P052-Roman.otf", "NimbusRoman-Bold.otf",
    "NimbusRoman-Regular.otf", "NimbusSans-Bold.otf", "NimbusSans-Regular.otf", "NimbusSansNarrow-Bold.otf",
    "NimbusSansNarrow-Regular.otf", "NimbusMonoPS-Bold.otf", "URWBookman-Demi.otf", "URWBookman-Light.otf",
    "URWGothic-Book.otf", "URWGothic-Demi.otf", "FreeSans.ttf", "FreeSansBold.ttf", "FreeSerif.ttf",
    "FreeSerifBold.ttf", "FreeMonoBold.ttf", "LiberationSans-Bold.ttf", "LiberationSans-Regular.ttf",
    "LiberationSansNarrow-Bold.ttf", "LiberationSansNarrow-Regular.ttf", "LiberationSerif-Bold.ttf",
    "LiberationSerif-Regular.ttf", "LiberationMono-Bold.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSansMono-Bold.ttf", "DejaVuSerif-Bold.ttf",
)
#: More index typefaces for the glyph decks only (Debian fonts-noto-core, fonts-texgyre), so the
#: decks that existed before keep drawing the same faces.
EXTRA_INDEX_FONTS: tuple[str, ...] = (
    "NotoSans-Bold.ttf", "NotoSans-Regular.ttf", "NotoSerif-Bold.ttf", "NotoSerif-Regular.ttf",
    "NotoSansDisplay-Bold.ttf", "NotoSerifDisplay-Bold.ttf", "texgyreheros-bold.otf", "texgyreheros-regular.otf",
    "texgyreheroscn-bold.otf", "texgyretermes-bold.otf", "texgyrepagella-bold.otf", "texgyrebonum-bold.otf",
    "texgyreschola-bold.otf", "texgyreadventor-bold.otf", "texgyrecursor-bold.otf",
)
#: How many generated decks join the training styles (``gen000`` ...).
GENERATED_STYLES = 48
_SUIT_SETS = ({"S": BLACK, "H": RED, "D": RED, "C": BLACK}, {"S": BLACK, "H": DARK_RED, "D": DARK_RED, "C": BLACK},
              FOUR_COLOUR, FOUR_COLOUR_EU)


def generated_style(k: int) -> DeckStyle:
    """Deck ``gen{k:03d}``: typeface, index size and place, colours and art drawn from ``k``.

    Real decks differ most in the index's typeface and size; a reader that saw a
    few dozen of them reads a deck it never saw, where a handful of hand-made
    decks teach it those fonts only. Pip and court art variants of the
    held-out styles (3) are not used.

    >>> generated_style(3) == generated_style(3), generated_style(3).name
    (True, 'gen003')
    """
    import random

    r = random.Random(7_700_000 + k)
    fonts = tuple(r.sample(GENERATED_FONTS, 2))
    stock = tuple(int(v) for v in (r.randint(210, 252), r.randint(228, 252), r.randint(236, 254)))
    return DeckStyle(
        f"gen{k:03d}", fonts=fonts, index_scale=round(r.uniform(0.09, 0.165), 3),
        letters="pt" if r.random() < 0.35 else "en", suit_colours=dict(r.choice(_SUIT_SETS[:2] * 3 + _SUIT_SETS[2:])),
        pip_variant=r.randrange(3), stock=stock, border=(r.choice([None, None, (90, 90, 90), (60, 60, 170)])),
        aspect=round(r.uniform(0.63, 0.72), 3), index_margin=round(r.uniform(0.025, 0.05), 3),
        court_split=r.choice(["diagonal", "horizontal"]), court_palette=r.randrange(3),
        back_pattern=r.choice(["diamonds", "lattice", "stripes", "rings", "logo", "dots"]),
        back_colour=tuple(int(v) for v in (r.randint(20, 160), r.randint(20, 130), r.randint(20, 180))),
        index_suit_scale=round(r.uniform(0.6, 0.9), 3), condensed=round(r.uniform(0.78, 1.08), 3))


TRAIN_STYLES: tuple[str, ...] = tuple(s.name for s in STYLES if s.name not in TEST_STYLES) + tuple(
    f"gen{k:03d}" for k in range(GENERATED_STYLES))


def wide_style(k: int) -> DeckStyle:
    """Deck ``wide{k:03d}``: a generated deck laid out the way many printed decks are and the
    ``gen`` decks are not: small index hugging the edge, a small suit sign under the rank,
    big pips crowding the index and starting level with it, suit signs of their own
    proportions (``pips.py`` variants 4 and up). Not in ``train``: no recipe step uses them
    yet (``models/EXPERIMENTS.md``, 2026-12-04).

    >>> wide_style(2) == wide_style(2), wide_style(2).name
    (True, 'wide002')
    """
    import random

    r = random.Random(8_800_000 + k)
    base = generated_style(GENERATED_STYLES + k)
    return replace(base, name=f"wide{k:03d}", index_scale=round(r.uniform(0.065, 0.15), 3),
                   index_suit_scale=round(r.uniform(0.38, 0.8), 3), index_inset=round(r.uniform(0.018, 0.06), 3),
                   index_margin=round(r.uniform(0.018, 0.045), 3), pip_gap=round(r.uniform(0.0, 0.02), 3),
                   pip_scale=round(r.uniform(1.0, 1.35), 3), pip_top=round(r.uniform(0.05, 0.12), 3),
                   pip_variant=4 + k)  # suit signs of their own proportions (pips.py, variants >= 4)


#: How many wide decks there are (``wide000`` ...).
WIDE_COUNT = 48
WIDE_STYLES: tuple[str, ...] = tuple(f"wide{k:03d}" for k in range(WIDE_COUNT))


def glyph_style(k: int) -> DeckStyle:
    """Deck ``glyph{k:03d}``: a generated deck (even ``k``) or a wide one (odd ``k``) whose
    pips and index suit signs are a typeface's (``pips.py``, variants ``GLYPH_VARIANT0`` on),
    its index printed in two of ``GENERATED_FONTS`` and ``EXTRA_INDEX_FONTS``.

    >>> glyph_style(3).pip_variant - glyph_style(2).pip_variant, glyph_style(3).name
    (1, 'glyph003')
    """
    import random

    from .pips import GLYPH_VARIANT0

    base = wide_style(WIDE_COUNT + k) if k % 2 else generated_style(GENERATED_STYLES + WIDE_COUNT + k)
    fonts = tuple(random.Random(9_900_000 + k).sample(GENERATED_FONTS + EXTRA_INDEX_FONTS, 2))
    return replace(base, name=f"glyph{k:03d}", pip_variant=GLYPH_VARIANT0 + k, fonts=fonts)


#: How many glyph decks there are (``glyph000`` ...).
GLYPH_COUNT = 58
GLYPH_STYLES: tuple[str, ...] = tuple(f"glyph{k:03d}" for k in range(GLYPH_COUNT))

_BY_NAME = {s.name: s for s in STYLES + REAL_STYLES}


@functools.lru_cache(maxsize=None)
def _generated(k: int) -> DeckStyle:
    return generated_style(k)


@functools.lru_cache(maxsize=None)
def _wide(k: int) -> DeckStyle:
    return wide_style(k)


@functools.lru_cache(maxsize=None)
def _glyph(k: int) -> DeckStyle:
    return glyph_style(k)


#: Printed training decks whose courts and aces wear another training deck's art up to their
#: own indices (``artmix_<deck>``, :func:`sueca.datasets.cards.swap_art`): unseen decks'
#: figures crowd the index in ways the readers never saw (Tigullio's touch it), so the readers
#: learn the index against art that is not its own deck's. The partner is 7 decks on.
ARTMIX_STYLES: tuple[str, ...] = tuple(f"artmix_{n}" for n in REAL_TRAIN_STYLES + REAL_MORE_STYLES)


@functools.lru_cache(maxsize=None)
def _artmix(name: str) -> DeckStyle:
    decks = REAL_TRAIN_STYLES + REAL_MORE_STYLES
    base = name[len("artmix_"):]
    if base not in decks:
        raise ValueError(f"unknown deck style {name!r}: artmix_ takes a printed training deck ({', '.join(decks)})")
    partner = _BY_NAME[decks[(decks.index(base) + 7) % len(decks)]]
    return replace(_BY_NAME[base], name=name, art_from=partner.external)


def get_style(name: str | DeckStyle) -> DeckStyle:
    """The style called ``name`` (a DeckStyle is returned as is)."""
    if isinstance(name, DeckStyle):
        return name
    if name.startswith("artmix_"):
        return _artmix(name)
    if name.startswith("gen") and name[3:].isdigit():
        return _generated(int(name[3:]))
    if name.startswith("wide") and name[4:].isdigit():
        return _wide(int(name[4:]))
    if name.startswith("glyph") and name[5:].isdigit():
        return _glyph(int(name[5:]))
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown deck style {name!r}; known: {', '.join(_BY_NAME)}") from None


def usable(style: DeckStyle) -> bool:
    """False for a real-deck style whose art has not been fetched on this machine."""
    if style.external is None:
        return True
    from . import svgdeck

    return svgdeck.available(style.external) and (style.art_from is None or svgdeck.available(style.art_from))


def resolve_styles(styles) -> tuple[DeckStyle, ...]:
    """None -> training styles; "test" -> held-out styles; "glyph" -> the glyph decks;
    "real", "real_train", "real_more", "real_train_all", "real_heldout" -> other artists' decks (all,
    ``REAL_TRAIN_STYLES``, ``REAL_MORE_STYLES``, both, ``REAL_HELDOUT_STYLES``; an error when none is
    cached); "artmix" -> ``ARTMIX_STYLES`` whose decks are cached; else names or DeckStyles.

    Real-deck styles whose art is not cached are left out of the named groups.
    """
    if styles is None or styles == "train":
        return tuple(get_style(n) for n in TRAIN_STYLES if usable(get_style(n)))
    if styles == "test":
        return tuple(_BY_NAME[n] for n in TEST_STYLES if usable(_BY_NAME[n]))
    groups = {"real": None, "real_train": REAL_TRAIN_STYLES, "real_more": REAL_MORE_STYLES,
              "real_train_all": REAL_TRAIN_STYLES + REAL_MORE_STYLES, "real_heldout": REAL_HELDOUT_STYLES}
    if isinstance(styles, str) and styles in groups:
        names = groups[styles]
        out = tuple(s for s in REAL_STYLES if usable(s) and (names is None or s.name in names))
        if not out:
            raise ValueError(f"styles {styles!r}: no such real deck is cached; run 'sueca dataset fetch-heldout-decks'")
        return out
    if styles == "glyph":
        return tuple(get_style(n) for n in GLYPH_STYLES)
    if styles == "artmix":
        out = tuple(s for s in map(get_style, ARTMIX_STYLES) if usable(s))
        if not out:
            raise ValueError("styles 'artmix': no printed training deck is cached with the deck that lends it "
                             "art; run 'sueca dataset fetch-heldout-decks'")
        return out
    if styles == "all":
        return tuple(s for s in STYLES if usable(s)) + tuple(get_style(n) for n in TRAIN_STYLES if n.startswith("gen"))
    if isinstance(styles, (str, DeckStyle)):
        styles = [styles]
    out = tuple(get_style(s) for s in styles)
    if not out:
        raise ValueError("styles: empty list")
    return out


# Debian packages fonts-dejavu, fonts-liberation, fonts-urw-base35 and fonts-freefont-ttf give the
# typefaces named above (the glyph decks' also fonts-noto-core, fonts-texgyre, fonts-texgyre-math,
# fonts-stix, fonts-symbola: TeX Gyre lives under texmf); a missing one falls back to the next
# candidate, then to any font found.
_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts"),
              "/usr/share/texmf/fonts/opentype")


@functools.lru_cache(maxsize=None)
def _font_index() -> dict[str, str]:
    """File name -> path of every TrueType font on the machine."""
    found: dict[str, str] = {}
    dirs = list(_FONT_DIRS)
    try:  # matplotlib ships DejaVu; use it when the system has no fonts.
        import importlib.util

        spec = importlib.util.find_spec("matplotlib")
        if spec and spec.origin:
            dirs.append(str(Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"))
    except Exception:  # pragma: no cover - optional
        pass
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for root, _, files in os.walk(d):
            for f in files:
                if f.lower().endswith((".ttf", ".otf")):
                    found.setdefault(f, os.path.join(root, f))
    return found


def find_font(candidates: tuple[str, ...]) -> str | None:
    """Path of the first candidate font present, else any bold sans, else None."""
    idx = _font_index()
    for name in candidates + ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf"):
        if name in idx:
            return idx[name]
    return next(iter(sorted(idx.values())), None)
