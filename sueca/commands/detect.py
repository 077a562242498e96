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
    p.add_argument("images", nargs="+", metavar="IMAGE")
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


def detect_entry(recognizer, path: str, include_unreadable: bool = False, threshold: float | None = None) -> dict:
    """The JSON object of one image (raises ``ValueError`` for an unreadable file); ``threshold``:
    the confidence a reading needs, instead of the model's."""
    from sueca.hardware.images import read_image as read

    # a large JPEG is decoded reduced to what the recognizer reads (its ``max_side``), and
    # the cards are given in the whole photo's pixels
    picture = read(path, at_least=getattr(recognizer, "max_side", None))
    dets = recognizer(picture.image, threshold=threshold).scaled(*picture.scale, picture.size)
    cards = dets.to_json()
    if include_unreadable:
        for i, code in enumerate(dets.codes):
            if code == "":
                cards.append({"card": None, "confidence": round(float(dets.locate_confidence[i]), 4),
                              "box": [round(float(v), 1) for v in dets.xyxy[i]]})
    return {"image": path, "cards": cards}


def handler(args) -> int:
    from sueca.vision.recognizer import load_recognizer

    try:
        rec = load_recognizer(backend=args.backend, threads=args.threads, model=args.model,
                              precision=args.precision)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"erro / error: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for path in args.images:
        try:
            entry = detect_entry(rec, path, args.all, args.threshold)
        except ValueError as exc:
            failed += 1
            print(f"erro / error: {exc}", file=sys.stderr)
            entry = {"image": path, "error": str(exc)}
        print(json.dumps(entry, ensure_ascii=False), flush=True)
    return 1 if failed else 0
