"""Image files read the one way the project reads them: upright, BGR, 8 bits.

A photo of a table comes from anything: a phone's JPEG or HEIC, a scanner's
16-bit PNG or TIFF, a screenshot with transparency, a GIF. :func:`read_image`
gives each as the BGR uint8 array the recognizer takes, with its EXIF
orientation applied, or raises :class:`ImageError` naming the file and what is
wrong with it.

``at_least`` lets a large JPEG be decoded at a half, a quarter or an eighth of
its size (the decoder's own scaling, area-averaged in the DCT), never below that
many pixels on its long side: the recognizer reads a frame at 1600 px anyway,
and a 200 MP phone photo decoded whole takes 600 MB and seconds. The result
tells the size of the whole image, so boxes can be given in its pixels.

HEIC / HEIF (an iPhone's default) needs the optional ``pi-heif``
(``pip install 'sueca[heic]'``); without it such a file gets an error that says so.

>>> import tempfile, numpy as np, pathlib
>>> from PIL import Image
>>> p = pathlib.Path(tempfile.mkdtemp()) / "grey16.png"
>>> Image.fromarray(np.full((4, 6), 40000, np.uint16)).save(p)
>>> pic = read_image(p)
>>> pic.image.shape, int(pic.image[0, 0, 0]), pic.size
((4, 6, 3), 156, (6, 4))
>>> import shutil; shutil.rmtree(p.parent)
"""

from __future__ import annotations

import threading
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: File name endings of the still images a folder source reads.
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff", ".gif",
                  ".heic", ".heif", ".avif")

#: ISO base-media brands of HEIF files (the bytes after ``ftyp``), AVIF's excepted:
#: Pillow reads AVIF itself.
_HEIF_BRANDS = {b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"hevm", b"hevs", b"mif1", b"msf1"}


#: The most pixels an image may have: a 200 MP phone photo passes (16320x12240); a file
#: claiming more is refused before it is decoded (Pillow's own limit, 179 MP, refused them).
MAX_PIXELS = 260_000_000

_LIMIT_LOCK = threading.Lock()


class ImageError(ValueError):
    """An image file that cannot be read; the message names the file."""


@dataclass(frozen=True)
class Picture:
    """An image read from a file.

    ``image``: BGR uint8 (H, W, 3), upright; ``size``: (width, height) of the whole upright
    image, larger than ``image`` where the file was decoded at a reduced scale."""

    image: np.ndarray
    size: tuple[int, int]

    @property
    def scale(self) -> tuple[float, float]:
        """(x, y) factors from ``image``'s pixels to the whole image's."""
        h, w = self.image.shape[:2]
        return self.size[0] / w, self.size[1] / h


def heif_support() -> bool:
    """Whether HEIC / HEIF files can be read here; registers the reader with Pillow.

    ``pi-heif`` (the ``heic`` extra: decoding only, LGPL-3.0 wheels) or else ``pillow-heif``
    (which also writes them; its wheels are GPL-2.0 for their bundled encoder)."""
    for module in ("pi_heif", "pillow_heif"):
        try:
            register = __import__(module).register_heif_opener
        except ImportError:
            continue
        register()
        return True
    return False


def _is_heif(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        return False
    return len(head) == 12 and head[4:8] == b"ftyp" and head[8:12] in _HEIF_BRANDS


def read_image(path: str | Path, at_least: int | None = None) -> Picture:
    """The image file ``path`` as a :class:`Picture`; :class:`ImageError` if it cannot be read.

    ``at_least``: a JPEG longer than twice this may be decoded reduced, to no less than
    this on its long side (other formats are always decoded whole)."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    path = Path(path)
    name = str(path)
    if path.is_dir():
        raise ImageError(f"{name}: é uma pasta / is a directory")
    if not path.exists():
        raise ImageError(f"{name}: ficheiro não encontrado / file not found")
    heif = _is_heif(path)
    if heif and not heif_support():
        raise ImageError(f"{name}: fotografia HEIC/HEIF; instale o suporte com pip install 'sueca[heic]' / "
                         "a HEIC/HEIF photo: install its support with pip install 'sueca[heic]'")
    full = (0, 0)
    try:
        with warnings.catch_warnings():
            # a phone's 100 MP photo is no attack; MAX_PIXELS still stands
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with _pixel_limit(MAX_PIXELS):
                opened = Image.open(path)
            with opened as im:
                full = _upright_size(im)
                if at_least and im.format == "JPEG" and max(im.size) > 2 * at_least:
                    k = at_least / max(im.size)
                    im.draft(im.mode if im.mode in ("RGB", "L") else "RGB",
                             (max(1, int(np.ceil(im.size[0] * k))), max(1, int(np.ceil(im.size[1] * k)))))
                im = ImageOps.exif_transpose(im)
                image = _to_bgr8(im)
    except Image.DecompressionBombError as exc:
        raise ImageError(f"{name}: imagem grande demais / image too large ({exc})") from None
    except MemoryError:
        raise ImageError(f"{name}: imagem grande demais para a memória / image too large for the memory "
                         f"({full[0]}x{full[1]})") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError(f"{name}: imagem ilegível / unreadable image ({type(exc).__name__}: {exc})") from None
    if image.size == 0:
        raise ImageError(f"{name}: imagem vazia / empty image")
    return Picture(image, full)


@contextmanager
def _pixel_limit(pixels: int):
    """Pillow's decompression-bomb limit set to ``pixels`` while a file is opened (it checks
    there, against a module-wide figure, and refuses past twice that figure)."""
    from PIL import Image

    with _LIMIT_LOCK:
        saved = Image.MAX_IMAGE_PIXELS
        Image.MAX_IMAGE_PIXELS = pixels // 2
        try:
            yield
        finally:
            Image.MAX_IMAGE_PIXELS = saved


def _upright_size(im) -> tuple[int, int]:
    """(w, h) of the whole image once its EXIF orientation is applied (asked before a draft)."""
    w, h = im.size
    try:
        turned = im.getexif().get(0x0112) in (5, 6, 7, 8)
    except Exception:  # a broken EXIF block does not make the picture unreadable
        turned = False
    return (h, w) if turned else (w, h)


def _to_bgr8(im) -> np.ndarray:
    """BGR uint8 from any Pillow mode: 16- and 32-bit and float greys scaled, not clipped."""
    import cv2

    if im.mode in ("I;16", "I;16L", "I;16B", "I;16N", "I", "F"):
        a = np.asarray(im, np.float64)
        top = a.max() if a.size else 0.0
        # 16-bit greys fill 0..65535, float ones 0..1; an 8-bit range read as "I" stays as it is
        full = 1.0 if im.mode == "F" and top <= 1.0 else 255.0 if top <= 255 else 65535.0
        grey = np.clip(np.rint(a * (255.0 / full)), 0, 255).astype(np.uint8)
        return cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)
    if im.mode != "RGB":
        im = im.convert("RGB")
    # OpenCV's swap, not a reversed view copied: 0.05 against 4.6 ms a 1280x960 frame
    return cv2.cvtColor(np.asarray(im), cv2.COLOR_RGB2BGR)


__all__ = ["IMAGE_SUFFIXES", "MAX_PIXELS", "ImageError", "Picture", "heif_support", "read_image"]
