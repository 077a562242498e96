"""Synthetic scenes: labels match pixels, occlusion decides readability, determinism, coverage."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sueca.datasets.camera import Camera
from sueca.datasets.cards import render_card_back, render_card_face
from sueca.datasets.layout import Placement
from sueca.datasets.scene import READABLE_INDEX_FRACTION, CardLabel, render_scene
from sueca.datasets.styles import STYLES, TEST_STYLES, TRAIN_STYLES, get_style, usable
from sueca.vision.classes import CARD_CODES

KEY = (0, 255, 0)  # a flat green table that no card pixel has


def _mask(poly, shape):
    m = np.zeros(shape, np.uint8)
    cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
    return m.astype(bool)


def _is_key(img):
    return (img[..., 1] > 240) & (img[..., 0] < 15) & (img[..., 2] < 15)


@pytest.mark.parametrize("style", [s.name for s in STYLES if usable(s)] + ["gen005", "wide000", "wide017", "wide031", "glyph000", "glyph007"])
def test_card_face_anatomy(style):
    img, quads = render_card_face("10D", style, 400)
    h, w = img.shape[:2]
    assert img.shape[2] == 4 and h == 400 and 0.6 < w / h < 0.75
    # Rounded corners: the very corner is transparent, the middle opaque.
    assert img[0, 0, 3] == 0 and img[h - 1, w - 1, 3] == 0 and img[h // 2, w // 2, 3] == 255
    # Two index quads inside the card, 180 degrees apart, each with ink (rank + suit).
    assert quads.shape == (2, 4, 2)
    assert np.allclose(quads[1], np.array([w, h]) - quads[0])
    for q in quads:
        assert (q >= 0).all() and (q[:, 0] <= w).all() and (q[:, 1] <= h).all()
        x0, y0 = np.floor(q.min(0)).astype(int)
        x1, y1 = np.ceil(q.max(0)).astype(int)
        patch = img[y0:y1, x0:x1, :3].astype(int)
        stock = np.array(get_style(style).stock)
        ink = np.abs(patch - stock).sum(-1) > 120
        assert 0.08 < ink.mean() < 0.8
    # The index sits near the top-left corner, clear of the card's middle.
    assert quads[0][:, 0].max() < 0.35 * w and quads[0][:, 1].max() < 0.4 * h


def test_every_card_renders_and_backs_differ():
    faces = {code: render_card_face(code, "classic", 120)[0] for code in CARD_CODES}
    assert len({f.tobytes() for f in faces.values()}) == 52
    back = render_card_back("classic", 120)
    assert back.shape[2] == 4 and back[60, 40, :3].tolist() != faces["AS"][60, 40, :3].tolist()


def test_bad_code_is_a_clear_error():
    with pytest.raises(ValueError, match="bad card code '1Z'"):
        render_card_face("1Z", "classic", 100)
    with pytest.raises(ValueError, match="unknown deck style"):
        render_card_face("AS", "nope", 100)


def test_shapes_and_types():
    sc = render_scene(11, size=(320, 240))
    assert sc.image.shape == (240, 320, 3) and sc.image.dtype == np.uint8
    assert sc.cards
    for c in sc.cards:
        assert c.code in CARD_CODES
        assert c.corners.shape == (4, 2) and c.corners.dtype == np.float32
        assert c.index_quads.shape == (2, 4, 2) and c.index_visible.shape == (2,)
        assert 0 <= c.visible_fraction <= 1
        assert not c.readable or (c.face_up and c.index_visible.max() >= READABLE_INDEX_FRACTION)
        assert (c.index_height_px > 1) == c.face_up
        j, j2 = c.to_json(), CardLabel.from_json(c.to_json()).to_json()
        assert abs(j.pop("index_height_px") - j2.pop("index_height_px")) <= 0.15 and j == j2


def test_boxes_cover_the_rendered_cards():
    """On a flat key-coloured table without light effects, card pixels are exactly inside the outlines."""
    for seed in range(6):
        sc = render_scene(seed, size=(320, 320), table_colour=KEY, photometric=False, distortion=False,
                          distractors=False, shadows=False)
        inside = np.zeros(sc.image.shape[:2], bool)
        for c in sc.cards:
            inside |= _mask(c.corners, inside.shape)
        key = _is_key(sc.image)
        grown = cv2.dilate(inside.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        # Nothing but table outside the (slightly grown) outlines...
        assert key[~grown].mean() > 0.999
        # ...and card, not table, well inside each fully visible outline.
        for c in sc.cards:
            if c.visible_fraction > 0.99:
                core = cv2.erode(_mask(c.corners, inside.shape).astype(np.uint8), np.ones((5, 5), np.uint8))
                assert core.sum() > 0 and key[core.astype(bool)].mean() < 0.01, c.code


def _placed(cards):
    cam = Camera.overhead((400, 400))
    return render_scene(0, size=(400, 400), camera=cam, table_colour=KEY, photometric=False, shadows=False,
                        placements=cards, unit=120.0)


def test_hidden_indices_are_not_readable():
    # A 7H upright at the centre; another card on top of its top-left index only.
    base = Placement("7H", "classic", 200, 200, 0)
    w = 120 * 0.716
    one = _placed([base, Placement("KS", "classic", 200 - w * 0.75, 200 - 60 - 30, 0)])
    seven = next(c for c in one.cards if c.code == "7H")
    assert seven.index_visible[0] < 0.2 and seven.index_visible[1] > 0.95
    assert seven.readable  # the other corner still shows
    # Cover the second index too: no longer readable, though most of the card shows.
    both = _placed([base, Placement("KS", "classic", 200 - w * 0.75, 200 - 60 - 30, 0),
                    Placement("QD", "classic", 200 + w * 0.75, 200 + 60 + 30, 0)])
    seven = next(c for c in both.cards if c.code == "7H")
    assert seven.index_visible.max() < 0.2 and not seven.readable
    assert seven.visible_fraction > 0.5
    # The pixels agree: the hidden index region shows the covering card, not the 7H's red ink.
    q = seven.index_quads[0]
    region = both.image[_mask(q, both.image.shape[:2])]
    red = (region[:, 2] > 150) & (region[:, 1] < 90)
    assert red.mean() < 0.02
    free = _placed([base]).cards[0]
    region = _placed([base]).image[_mask(free.index_quads[0], both.image.shape[:2])]
    assert ((region[:, 2] > 150) & (region[:, 1] < 90)).mean() > 0.05


def test_face_down_cards_are_never_readable():
    sc = _placed([Placement("AS", "classic", 200, 200, 30, face_up=False)])
    c = sc.cards[0]
    assert not c.face_up and not c.readable and c.visible_fraction > 0.99


def test_deterministic_per_seed():
    a, b, c = render_scene(5, size=(256, 256)), render_scene(5, size=(256, 256)), render_scene(6, size=(256, 256))
    assert np.array_equal(a.image, b.image)
    assert [x.to_json() for x in a.cards] == [x.to_json() for x in b.cards]
    assert not np.array_equal(a.image, c.image)


def test_every_class_appears_and_test_styles_stay_out():
    seen, styles, readable = set(), set(), 0
    for seed in range(70):
        sc = render_scene(seed, size=(192, 192), photometric=False)
        for c in sc.cards:
            styles.add(c.style)
            if c.face_up:
                seen.add(c.code)
            readable += c.readable
    assert seen == set(CARD_CODES)
    assert styles <= set(TRAIN_STYLES) and not styles & set(TEST_STYLES)
    assert len(styles) >= 4 and readable > 100


def test_test_styles_option():
    sc = render_scene(1, size=(192, 192), styles="test")
    assert {c.style for c in sc.cards} <= set(TEST_STYLES)


def test_svg_deck_converter_and_absent_cache(tmp_path, monkeypatch):
    from sueca.datasets import svgdeck
    from sueca.datasets.styles import resolve_styles

    js = ('const SvgH7 = _ref => {\n  let {\n    title,\n    titleId,\n    ...props\n  } = _ref;\n'
          '  return /*#__PURE__*/React.createElement("svg", _extends({\n    xmlns: "http://www.w3.org/2000/svg",\n'
          '    viewBox: "-120 -168 240 336",\n    "aria-labelledby": titleId\n  }, props), title ? /*#__PURE__*/'
          'React.createElement("title", {\n    id: titleId\n  }, title) : null, /*#__PURE__*/React.createElement('
          '"rect", {\n    width: 239,\n    x: -119.5,\n    strokeWidth: 2,\n    xlinkHref: "#a"\n  }));\n};\n')
    svgs = svgdeck.jsx_to_svgs(js)
    assert svgs == {"SvgH7": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="-120 -168 240 336">'
                             '<rect width="239" x="-119.5" stroke-width="2" xlink:href="#a"></rect></svg>'}
    assert svgdeck._code("SvgH7") == "7H" and svgdeck._code("SvgC10") == "10C" and svgdeck._code("SvgB1") is None
    monkeypatch.setenv("SUECA_DECK_CACHE", str(tmp_path))
    assert not svgdeck.available()
    assert all(s.external is None for s in resolve_styles(None))


def test_crops_are_upright_cards_and_indices():
    from sueca.datasets.crops import card_crops, index_crops

    sc = _placed([Placement("7H", "classic", 200, 200, 137)])
    (card,) = card_crops(sc, size=(72, 100))
    assert card.code == "7H" and card.readable and card.image.shape == (100, 72, 3)
    # Upright: the top-left corner holds the red index, the card's middle is mostly stock.
    tl = card.image[2:25, 2:18].reshape(-1, 3)
    assert ((tl[:, 2] > 150) & (tl[:, 1] < 90)).mean() > 0.05
    idx = index_crops(sc, size=(24, 48))
    assert len(idx) == 2 and all(c.readable and c.image.shape == (48, 24, 3) for c in idx)
    # Both indices read the same way up: their crops look alike (and unlike a flipped one).
    a, b = (cv2.cvtColor(c.image, cv2.COLOR_BGR2GRAY).astype(float).ravel() for c in idx)
    flipped = cv2.cvtColor(idx[1].image[::-1, ::-1], cv2.COLOR_BGR2GRAY).astype(float).ravel()
    assert np.corrcoef(a, b)[0, 1] > 0.95 and np.corrcoef(a, flipped)[0, 1] < 0.5


def test_photo_textures_are_optional(tmp_path, monkeypatch):
    from sueca.datasets import phototex
    from sueca.datasets.textures import KINDS, table_kinds

    monkeypatch.setenv("SUECA_TEXTURE_CACHE", str(tmp_path))
    assert not phototex.available() and table_kinds() == KINDS
    fetchers = 'def gravel():\n    """licensed under the Creative Commons CC0 License."""\n\ndef coins():\n    """x"""\n'
    assert phototex._licence_ok(fetchers, "gravel") and not phototex._licence_ok(fetchers, "coins")


def test_drawn_suit_signs_differ_by_variant_and_keep_their_colour_and_place():
    from sueca.datasets.pips import suit_mask

    for suit in "SHDC":
        a, b = suit_mask(suit, 48, 4), suit_mask(suit, 48, 5)
        assert a.shape == (48, 48) and not np.array_equal(a, b)  # proportions drawn per variant
        assert np.array_equal(a, suit_mask(suit, 48, 4))         # and fixed by it
        assert 0.15 < a.mean() / 255 < 0.75
        ys, xs = np.nonzero(a > 127)
        assert abs(xs.mean() - 23.5) < 4  # upright and centred: a stem stays under its body
    spade, club = suit_mask("S", 48, 7), suit_mask("C", 48, 7)
    assert np.mean((spade > 127) != (club > 127)) > 0.1
    assert get_style("wide003").pip_variant >= 4 and all(get_style(n).pip_variant < 4 for n in TRAIN_STYLES[:20])


def _top_width(mask) -> float:
    """Ink width a tenth of the way down the sign, over its widest row: small for a spade's
    point or a diamond's, large for a club's top leaf or a heart's lobes."""
    m = mask > 127
    ys = np.nonzero(m.any(1))[0]
    return m[int(ys.min() + 0.1 * (ys.max() - ys.min()))].sum() / m.sum(1).max()


