"""Image files as people have them: phone photos (large JPEG, HEIC), 16-bit greys, odd modes,
files too large to decode; read by ``sueca.hardware.images`` for ``sueca detect`` and folder sources."""

from __future__ import annotations

import importlib.util
import json

import cv2
import numpy as np
import pytest
from PIL import Image

from sueca.hardware import images
from sueca.hardware.images import ImageError, Picture, read_image

has_heif = all(importlib.util.find_spec(m) for m in ("pi_heif", "pillow_heif"))


def _scene(w=64, h=48):
    """A BGR picture with a red block at its top left and a blue one at its bottom right."""
    a = np.full((h, w, 3), 90, np.uint8)
    a[: h // 4, : w // 4] = (0, 0, 255)
    a[-h // 4:, -w // 4:] = (255, 0, 0)
    return a


def _where(image, channel):
    return np.argwhere(image[:, :, channel] > 200).mean(0)


def test_sixteen_bit_and_float_greys_are_scaled_not_clipped(tmp_path):
    grey = np.linspace(0, 65535, 64 * 48).reshape(48, 64).astype(np.uint16)
    Image.fromarray(grey).save(tmp_path / "g16.png")
    Image.fromarray(grey.astype(np.float32) / 65535).save(tmp_path / "f.tiff")
    for name in ("g16.png", "f.tiff"):
        pic = read_image(tmp_path / name)
        assert pic.image.dtype == np.uint8 and pic.image.shape == (48, 64, 3)
        # the ramp survives: dark at the start, bright at the end, not all white
        assert pic.image[0, 0, 0] <= 1 and pic.image[-1, -1, 0] >= 254
        assert 100 < pic.image.mean() < 155
    # what the old reader did (Pillow's convert clips a 16-bit grey): nearly white throughout
    assert np.asarray(Image.open(tmp_path / "g16.png").convert("RGB")).mean() > 240


@pytest.mark.parametrize("mode", ["RGBA", "P", "L", "CMYK", "LA", "1"])
def test_every_pillow_mode_becomes_bgr8(tmp_path, mode):
    rgb = Image.fromarray(_scene()[:, :, ::-1])
    path = tmp_path / ("x.jpg" if mode == "CMYK" else "x.png")
    rgb.convert(mode).save(path)
    pic = read_image(path)
    assert pic.image.dtype == np.uint8 and pic.image.shape == (48, 64, 3) and pic.size == (64, 48)
    if mode in ("RGBA", "P", "CMYK"):  # colour kept, in BGR order
        assert _where(pic.image, 2)[1] < 20 and _where(pic.image, 0)[1] > 40


def test_a_large_jpeg_is_decoded_reduced_and_says_how_large_it_is(tmp_path):
    big = cv2.resize(_scene(), (4000, 3000), interpolation=cv2.INTER_NEAREST)
    # stored sideways with EXIF "rotate 90 CW to view" (orientation 6), as phones do
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path / "phone.jpg"
    Image.fromarray(big[:, :, ::-1]).transpose(Image.Transpose.ROTATE_90).save(path, exif=exif.tobytes(), quality=90)
    whole = read_image(path)
    small = read_image(path, at_least=1600)
    assert whole.image.shape == (3000, 4000, 3) and whole.size == (4000, 3000) and whole.scale == (1, 1)
    assert small.size == (4000, 3000) and small.image.shape == (1500, 2000, 3) and small.scale == (2.0, 2.0)
    # the same picture, upright: red block top left, blue bottom right, at the same places
    for ch in (0, 2):
        assert np.allclose(_where(small.image, ch) * 2, _where(whole.image, ch), atol=4)
    assert _where(whole.image, 2)[1] < 1000 and _where(whole.image, 0)[1] > 3000
    # not reduced below at_least, nor other formats at all
    assert read_image(path, at_least=2500).image.shape == (3000, 4000, 3)
    cv2.imwrite(str(tmp_path / "big.png"), big)
    assert read_image(tmp_path / "big.png", at_least=1600).image.shape == (3000, 4000, 3)


def test_files_that_cannot_be_read_name_themselves_and_why(tmp_path, monkeypatch):
    (tmp_path / "text.jpg").write_bytes(b"not a picture")
    cv2.imwrite(str(tmp_path / "cut.jpg"), _scene(640, 480))
    data = (tmp_path / "cut.jpg").read_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 3])
    huge = tmp_path / "huge.png"  # 280 MP claimed by a file of a few hundred KB
    Image.new("1", (20000, 14000)).save(huge)
    cases = {"text.jpg": "unreadable", "cut.jpg": "unreadable", "huge.png": "too large",
             "missing.png": "not found", ".": "directory"}
    for name, why in cases.items():
        with pytest.raises(ImageError) as err:
            read_image(tmp_path / name if name != "." else tmp_path)
        assert why in str(err.value) and (name in str(err.value) or name == ".")
    # a HEIC photo where its support is not installed: the error says how to get it
    heic = tmp_path / "iphone.heic"
    heic.write_bytes(b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64)
    monkeypatch.setattr(images, "heif_support", lambda: False)
    with pytest.raises(ImageError, match=r"sueca\[heic\]") as err:
        read_image(heic)
    assert "iphone.heic" in str(err.value)


