"""Small cards in a large photo read again in tiles (:mod:`sueca.vision.tiles`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from sueca.vision.detections import UNREADABLE, CardDetections, outline_boxes
from sueca.vision.tiles import TILE_SIDE, TileView, _cut, merge, tile_windows, tiled_look, wants_tiles

SIZE = (4032, 3024)


def cards(outlines, codes, conf=0.99, size=SIZE):
    q = np.asarray(outlines, np.float32).reshape(-1, 4, 2)
    n = len(q)
    return CardDetections(outline_boxes(q, size), tuple(codes), np.full(n, conf, np.float32),
                          np.full(n, 0.8, np.float32), q)


def rect(x, y, w=100, h=140):
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def test_tiles_cover_the_frame_and_overlap():
    wins = tile_windows(*SIZE)
    assert len(wins) == 4
    cover = np.zeros(SIZE[::-1], bool)
    for x0, y0, x1, y1 in wins:
        assert (x1 - x0, y1 - y0) == (round(TILE_SIDE * SIZE[0]), round(TILE_SIDE * SIZE[1]))
        cover[y0:y1, x0:x1] = True
    assert cover.all()
    # neighbours overlap by a fifth of the frame: a card up to that size lies whole in one
    assert wins[0][2] - wins[1][0] >= 0.19 * SIZE[0] and wins[0][3] - wins[2][1] >= 0.19 * SIZE[1]


def test_only_large_photos_with_small_cards_are_tiled():
    small = cards([rect(1000, 1000, 150, 210)], ["2S"])
    large = cards([rect(1000, 1000, 450, 630)], ["2S"])
    assert wants_tiles(small, SIZE, 1600)
    assert wants_tiles(large, SIZE, 1600, "always") and wants_tiles(large, (1280, 960), 1600, "always")
    assert not wants_tiles(large, SIZE, 1600)
    assert wants_tiles(CardDetections.empty(), SIZE, 1600)  # nothing found: look closer
    # a frame the recognizer reads at (nearly) full size gains nothing from tiles
    assert not wants_tiles(CardDetections.empty(), (1280, 960), 1600)
    assert not wants_tiles(CardDetections.empty(), (1920, 1080), 1600)
    assert not wants_tiles(small, SIZE, None)


def test_a_card_cut_by_an_inner_edge_is_left_to_the_next_tile():
    win = tile_windows(*SIZE)[0]  # top left: its right and bottom edges are inner
    tw, th = win[2] - win[0], win[3] - win[1]
    found = cards([rect(0, 0), rect(tw - 60, 500), rect(500, th - 100), rect(900, 900)], ["AS", "2S", "3S", "4S"],
                  size=(tw, th))
    assert _cut(found, win, SIZE).tolist() == [False, True, True, False]


def test_merge_reads_unread_cards_and_refuses_two_readings():
    base = cards([rect(100, 100), rect(400, 100), rect(700, 100)], [UNREADABLE, "5H", "6H"])
    extra = cards([rect(102, 101), rect(401, 100), rect(700, 101), rect(1500, 900)], ["7C", "5H", "6D", "KD"],
                  conf=0.995)
    out = merge(base, extra)
    assert out.codes == ("7C", "5H", UNREADABLE, "KD")
    assert out.confidence[2] == np.float32(0.8)  # an unreadable card's confidence is the locator's
    assert np.allclose(out.corners[0], extra.corners[0]) and np.allclose(out.corners[3], extra.corners[3])


def test_merge_matches_a_piles_cards_one_to_one():
    # two cards of a pile overlap by more than SAME_PLACE; each tile card goes to its own
    top, under = rect(100, 100), rect(112, 110)
    base = cards([top, under], ["QS", "JD"])
    extra = cards([rect(113, 110), rect(101, 100)], ["JD", "QS"])
    assert merge(base, extra).codes == ("QS", "JD")


def coded_frame(w, h):
    """A frame whose every pixel tells its own place: x, y low bytes and their high nibbles."""
    ys, xs = np.mgrid[0:h, 0:w]
    return np.stack([xs & 255, ys & 255, (xs >> 8) | ((ys >> 8) << 4)], axis=-1).astype(np.uint8)


class Tiled:
    """Reads each tile as the cards at fixed frame places that lie in it, in the tile's pixels,
    leaving out the boxes its view leaves out (``use_view``), as the recognizer does."""

    def __init__(self, frame_cards, use_view=True):
        self.frame_cards, self.seen, self.use_view, self.asked = frame_cards, [], use_view, []

    def __call__(self, tile, view):
        b0, b1, b2 = (int(v) for v in tile[0, 0])
        x0, y0 = b0 | ((b2 & 15) << 8), b1 | ((b2 >> 4) << 8)
        self.seen.append((x0, y0))
        h, w = tile.shape[:2]
        assert view.size == (w, h)
        q = self.frame_cards.corners - np.float32([x0, y0])
        # a card partly in the tile is found cut at its edge, as a locator would
        inside = (q.max(axis=1) > 0).all(axis=1) & (q[..., 0].min(axis=1) < w) & (q[..., 1].min(axis=1) < h)
        q = np.clip(q[inside], 0, [w - 1, h - 1])
        codes = [c for c, k in zip(self.frame_cards.codes, inside) if k]
        if self.use_view:
            keep = ~view.cut(q)
            q, codes = q[keep], [c for c, k in zip(codes, keep) if k]
            at = view.match(q) if view.codes else np.full(len(q), -1)
            self.asked += [c for c, a in zip(codes, at) if a < 0]
            codes = [c if a < 0 else view.codes[a] for c, a in zip(codes, at)]  # handed: as the image read it
        else:
            self.asked += codes
        return cards(q, codes, size=(w, h))


def test_tiled_look_gives_each_card_once_in_frame_pixels():
    w, h = SIZE
    # one card in the middle lies whole in all four tiles; one near a corner in one; one is cut
    # by the first tile's inner edge and lies whole in the second
    x_cut = tile_windows(w, h)[0][2] - 50
    truth = cards([rect(1950, 1450), rect(200, 200), rect(x_cut, 300)], ["AH", "7S", "KD"])
    read = Tiled(truth)
    out = tiled_look(read, coded_frame(w, h), CardDetections.empty())
    assert sorted(read.seen) == sorted((x0, y0) for x0, y0, _, _ in tile_windows(w, h))
    assert sorted(out.codes) == ["7S", "AH", "KD"]
    got = {c: out.corners[i] for i, c in enumerate(out.codes)}
    for i, code in enumerate(truth.codes):
        assert np.allclose(got[code], truth.corners[i]), code


def test_a_tile_takes_the_cards_the_whole_image_read_and_reads_none_its_inner_edges_cut():
    w, h = SIZE
    x_cut = tile_windows(w, h)[0][2] - 50
    truth = cards([rect(1950, 1450), rect(200, 200), rect(x_cut, 300)], ["AH", "7S", "KD"])
    whole = cards([rect(1951, 1451), rect(200, 200)], ["AH", UNREADABLE])  # AH read, 7S not
    read = Tiled(truth)
    out = tiled_look(read, coded_frame(w, h), whole, hand_read=True)
    # AH lies in all four tiles and none reads it again; 7S and KD (whole in the second tile) once each
    assert sorted(read.asked) == ["7S", "KD"]
    assert sorted(out.codes) == ["7S", "AH", "KD"]
    # the same cards as when every tile reads every box and the merge sorts them out
    every = Tiled(truth, use_view=False)
    assert sorted(tiled_look(every, coded_frame(w, h), whole).codes) == sorted(out.codes)
    assert sorted(every.asked) == ["7S", "AH", "AH", "AH", "AH", "KD", "KD"]  # KD cut in the first tile
    # as installed: only the cut box is left out
    edges = Tiled(truth)
    assert sorted(tiled_look(edges, coded_frame(w, h), whole).codes) == sorted(out.codes)
    assert sorted(edges.asked) == ["7S", "AH", "AH", "AH", "AH", "KD"]


def test_a_tile_view_scales_with_its_tile():
    q = np.asarray([rect(1000, 800, 200, 280)], np.float32)
    view = TileView(q, (True, False, False, True), (2419, 1814))
    half = view.scaled(1600 / 2419, 1210 / 1814)
    assert half.size == (1600, 1210) and half.inner == view.inner
    assert half.match(q * np.float32([1600 / 2419, 1210 / 1814])).tolist() == [0]  # the read card
    # at the tile's own scale it lies elsewhere: a card of its own, clear of the edges
    assert half.match(q).tolist() == [-1] and half.cut(q).tolist() == [False]
    bottom = np.asarray([rect(100, 1210 - 150, 100, 149.5)], np.float32)
    assert half.cut(bottom).tolist() == [True]  # on the resized tile's inner bottom edge
    assert view.cut(bottom).tolist() == [False] and view.match(bottom).tolist() == [-1]


def test_small_cards_in_a_12_mp_photo_are_read_in_tiles():
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import render
    from sueca.vision.train_eval import match

    scene = render(1000001, SIZE, "test", card_frac=(0.035, 0.06))  # 6 read whole, 8 in tiles
    rec = load_recognizer()
    rec.tiles = None
    before = rec(scene.image)
    rec.tiles = "small"
    after = rec(scene.image)

    def right(dets):
        pairs = dict(match(dets, scene.cards))
        ok = wrong = 0
        for i, code in enumerate(dets.codes):
            if code == UNREADABLE:
                continue
            j = pairs.get(i)
            if j is not None and scene.cards[j].face_up and scene.cards[j].code == code:
                ok += 1
            else:
                wrong += 1
        return ok, wrong

    (ok0, _), (ok1, wrong1) = right(before), right(after)
    assert wrong1 == 0
    assert ok1 >= ok0 + 2, (ok0, ok1)


def test_sueca_detect_reads_a_12_mp_jpegs_small_cards_from_a_finer_decoding(tmp_path):
    import cv2

    from sueca.commands.detect import detect_entry
    from sueca.hardware import images
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import render

    scene = render(1000001, SIZE, "test", card_frac=(0.035, 0.06))
    path = tmp_path / "far.jpg"
    cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    truth = {c.code for c in scene.cards if c.face_up and c.readable}
    rec = load_recognizer()
    decoded = []
    read = images.read_image

    def spy(p, at_least=None):
        picture = read(p, at_least=at_least)
        decoded.append(picture.image.shape[:2])
        return picture

    images.read_image = spy
    try:
        rec.tiles = None
        plain = [c["card"] for c in detect_entry(rec, str(path))["cards"]]
        assert decoded == [(1512, 2016)]  # decoded at a half: the 1600 px read needs no more
        rec.tiles = "small"
        decoded.clear()
        entry = detect_entry(rec, str(path))
    finally:
        images.read_image = read
    tiled = [c["card"] for c in entry["cards"]]
    assert decoded == [(1512, 2016), (3024, 4032)]  # then whole, for the tiles
    assert set(tiled) <= truth and set(plain) <= truth
    assert len(tiled) >= len(plain) + 2, (plain, tiled)
    boxes = np.asarray([c["box"] for c in entry["cards"]])
    assert boxes[:, 2].max() > 2000 and (boxes[:, [0, 2]] <= SIZE[0]).all()  # the photo's own pixels


def test_every_still_image_is_read_in_tiles_unless_told_otherwise():
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import render

    frame = render(900003, (1280, 960), "test").image
    rec = load_recognizer()
    assert rec.tiles == "always"
    seen = []
    locate = rec.locate
    rec.locate = lambda f, *a, **k: (seen.append(f.shape[:2]), locate(f, *a, **k))[1]
    rec(frame)
    assert seen[0] == (960, 1280) and set(seen[1:]) == {(576, 768)}  # the frame, then its four tiles
    seen.clear()
    rec(frame, tiles=False)
    assert set(seen) == {(960, 1280)}
    seen.clear()
    rec.tiles = "small"  # cards of the usual size in a 1280 x 960 frame: whole is enough
    rec(frame)
    assert set(seen) == {(960, 1280)}
    seen.clear()
    from sueca.vision.still import OutlineMemory

    rec.tiles = "always"
    rec(frame, memory=OutlineMemory())  # video: never
    assert set(seen) == {(960, 1280)}


def test_a_tile_takes_the_whole_images_readings_without_reading_or_checking_them_again(monkeypatch):
    from sueca.vision.recognizer import Recognizer, load_recognizer
    from sueca.vision.tiles import _inner_edges
    from sueca.vision.train_data import render

    scene = render(900003, (1280, 960), "test")
    rec = load_recognizer()
    whole = rec(scene.image, tiles=False)
    read = [i for i, c in enumerate(whole.codes) if c != UNREADABLE]
    window = tile_windows(1280, 960)[2]  # bottom left: four of its cards read whole
    x0, y0, x1, y1 = window
    part = np.ascontiguousarray(scene.image[y0:y1, x0:x1])
    known = (whole.corners[read] - np.float32([x0, y0])).astype(np.float32)

    def view(codes):
        conf = np.full(len(read), 0.9876, np.float32) if codes else None
        return TileView(known, _inner_edges(window, (1280, 960)), (x1 - x0, y1 - y0), codes, conf)

    # readings no reader would give here (cards not in the scene): kept as given, so not read
    # again, and not withdrawn by the face (which sees other cards): not checked again
    # of a suit of the other colour, which the face tells apart
    absent = [c for c in rec.config.reader_classes[:52] if c not in {card.code for card in scene.cards}]
    red = {"H", "D"}
    wrong = []
    for i in read:
        other = next(c for c in absent if (c[-1] in red) != (whole.codes[i][-1] in red) and c not in wrong)
        wrong.append(other)
    wrong = tuple(wrong)
    asked = []
    read_quads = Recognizer.read_quads

    def counted(self, f, quads, *a, **k):
        asked.append(len(quads))
        return read_quads(self, f, quads, *a, **k)

    monkeypatch.setattr(Recognizer, "read_quads", counted)
    own = rec._sized(part, None, None, view(()))
    n_own = asked[0]
    asked.clear()
    handed = rec._sized(part, None, None, view(wrong))
    took = {c: f for c, f in zip(handed.codes, handed.confidence) if c in wrong}
    inside = [k for k in np.flatnonzero(~view(()).cut(known))
              if (known[k] >= 0).all() and (known[k] < [x1 - x0, y1 - y0]).all()]
    assert len(inside) >= 4
    assert set(took) == {wrong[k] for k in inside}  # every card read whole that lies in the tile
    assert all(abs(f - 0.9876) < 1e-6 for f in took.values())
    assert asked[0] <= n_own - len(took)  # the first reading left the handed cards out
    assert {c for c in own.codes if c} >= {whole.codes[read[k]] for k in inside}  # read by itself: right


def test_a_misspelt_tiles_setting_is_refused_naming_the_file(tmp_path):
    import json

    import pytest

    from sueca.vision.recognizer import RecognizerConfig, default_model_dir

    cfg = json.loads((default_model_dir() / "recognizer.json").read_text())
    assert cfg["tiles"] == "always"
    for bad in ("yes", True, "Always"):
        cfg["tiles"] = bad
        (tmp_path / "recognizer.json").write_text(json.dumps(cfg))
        with pytest.raises(ValueError, match=r"recognizer\.json: tiles must be"):
            RecognizerConfig.load(tmp_path)
    cfg["tiles"] = None
    (tmp_path / "recognizer.json").write_text(json.dumps(cfg))
    assert RecognizerConfig.load(tmp_path).tiles is None


def test_tile_reading_is_installed_round_trips_and_refuses_what_it_does_not_know(tmp_path):
    import json

    import pytest

    from sueca.vision.recognizer import RecognizerConfig, default_model_dir

    installed = RecognizerConfig.load(default_model_dir())
    assert installed.tile_reading == {"hand_read": True, "flip": False, "zoom": False, "closeup": False}
    (tmp_path / "recognizer.json").write_text(json.dumps(installed.to_dict()))
    assert RecognizerConfig.load(tmp_path).tile_reading == installed.tile_reading
    cfg = json.loads((default_model_dir() / "recognizer.json").read_text())
    for bad, says in (({"hand_read": "yes"}, "true/false"), ({"flip": False, "mirror": False}, "unknown key"),
                      ([True], "true/false")):
        cfg["tile_reading"] = bad
        (tmp_path / "recognizer.json").write_text(json.dumps(cfg))
        with pytest.raises(ValueError, match=rf"recognizer\.json: tile_reading.*{says}"):
            RecognizerConfig.load(tmp_path)
    del cfg["tile_reading"]
    (tmp_path / "recognizer.json").write_text(json.dumps(cfg))
    assert RecognizerConfig.load(tmp_path).tile_reading is None


def test_a_tile_asks_none_of_the_second_opinions_for_large_cards(monkeypatch):
    from sueca.vision import closeup, proposals
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_data import render

    frame = render(900003, (1280, 960), "test").image
    rec = load_recognizer()
    asked, closeups = [], []
    second, closeup_pass = proposals.with_second_opinions, closeup.closeup_pass

    def opinions(locator, f, flip, stock, iou, zoom=False, *a, **k):
        asked.append((f.shape[:2], flip, zoom))
        return second(locator, f, flip, stock, iou, zoom, *a, **k)

    def closeups_seen(r, f, *a):
        closeups.append(f.shape[:2])
        return closeup_pass(r, f, *a)

    monkeypatch.setattr(proposals, "with_second_opinions", opinions)
    monkeypatch.setattr(closeup, "closeup_pass", closeups_seen)
    rec(frame)
    assert asked[0] == ((960, 1280), True, True) and closeups[0] == (960, 1280)  # the whole image: all
    # its four tiles (one read again by the white tops' pair here): none
    assert {a for a in asked[1:]} == {((576, 768), False, False)} and len(asked) >= 5
    assert closeups == [(960, 1280)]
    asked.clear()
    rec.config = replace(rec.config, tile_reading=None)  # a tile read as a photo of its own
    rec(frame)
    assert {a for a in asked[1:]} == {((576, 768), True, True)}
