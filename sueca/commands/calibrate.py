"""``sueca calibrate --source S``: propose a table calibration from one frame.

Grabs one frame, proposes the centre of the image as the table centre and the
middle of each image edge as the seats (seat 0 at ``--seat0``, playing order
counter-clockwise as seen from above unless ``--clockwise``), writes the
calibration JSON (``interfaces.md``) and a preview JPEG with the seat sectors
drawn on the frame. Example::

    sueca calibrate --source picamera --seat0 bottom --out calibration.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TEXTS = {
    "pt": {"wrote": "calibração escrita em {out} ({w}x{h}, lugar 0 {edge}, sentido {dir})",
           "preview": "pré-visualização em {preview}",
           "ccw": "anti-horário", "cw": "horário",
           "edges": {"bottom": "em baixo", "right": "à direita", "top": "em cima",
                     "left": "à esquerda"},
           "no_source": "não consegui ler uma imagem da fonte",
           "cannot_write": "não consegui escrever"},
    "en": {"wrote": "calibration written to {out} ({w}x{h}, seat 0 {edge}, {dir})",
           "preview": "preview in {preview}",
           "ccw": "counter-clockwise", "cw": "clockwise",
           "edges": {"bottom": "at the bottom", "right": "on the right", "top": "at the top",
                     "left": "on the left"},
           "no_source": "could not read a frame from the source",
           "cannot_write": "cannot write"},
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate", help="calibrar a geometria da mesa / propose the table geometry from one frame",
        description="Grab one frame from SOURCE, propose a calibration (centre of the image, "
                    "seats at the middle of each edge) and write it with a preview image.")
    p.add_argument("--source", required=True,
                   help="picamera, a device index (0), a video file, a stream URL or a folder "
                        "of frames")
    p.add_argument("--out", default="calibration.json", help="calibration JSON to write "
                   "(default calibration.json)")
    p.add_argument("--seat0", choices=("bottom", "right", "top", "left"), default="bottom",
                   help="image edge where seat 0 sits (default bottom)")
    p.add_argument("--clockwise", action="store_true",
                   help="play goes clockwise seen from above (common in Brazil); default is "
                        "counter-clockwise: each player's right-hand neighbour plays next")
    p.add_argument("--preview", default=None,
                   help="preview JPEG with the sectors drawn (default OUT-preview.jpg)")
    p.add_argument("--play-area", type=float, default=None,
                   help="radius of the play area as a fraction of the nearest seat distance "
                        "(default 0.5)")
    p.add_argument("--skip", type=int, default=None,
                   help="frames to skip first (default 0 for files, 15 for live sources, so "
                        "the camera's exposure settles)")
    p.add_argument("--timeout", type=float, default=15.0,
                   help="seconds to wait for a live source's frame (default 15)")
    p.add_argument("--lang", choices=("pt", "en"), default="pt", help="language of messages")
    p.set_defaults(func=run)


def _is_live(spec: str) -> bool:
    return spec.lower().startswith("picamera") or "://" in spec or spec.isdigit() \
        or spec.startswith("/dev/video")


def run(args: argparse.Namespace) -> int:
    import cv2

    from sueca.hardware.sources import SourceError, grab_frame
    from sueca.vision.geometry import DEFAULT_PLAY_AREA, Calibration, CalibrationError

    text = TEXTS[args.lang]
    skip = args.skip if args.skip is not None else (15 if _is_live(args.source) else 0)
    if skip < 0:
        print("sueca calibrate: --skip must be >= 0", file=sys.stderr)
        return 2
    try:
        frame = grab_frame(args.source, timeout=args.timeout, skip=skip)
    except SourceError as exc:
        print(f"sueca calibrate: {text['no_source']}: {exc}", file=sys.stderr)
        return 2
    width, height = frame.size
    try:
        calibration = Calibration.propose(
            width, height, seat0_edge=args.seat0,
            direction="cw" if args.clockwise else "ccw",
            play_area=DEFAULT_PLAY_AREA if args.play_area is None else args.play_area)
    except CalibrationError as exc:
        print(f"sueca calibrate: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    preview = Path(args.preview) if args.preview else out.with_name(out.stem + "-preview.jpg")
    try:
        calibration.save(out)
    except OSError as exc:
        print(f"sueca calibrate: {text['cannot_write']} {out}: {exc.strerror}", file=sys.stderr)
        return 2
    image = calibration.draw(frame.image)
    ok = False
    try:
        ok = cv2.imwrite(str(preview), image)
    except cv2.error:
        pass
    if not ok:
        print(f"sueca calibrate: {text['cannot_write']} {preview}", file=sys.stderr)
        return 2
    print(text["wrote"].format(out=out, w=width, h=height, edge=text["edges"][args.seat0],
                               dir=text[calibration.direction]))
    print(text["preview"].format(preview=preview))
    return 0
