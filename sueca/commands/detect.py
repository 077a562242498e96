"""``sueca detect IMAGE [IMAGE ...]``: the cards in photos, one JSON line per image.

Contract (``interfaces.md``): ``{"image": ..., "cards": [{"card", "confidence", "box"}]}``,
EXIF orientation applied, boxes in the oriented image's pixels. Any format Pillow reads,
16-bit greys, HEIC with the ``heic`` extra (:mod:`sueca.hardware.images`). An image that
cannot be read gives a line on stderr and ``{"image": ..., "error": ...}`` on
stdout; the other images still run; the exit status is then 1.

>>> import argparse; p = argparse.ArgumentParser(); s = p.add_subparsers()
>>> register(s); p.parse_args(["detect", "a.jpg", "--backend", "onnx"]).images
['a.jpg']
"""

from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "detect",
        help="reconhecer as cartas em fotografias / recognise the cards in photos",
        description="Uma linha JSON por imagem / one JSON line per image.",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE",
                   help="fotografias ou pastas delas (lidas por ordem de nome) / photos, or folders of them "
                        "(read in name order)")
    p.add_argument("--model", default=None,
                   help="pasta do modelo, recognizer.json, .onnx ou .pt / model folder, config, .onnx or .pt")
    p.add_argument("--backend", choices=("onnx", "ultralytics"), default="onnx",
                   help="onnx (por omissão, sem torch) ou ultralytics (PyTorch) / default onnx")
    p.add_argument("--precision", choices=("int8", "fp32"), default=None,
                   help="onnx: redes de 8 bits ou float / 8-bit or float networks (default: the model's choice)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads de inferência (omitido: as redes pequenas repartem cada lote, uma parte por "
                        "núcleo) / inference threads (unset: the small networks split each batch, a part a core)")
    p.add_argument("--all", action="store_true",
                   help="incluir cartas ilegíveis (card null) / include located but unreadable cards")
    p.add_argument("--threshold", type=_probability, default=None, metavar="P",
                   help="confiança mínima de uma leitura (por omissão a do modelo); mais baixa lê mais cartas e "
                        "erra mais (models/README.md) / the confidence a reading needs (default: the model's); "
                        "lower reads more cards and gets more wrong")
    p.add_argument("--annotate", metavar="DIR", default=None,
                   help="escrever em DIR cada imagem com as cartas desenhadas (NOME.detect.jpg) / write each image "
                        "with its cards drawn on it into DIR (NAME.detect.jpg)")
    p.add_argument("--tiles", choices=("always", "small", "off"), default=None,
                   help="ler cada fotografia também em 2 x 2 partes (always, por omissão: mais cartas, duas a "
                        "três vezes o tempo), só uma fotografia grande de cartas pequenas (small) ou nunca (off) "
                        "/ read each photo again as 2 x 2 tiles (always, the default: more cards, two to three "
                        "times the time), only a large photo of small cards (small), or never (off)")
    p.set_defaults(func=handler)


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 < value < 1.0:
        import argparse

        raise argparse.ArgumentTypeError(f"--threshold: expected a number between 0 and 1 (exclusive), got {text!r}")
    return value


def expand(paths: list[str]) -> list[str]:
    """The images named: a folder stands for its image files in natural name order (not its
    subfolders); anything else is kept as given, to be read or reported.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for n in ("f10.jpg", "f2.png", "notes.txt"): _ = (d / n).write_bytes(b"")
    >>> [pathlib.Path(p).name for p in expand([str(d), "x.jpg"])]
    ['f2.png', 'f10.jpg', 'x.jpg']
    >>> import shutil; shutil.rmtree(d)
    """
    from pathlib import Path

    from sueca.hardware.files import image_files

    out: list[str] = []
    for p in paths:
        if Path(p).is_dir():
            out += [str(f) for f in image_files(Path(p))]
        else:
            out.append(p)
    return out