@pytest.mark.skipif(not has_heif, reason="pi-heif (the heic extra) and pillow-heif (to write HEIC) are not installed")
def test_heic_photos_are_read_upright(tmp_path):
    import pillow_heif

    pillow_heif.register_heif_opener()
    rgb = Image.fromarray(_scene(320, 240)[:, :, ::-1])
    rgb.save(tmp_path / "plain.heic", quality=95)
    exif = Image.Exif()
    exif[0x0112] = 6
    rgb.transpose(Image.Transpose.ROTATE_90).save(tmp_path / "turned.heic", quality=95, exif=exif.tobytes())
    for name in ("plain.heic", "turned.heic"):
        pic = read_image(tmp_path / name)
        assert pic.image.shape == (240, 320, 3) and pic.size == (320, 240), name
        assert _where(pic.image, 2)[1] < 80 and _where(pic.image, 0)[1] > 240, name


def test_a_folder_source_reads_what_detect_reads(tmp_path):
    from sueca.hardware.files import FolderSource

    grey = (np.full((48, 64), 30000, np.uint16))
    Image.fromarray(grey).save(tmp_path / "a1.png")
    Image.fromarray(_scene()[:, :, ::-1]).save(tmp_path / "a2.gif")
    (tmp_path / "a3.png").write_bytes(b"broken")
    src = FolderSource(tmp_path, fps=5)
    frames = list(src)
    assert [f.index for f in frames] == [0, 1] and src.status.corrupt == 1
    assert 110 < frames[0].image.mean() < 125 and frames[1].image.shape == (48, 64, 3)


def test_picture_scale_is_the_whole_over_the_decoded():
    p = Picture(np.zeros((10, 20, 3), np.uint8), (80, 40))
    assert p.scale == (4.0, 4.0)


# ---- sueca detect on such files, with the committed model --------------------------------

needs_model = pytest.mark.skipif(
    not (importlib.util.find_spec("onnxruntime") and
         __import__("sueca.vision.recognizer", fromlist=["x"]).default_model_dir().joinpath("recognizer.json").is_file()),
    reason="no committed model")


