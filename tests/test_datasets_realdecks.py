"""Held-out real decks: index measured from ink, whole cards out of a theme's render, kept out of training."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from sueca.datasets import realdecks, svgdeck
from sueca.datasets.styles import REAL_STYLES, TEST_STYLES, TRAIN_STYLES, resolve_styles


def _card(w=366, h=512):
    img = np.zeros((h, w, 4), np.uint8)
    img[..., :3] = 255
    img[..., 3] = 255
    cv2.rectangle(img, (1, 1), (w - 2, h - 2), (0, 0, 0, 255), 3)  # printed outline
    return img


def _ink_box(img, x0, y0, x1, y1):
    ink = img[y0:y1, x0:x1, :3].sum(-1) < 600
    ys, xs = np.nonzero(ink)
    return x0 + xs.min(), y0 + ys.min(), x0 + xs.max(), y0 + ys.max()


def test_index_quad_takes_rank_and_suit_not_the_pip_beside_them():
    img = _card()
    cv2.putText(img, "10", (16, 62), cv2.FONT_HERSHEY_SIMPLEX, 1.5, (0, 0, 0, 255), 4)
    cv2.circle(img, (40, 90), 14, (0, 0, 0, 255), -1)          # the index's suit sign
    cv2.circle(img, (150, 50), 30, (0, 0, 0, 255), -1)         # a big pip level with the rank
    quad = np.asarray(realdecks.index_quad(img))
    rx0, ry0, rx1, _ = _ink_box(img, 10, 10, 110, 70)
    assert quad[:, 0].min() <= rx0 and quad[:, 0].max() >= rx1       # both digits of the 10
    assert quad[:, 1].min() <= ry0 and quad[:, 1].max() >= 90 + 14  # down to the suit sign's foot
    assert quad[:, 0].max() < 150 - 30                               # not the pip


def test_index_quad_of_a_blank_corner_is_an_error():
    with pytest.raises(ValueError, match="no index ink"):
        realdecks.index_quad(_card())


def test_whole_card_cuts_the_card_out_of_overflowing_art():
    canvas = np.zeros((700, 500, 4), np.uint8)
    canvas[100:612, 60:426] = _card()
    cv2.circle(canvas, (470, 40), 20, (0, 0, 255, 255), -1)  # art drawn past the card, clipped when printed
    card = realdecks._whole_card(canvas, (366, 512))
    assert card is not None and card.shape[:2] == (512, 366)
    assert realdecks._whole_card(canvas, (300, 512)) is None  # not the deck's card size: refused
    assert realdecks._whole_card(np.zeros((50, 50, 4), np.uint8), None) is None


def test_real_styles_never_train_and_need_their_cache(tmp_path, monkeypatch):
    names = {s.name for s in REAL_STYLES}
    assert names and not names & set(TRAIN_STYLES) and not names & set(TEST_STYLES)
    assert all(not s.restyle for s in REAL_STYLES)  # the art as printed
    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path))
    assert not any(s.name in names for s in resolve_styles(None))
    with pytest.raises(ValueError, match="fetch-heldout-decks"):
        resolve_styles("real")
    with pytest.raises(ValueError, match="unknown held-out deck"):
        realdecks.fetch_heldout_decks(["no_such_deck"])


def test_a_cached_real_deck_is_drawn_as_printed(tmp_path, monkeypatch):
    from sueca.datasets.cards import render_card_face

    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path))
    deck = "bellot"
    folder = tmp_path / deck
    manifest = stand_in_deck(folder)
    svgdeck._manifest.cache_clear()
    try:
        assert realdecks.available(deck) and [s.name for s in resolve_styles("real")] == ["real_bellot"]
        face, quads = render_card_face("7H", "real_bellot", 512)
        stored = cv2.imread(str(folder / "7H.png"), cv2.IMREAD_UNCHANGED)
        assert np.array_equal(face[200:300, 150:250], stored[200:300, 150:250])
        assert np.allclose(quads[0], np.asarray(manifest["cards"]["7H"]["index_quad"]), atol=0.5)
        assert np.allclose(quads[1], np.array([366, 512]) - quads[0])  # the other corner, turned
    finally:
        from sueca.datasets import cards

        svgdeck._manifest.cache_clear()
        cards._render_face.cache_clear()  # the stand-in deck must not outlive this test


def stand_in_deck(folder):
    """52 plain cards with their codes printed in the corner, cached as ``realdecks`` caches a deck."""
    folder.mkdir(parents=True)
    manifest = {"package": "test", "licence": "test", "height": 512, "cards": {}, "backs": ["back.png"]}
    for k, code in enumerate(realdecks.CODES):
        img = _card()
        cv2.putText(img, code, (14, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 0, 200 if code[-1] in "HD" else 0, 255), 3)
        img[200:300, 150:250, :3] = (30 + k, 90, 200)  # a colour restyling would change
        cv2.imwrite(str(folder / f"{code}.png"), img)
        manifest["cards"][code] = {"file": f"{code}.png", "index_quad": realdecks.index_quad(img)}
    cv2.imwrite(str(folder / "back.png"), _card())
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return manifest


def test_real_style_groups_split_training_from_held_out(tmp_path, monkeypatch):
    from sueca.datasets.styles import REAL_TRAIN_STYLES

    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path))
    stand_in_deck(tmp_path / "kde_standard")
    stand_in_deck(tmp_path / "bellot")
    svgdeck._manifest.cache_clear()
    assert set(REAL_TRAIN_STYLES) < {s.name for s in REAL_STYLES}
    assert [s.name for s in resolve_styles("real_train")] == ["real_kde_standard"]
    assert [s.name for s in resolve_styles("real_heldout")] == ["real_bellot"]
    assert len(resolve_styles("real")) == 2
    with pytest.raises(ValueError, match="real_more"):
        resolve_styles("real_more")  # none of them cached
    stand_in_deck(tmp_path / "gnome_anglo")
    svgdeck._manifest.cache_clear()
    assert [s.name for s in resolve_styles("real_more")] == ["real_gnome_anglo"]
    assert [s.name for s in resolve_styles("real_train_all")] == ["real_kde_standard", "real_gnome_anglo"]
    assert [s.name for s in resolve_styles("real_heldout")] == ["real_bellot"]  # a new deck is not held out
    svgdeck._manifest.cache_clear()


def test_added_training_decks_never_hold_the_held_out_art():
    from sueca.datasets.styles import REAL_HELDOUT_STYLES, REAL_MORE_STYLES, REAL_TRAIN_STYLES

    training = set(REAL_TRAIN_STYLES) | set(REAL_MORE_STYLES)
    assert not training & set(REAL_HELDOUT_STYLES)
    assert training | set(REAL_HELDOUT_STYLES) == {s.name for s in REAL_STYLES}
    # GNOME ships Bellot's and Tigullio's art too: those themes must stay out
    assert not any(t in realdecks.GNOME_THEMES for t in ("bellot", "tigullio", "paris"))
    gnome = [d for d, src in realdecks.DECKS.items() if src.kind == "deb-gnome"]
    assert len(gnome) == len(realdecks.GNOME_THEMES) and all(realdecks.DECKS[d].licence == "GPL-3+" for d in gnome)


def test_gnome_themes_name_their_cards_suit_first():
    assert realdecks._element("QH", suit_first=True) == "heart_queen"
    assert realdecks._element("AS", suit_first=False) == "1_spade"


def test_model_card_reports_real_decks():
    from sueca.vision.train_card import _real_data, _real_row

    assert _real_data({}) == "" and _real_row({}) == ""
    text = _real_data({"real_tuned": {"epochs": 4, "scenes": 300, "decks": ["real_kde_standard"]}})
    assert "300 scenes" in text and "`real_kde_standard`" in text and "300 of the training styles" in text
    both = _real_data({"real_tuned": {"epochs": 4, "scenes": 400,
                                      "decks": ["glyph000", "glyph001", "glyph002", "real_kde_dondorf"]}})
    assert "3 generated decks" in both and "`glyph000`-`glyph002`" in both and "`real_kde_dondorf`" in both
    assert "800 of the training styles" in both and "`glyph001`" not in both and "jittered" not in both
    jittered = _real_data({"real_tuned": {"epochs": 4, "scenes": 400, "decks": ["glyph000"], "shape_jitter": 0.25}})
    assert "jittered with probability 0.25" in jittered
    row = _real_row({"real_heldout": {"styles": ["real_bellot"], "scenes": 100, "seeds": [970000, 970099],
                                      "recall_readable": 0.25, "read_right": 5, "readable_cards": 20,
                                      "recall_whole": 0.5, "wrong_identities": 1, "reported_identities": 6,
                                      "locator_recall": 0.9}})
    assert "real_bellot" in row and "(5/20)" in row and "wrong 1/6" in row and row.endswith("|\n")


def test_fetch_command_names_an_unknown_deck(capsys):
    from sueca.cli import main

    assert main(["dataset", "fetch-heldout-decks", "no_such_deck"]) == 2
    err = capsys.readouterr().err
    assert "unknown held-out deck 'no_such_deck'" in err and "bellot" in err


def _npm_tar(files: dict[str, str]):
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    buf.seek(0)
    return tarfile.open(fileobj=buf)


def test_a_deck_whose_art_licence_is_not_the_expected_one_is_refused():
    src = realdecks.DECKS["aguilar"]
    path, phrase, _ = src.art_licence
    good = {"package/package.json": json.dumps({"license": "MIT"}), path: f"header\n{phrase}, 29 June 2007\n"}
    assert realdecks.check_licences(src, _npm_tar(good)) is not None
    with pytest.raises(RuntimeError, match="does not name the expected licence"):
        realdecks.check_licences(src, _npm_tar({**good, path: "All rights reserved"}))
    with pytest.raises(RuntimeError, match="card art's licence is unknown"):
        realdecks.check_licences(src, _npm_tar({"package/package.json": good["package/package.json"]}))
    with pytest.raises(RuntimeError, match="is not MIT"):
        realdecks.check_licences(src, _npm_tar({**good, "package/package.json": json.dumps({"license": "UNLICENSED"})}))


def test_artmix_decks_wear_another_decks_art_up_to_their_own_indices(tmp_path, monkeypatch):
    from sueca.datasets import cards
    from sueca.datasets.cards import render_card_face
    from sueca.datasets.styles import ARTMIX_STYLES, REAL_MORE_STYLES, REAL_TRAIN_STYLES, get_style

    monkeypatch.setenv("SUECA_DECKS_DIR", str(tmp_path))
    assert len(ARTMIX_STYLES) == len(REAL_TRAIN_STYLES + REAL_MORE_STYLES)
    assert not set(ARTMIX_STYLES) & set(TRAIN_STYLES) and "artmix_real_bellot" not in ARTMIX_STYLES
    with pytest.raises(ValueError, match="printed training deck"):
        get_style("artmix_real_bellot")  # a held-out deck never lends or wears art
    stand_in_deck(tmp_path / "kde_standard")
    svgdeck._manifest.cache_clear()
    try:
        with pytest.raises(ValueError, match="fetch-heldout-decks"):
            resolve_styles("artmix")  # its partner deck is not cached
        partner = get_style("artmix_real_kde_standard").art_from
        assert partner != "kde_standard" and f"real_{partner}" in REAL_TRAIN_STYLES + REAL_MORE_STYLES
        other = stand_in_deck(tmp_path / partner)
        for code in other["cards"]:  # the partner's art: one colour over the whole face
            img = cv2.imread(str(tmp_path / partner / f"{code}.png"), cv2.IMREAD_UNCHANGED)
            img[6:506, 6:360, :3] = (10, 200, 10)
            cv2.imwrite(str(tmp_path / partner / f"{code}.png"), img)
        svgdeck._manifest.cache_clear()
        assert [s.name for s in resolve_styles("artmix")] == ["artmix_real_kde_standard"]
        own, quads = render_card_face("KH", "real_kde_standard", 512)
        mixed, mixed_quads = render_card_face("KH", "artmix_real_kde_standard", 512)
        assert np.array_equal(quads, mixed_quads)
        x0, y0 = np.floor(quads[0].min(0)).astype(int)
        x1, y1 = np.ceil(quads[0].max(0)).astype(int)
        assert np.array_equal(mixed[y0:y1, x0:x1], own[y0:y1, x0:x1])  # its own index, as printed
        assert (mixed[250, 183, :3] == (10, 200, 10)).all() and not (own[250, 183, :3] == (10, 200, 10)).all()
        assert (mixed[y1 + 8, x0 + 8, :3] == (10, 200, 10)).all()  # the art right under the index
        assert np.array_equal(mixed[..., 3], own[..., 3])  # its own outline
        pip, _ = render_card_face("7H", "artmix_real_kde_standard", 512)
        assert np.array_equal(pip, render_card_face("7H", "real_kde_standard", 512)[0])  # pips keep their deck's
    finally:
        svgdeck._manifest.cache_clear()
        cards._render_face.cache_clear()