def detect_entry(recognizer, path: str, include_unreadable: bool = False, threshold: float | None = None,
                 annotate=None, written: set | None = None) -> dict:
    """The JSON object of one image (raises ``ValueError`` for an unreadable file); ``threshold``:
    the confidence a reading needs, instead of the model's; ``annotate``: a folder to write the
    image into with its cards drawn on it (:func:`annotated_path`; ``written``: the files this
    run wrote there, grown in place)."""
    from sueca.hardware.images import read_image as read

    # a large JPEG is decoded reduced to what the recognizer reads (its ``max_side``), and
    # the cards are given in the whole photo's pixels; where its cards are small, it is decoded
    # again, finer, for the recognizer's tiles
    max_side = getattr(recognizer, "max_side", None)
    picture = read(path, at_least=max_side)
    finer = getattr(recognizer, "detail_side", None)
    reduced = picture.image.shape[:2] != picture.size[::-1]
    if not (reduced and finer and max_side and finer > max_side):
        dets = recognizer(picture.image, threshold=threshold).scaled(*picture.scale, picture.size)
    else:
        dets = recognizer(picture.image, threshold=threshold, tiles=False).scaled(*picture.scale, picture.size)
        from sueca.vision.tiles import wants_tiles

        # small cards: tiles from a finer decoding; else as the recognizer's policy says
        fine = read(path, at_least=finer) if wants_tiles(dets, picture.size, max_side, "small") else picture
        gx, gy = fine.scale
        whole = dets.scaled(1 / gx, 1 / gy, (fine.image.shape[1], fine.image.shape[0]))
        dets = recognizer.read_tiles(fine.image, whole, threshold).scaled(gx, gy, picture.size)
    cards = dets.to_json()
    if include_unreadable:
        for i, code in enumerate(dets.codes):
            if code == "":
                cards.append({"card": None, "confidence": round(float(dets.locate_confidence[i]), 4),
                              "box": [round(float(v), 1) for v in dets.xyxy[i]]})
    entry = {"image": path, "cards": cards}
    if annotate is not None:
        import cv2

        from sueca.vision.detections import draw_detections

        out = annotated_path(annotate, path, set() if written is None else written)
        # drawn on the picture as decoded: a 200 MP photo is not written back at full size
        sx, sy = picture.scale
        h, w = picture.image.shape[:2]
        drawn = draw_detections(picture.image, dets.scaled(1 / sx, 1 / sy, (w, h)))
        if not cv2.imwrite(str(out), drawn, [cv2.IMWRITE_JPEG_QUALITY, 90]):
            raise ValueError(f"{out}: não foi possível escrever / could not be written")
        entry["annotated"] = str(out)
    return entry


def annotated_path(folder, image: str, written: set):
    """``folder``/NAME.detect.jpg for ``image``; NAME-2, NAME-3 ... where this run wrote that
    name already (``written``, grown in place), so two photos of one name keep both.

    >>> taken = set()
    >>> [annotated_path("out", p, taken).name for p in ("a/mesa.jpg", "b/mesa.png", "c/x.heic")]
    ['mesa.detect.jpg', 'mesa-2.detect.jpg', 'x.detect.jpg']
    """
    from pathlib import Path

    folder = Path(folder)
    stem = Path(image).stem or "image"
    out, k = folder / f"{stem}.detect.jpg", 1
    while out in written:
        k += 1
        out = folder / f"{stem}-{k}.detect.jpg"
    written.add(out)
    return out


def handler(args) -> int:
    from pathlib import Path

    from sueca.vision.recognizer import load_recognizer

    if args.annotate is not None:
        try:
            Path(args.annotate).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"erro / error: --annotate {args.annotate}: {exc}", file=sys.stderr)
            return 2
    try:
        rec = load_recognizer(backend=args.backend, threads=args.threads, model=args.model,
                              precision=args.precision)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"erro / error: {exc}", file=sys.stderr)
        return 2
    if args.tiles is not None:
        rec.tiles = None if args.tiles == "off" else args.tiles
    failed = 0
    images = expand(args.images)
    if not images:
        print("erro / error: nenhuma imagem nas pastas dadas / no image in the folders given", file=sys.stderr)
        return 1
    written: set = set()  # the drawn images this run wrote
    for path in images:
        try:
            entry = detect_entry(rec, path, args.all, args.threshold, args.annotate, written)
        except ValueError as exc:
            failed += 1
            print(f"erro / error: {exc}", file=sys.stderr)
            entry = {"image": path, "error": str(exc)}
        print(json.dumps(entry, ensure_ascii=False), flush=True)
    return 1 if failed else 0