@needs_model
def test_detect_reads_phone_photos_and_gives_boxes_in_their_pixels(tmp_path):
    from test_recognition_model import _cli, make_table

    frame, corners = make_table([("10H", 400, 300, 0), ("3S", 800, 600, 40)])
    files = []
    # a 12 MP phone photo: 4000x3000, stored sideways with its EXIF orientation
    big = cv2.resize(frame, (4000, 3000), interpolation=cv2.INTER_LINEAR)
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(big[:, :, ::-1]).transpose(Image.Transpose.ROTATE_90).save(
        tmp_path / "phone.jpg", exif=exif.tobytes(), quality=92)
    files.append(("phone.jpg", 3.125))
    grey16 = (cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY).astype(np.uint16) * 257)
    Image.fromarray(grey16).save(tmp_path / "scan16.png")
    files.append(("scan16.png", 1.0))
    if has_heif:
        import pillow_heif

        pillow_heif.register_heif_opener()
        Image.fromarray(frame[:, :, ::-1]).save(tmp_path / "iphone.heic", quality=92)
        files.append(("iphone.heic", 1.0))
    Image.new("1", (20000, 14000)).save(tmp_path / "huge.png")
    r = _cli(*(str(tmp_path / n) for n, _ in files[:1]), str(tmp_path / "huge.png"),
             *(str(tmp_path / n) for n, _ in files[1:]))
    assert r.returncode == 1  # the huge one failed; the others still ran
    lines = {json.loads(line)["image"].rsplit("/", 1)[-1]: json.loads(line) for line in r.stdout.splitlines()}
    assert "too large" in lines["huge.png"]["error"] and "huge.png" in r.stderr
    for name, k in files:
        cards = {c["card"]: c["box"] for c in lines[name]["cards"]}
        assert set(cards) == {"10H", "3S"}, (name, lines[name])
        x1, y1, x2, y2 = cards["10H"]
        # the card's centre where it lies in that file's own (upright) pixels
        assert abs((x1 + x2) / 2 - 400 * k) < 25 * k and abs((y1 + y2) / 2 - 300 * k) < 25 * k, (name, cards)
        assert max(x2, y2) <= 1280 * k + 1


@needs_model
def test_detect_takes_folders_and_draws_what_it_read(tmp_path):
    from test_recognition_model import _cli, make_table

    photos, other = tmp_path / "photos", tmp_path / "other"
    photos.mkdir()
    other.mkdir()
    frame, _ = make_table([("10H", 400, 300, 0), ("3S", 800, 600, 40)])
    cv2.imwrite(str(photos / "mesa10.jpg"), frame)
    cv2.imwrite(str(photos / "mesa2.png"), make_table([("KD", 640, 480, 15)])[0])
    (photos / "notes.txt").write_text("not a photo")
    cv2.imwrite(str(other / "mesa2.png"), np.full((480, 640, 3), 60, np.uint8))  # the same name, no card
    out = tmp_path / "drawn"
    r = _cli(str(photos), str(other / "mesa2.png"), "--annotate", str(out))
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    # the folder's images in natural name order, its text file left out, then the file named
    assert [e["image"].rsplit("/", 2)[-2:] for e in lines] == [["photos", "mesa2.png"], ["photos", "mesa10.jpg"],
                                                            ["other", "mesa2.png"]]
    assert [{c["card"] for c in e["cards"]} for e in lines] == [{"KD"}, {"10H", "3S"}, set()]
    assert [e["annotated"].rsplit("/", 1)[-1] for e in lines] == ["mesa2.detect.jpg", "mesa10.detect.jpg",
                                                                 "mesa2-2.detect.jpg"]
    drawn = cv2.imread(lines[1]["annotated"])
    assert drawn.shape == frame.shape
    # the outlines are drawn in the read colour where the cards lie, and nothing on the empty photo
    from sueca.vision.detections import READ_COLOUR

    green = np.all(np.abs(drawn.astype(int) - READ_COLOUR) < 40, axis=2)
    assert green[200:420, 280:520].sum() > 200 and green[:150].sum() == 0
    empty = cv2.imread(lines[2]["annotated"]).astype(int)
    assert np.abs(empty - 60).max() < 12
    # an empty folder: nothing to read is an error, not silence
    (tmp_path / "none").mkdir()
    r = _cli(str(tmp_path / "none"))
    assert r.returncode == 1 and "no image" in r.stderr and not r.stdout


def test_the_detect_command_examples_run():
    import doctest

    import sueca.commands.detect

    result = doctest.testmod(sueca.commands.detect)
    assert result.attempted >= 2 and result.failed == 0


def test_running_out_of_memory_is_an_error_naming_the_file(tmp_path, monkeypatch):
    cv2.imwrite(str(tmp_path / "big.png"), _scene(640, 480))

    def no_memory(im):
        raise MemoryError

    monkeypatch.setattr(images, "_to_bgr8", no_memory)
    with pytest.raises(ImageError, match=r"big\.png: .*too large for the memory \(640x480\)"):
        read_image(tmp_path / "big.png")