def test_typeface_suit_signs_are_the_right_suits():
    from sueca.datasets.pips import GLYPH_VARIANT0, glyph_fonts, suit_mask

    fonts = glyph_fonts()
    if not fonts:
        pytest.skip("no typeface with suit signs on this machine (fonts-dejavu gives some)")
    for k, name in enumerate(fonts):
        spade, club, heart, diamond = (suit_mask(s, 64, GLYPH_VARIANT0 + k) for s in "SCHD")
        # a font with its spade and club swapped (FreeSerif Bold) would teach wrong suits
        assert _top_width(spade) < 0.3 < _top_width(club), name
        assert _top_width(heart) > 0.6 and _top_width(diamond) < 0.35, name
        for m in (spade, club, heart, diamond):
            assert 0.15 < m.mean() / 255 < 0.8, name
            assert abs(np.nonzero(m > 127)[1].mean() - 31.5) < 5, name  # centred


def test_glyph_decks_use_typeface_suits_and_fall_back_to_drawn_ones(monkeypatch):
    from sueca.datasets import pips

    deck = get_style("glyph005")
    assert deck.name == "glyph005" and deck.pip_variant == pips.GLYPH_VARIANT0 + 5 and deck == get_style("glyph005")
    assert deck.name not in TRAIN_STYLES
    from sueca.datasets.styles import GLYPH_STYLES, resolve_styles

    assert [s.name for s in resolve_styles("glyph")] == list(GLYPH_STYLES) and deck in resolve_styles("glyph")
    monkeypatch.setattr(pips, "glyph_fonts", lambda: ())
    a, b = np.zeros((48, 48), np.uint8), np.zeros((48, 48), np.uint8)
    pips._draw(a, "S", pips.GLYPH_VARIANT0 + 5)
    pips._draw(b, "S", 4 + 5)
    assert np.array_equal(a, b) and a.mean() > 20


def test_a_label_read_back_from_json_counts_as_it_did():
    """A card 98.96% in view is not lying whole, fresh or read back from a saved label (a label
    rounded to 0.99 made a cached scene's whole cards outnumber a fresh one's)."""
    import json

    from sueca.datasets.scene import CardLabel
    from sueca.vision.train_eval import lies_whole

    quad = np.array([[0, 0], [60, 0], [60, 90], [0, 90]], np.float32)
    card = CardLabel("7H", quad, True, np.stack([quad[:2].repeat(2, 0)] * 2), np.array([0.79951, 1.0], np.float32),
                     True, 0.98964, "classic")
    back = CardLabel.from_json(json.loads(json.dumps(card.to_json())))
    assert not lies_whole(card) and not lies_whole(back)
    assert back.visible_fraction < 0.99 and float(back.index_visible[0]) < 0.8
    whole = CardLabel("7H", quad, True, card.index_quads, np.array([0.8, 1.0], np.float32), True, 0.995, "classic")
    assert lies_whole(CardLabel.from_json(json.loads(json.dumps(whole.to_json()))))
