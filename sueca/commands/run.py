"""``sueca run``: camera (or video) in, game record and live dashboard out.

    sueca run --source game.mp4 --calibration calibration.json --record out.json --no-server
    sueca run --source picamera --calibration cal.json          # serves the dashboard too
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="arbitrar um jogo ao vivo ou de um vídeo / referee a live game or a video",
        description="Lê a fonte (câmara, vídeo, stream, pasta de imagens), reconhece as cartas, segue as "
                    "jogadas e mantém o registo do jogo. Reads the source, recognizes cards, follows the "
                    "plays and keeps the game record (interfaces.md).")
    p.add_argument("--source", required=True,
                   help="picamera | índice de dispositivo / device index (0) | vídeo / video file | "
                        "URL (rtsp://, tcp://) | pasta de imagens / folder of frames")
    p.add_argument("--calibration", default=None,
                   help="calibração JSON (sueca calibrate); sem ela / without it: centre and edge midpoints")
    p.add_argument("--record", default=None, help="escrever o registo do jogo aqui / write the game record here")
    p.add_argument("--no-server", action="store_true",
                   help="sem painel: lê a fonte até ao fim e escreve o registo / no dashboard: "
                        "read the source to its end and write the record")
    p.add_argument("--dealer", type=int, choices=range(4), default=None,
                   help="dador da primeira mão, se a câmara não vir o trunfo / first hand's dealer")
    p.add_argument("--trump", default=None, help="carta de trunfo da primeira mão / first hand's trump card (e.g. 5H)")
    p.add_argument("--rules", default=None, help="variantes em JSON / rules variants as JSON, e.g. '{\"target\": 7}'")
    p.add_argument("--model", default=None, help="pasta dos modelos / model folder (default: packaged weights)")
    p.add_argument("--precision", choices=("int8", "fp32"), default=None,
                   help="redes de 8 bits ou float / 8-bit or float networks (default: the model's choice)")
    p.add_argument("--realtime", action="store_true", help="ler ficheiros ao ritmo real / pace files in real time")
    p.add_argument("--fps", type=float, default=None, help="fps de uma pasta de imagens / fps of a folder of frames")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--data-dir", default=None, help="pasta de dados do painel / dashboard data folder")
    p.add_argument("--quiet", action="store_true", help="sem progresso / no progress on stderr")
    p.set_defaults(func=_run)


def _fail(msg: str) -> int:
    print(f"sueca run: {msg}", file=sys.stderr)
    return 2


def _run(args: argparse.Namespace) -> int:
    from sueca.engine import Card, Rules, RulesError
    from sueca.hardware.sources import SourceError, open_source
    from sueca.vision.geometry import Calibration, CalibrationError

    if (args.dealer is None) != (args.trump is None):
        return _fail("--dealer e --trump vão juntos / --dealer and --trump go together")
    if args.trump is not None:
        try:
            Card.parse(args.trump)
        except ValueError:
            return _fail(f"--trump: carta desconhecida / unknown card {args.trump!r}")
    try:
        rules = Rules.from_dict(json.loads(args.rules)) if args.rules else Rules()
    except (ValueError, RulesError) as e:
        return _fail(f"--rules: {e}")
    try:
        calibration = Calibration.load(args.calibration) if args.calibration else Calibration.propose(1280, 960)
    except CalibrationError as e:
        return _fail(str(e))
    try:
        recognizer = _recognizer(args.model, args.precision)
    except Exception as e:  # missing weights or runtime: say what, where
        return _fail(f"reconhecedor / recognizer: {e}")
    try:
        source = open_source(args.source, realtime=args.realtime, fps=args.fps)
    except SourceError as e:
        return _fail(str(e))
    from pathlib import Path

    # a file or folder is decoded a couple of frames ahead; a live source hands over its newest
    prefetch = 2 if Path(args.source).exists() else 0
    opts = dict(rules=rules, dealer=args.dealer, trump=args.trump, model_name=str(args.model or "packaged"),
                prefetch=prefetch)
    if args.no_server:
        return _offline(args, source, recognizer, calibration, opts)
    return _served(args, source, recognizer, calibration, opts)


def _recognizer(model: str | None, precision: str | None = None):
    from sueca.vision.recognizer import load_recognizer

    return load_recognizer(model, precision=precision)


def _progress_printer(quiet: bool):
    if quiet:
        return None

    def show(p) -> None:
        print(f"\rframes {p.frames}  {p.fps:5.1f} fps  t={p.t:7.1f}s  jogadas/plays {p.plays}  "
              f"mãos/hands {p.hands}", end="", file=sys.stderr, flush=True)
    return show


def _offline(args, source, recognizer, calibration, opts) -> int:
    from sueca.vision.pipeline import Pipeline

    pipe = Pipeline(source, recognizer, calibration, on_progress=_progress_printer(args.quiet), **opts)
    try:
        pipe.run()
    except KeyboardInterrupt:
        print("\ninterrompido / interrupted: writing what was seen", file=sys.stderr)
    finally:
        source.close() if hasattr(source, "close") else None
    if not args.quiet:
        print(file=sys.stderr)
    _report(pipe)
    _write(args.record, pipe)
    return 0


def _report(pipe) -> None:
    """What the referee must look at: refused plays, seats that were not whose turn
    it was, plays still waiting."""
    from sueca.engine import Match

    def say(text: str) -> None:
        print(text, file=sys.stderr)

    for ev, why in pipe.rejected:
        say(f"jogada não registada / play not recorded: {ev.card or '?'} seat {ev.seat} t={ev.t:.2f}: {why}")
    try:
        hands = Match(pipe.record).hands
    except Exception:  # an impossible record is reported by sueca score
        hands = []
    for h, hand in enumerate(hands):
        for m in hand.seat_mismatches:
            card, _seat, t = hand.plays[m.play]
            say(f"mão/hand {h} jogada/play {m.play}: {card} jogado pelo lugar {m.seen} na vez do {m.expected} / "
                f"played by seat {m.seen} on seat {m.expected}'s turn (t={t})")
    for held in pipe.abandoned:
        say(f"{len(held)} jogadas de uma mão ficaram por registar (carta ilegível em t={held[0].t:.1f}) / "
            f"{len(held)} plays of a hand left out (unreadable card at t={held[0].t:.1f})")
    if pipe.unresolved:
        say(f"{len(pipe.unresolved)} jogadas retidas: carta ilegível em t={pipe.unresolved[0].t:.1f} / "
            f"plays held: unreadable card at t={pipe.unresolved[0].t:.1f}")
    elif pipe._pending:
        say(f"{len(pipe._pending)} jogadas à espera de dador e trunfo / plays waiting for dealer and trump "
            f"(use --dealer/--trump)")


def _write(path: str | None, pipe) -> None:
    records = pipe.records_json()
    text = json.dumps(records[-1] if len(records) == 1 else records[0], indent=1) + "\n"
    if path is None:
        sys.stdout.write(text)
        return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    # a table that plays on after a match is won starts another: OUT-2.json, ...
    for k, rec in enumerate(records[1:], start=2):
        stem, dot, ext = path.rpartition(".")
        extra = f"{stem}-{k}.{ext}" if dot else f"{path}-{k}"
        with open(extra, "w", encoding="utf-8") as f:
            f.write(json.dumps(rec, indent=1) + "\n")


def table_rules(referee, rules) -> int:
    """``--rules`` names the rules of the table being refereed: the live match takes
    them; a match already under way with other rules is kept and a new one starts.
    Returns the live match's id."""
    wanted = rules.to_dict()
    current = referee.view().record
    if current.rules.to_dict() != wanted:
        if not current.hands:
            referee.submit("rules", {"rules": wanted}, "sueca run")
        else:
            referee.start_match("sueca run", rules=wanted)
    return referee.live_id


def _served(args, source, recognizer, calibration, opts) -> int:
    from sueca.server.runner import serve
    from sueca.vision.geometry import Calibration
    from sueca.vision.pipeline import Pipeline

    state: dict = {}

    def run_source(feed, stop: threading.Event) -> None:
        import cv2

        last = [0.0]

        def frame_out(image, dets, index, t) -> None:
            # the dashboard's camera view: a small JPEG twice a second is plenty
            now = time.monotonic()
            if stop.is_set():
                raise KeyboardInterrupt
            if now - last[0] < 0.5 or image is None:
                return
            last[0] = now
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
            if ok:
                feed.on_frame(buf.tobytes(), (image.shape[1], image.shape[0]), dets, index, t)

        # the referee's committed record is the truth: corrections on the dashboard
        # move the pipeline's turn, trump and played cards too
        pipe = Pipeline(source, recognizer, calibration, on_event=feed.on_event, on_frame=frame_out,
                        committed=feed.committed, **opts)
        state["pipe"] = pipe
        feed.on_calibration(lambda cal: pipe.set_calibration(Calibration.from_json(cal)))
        try:
            pipe.run()
        except KeyboardInterrupt:
            pass
        finally:
            source.close() if hasattr(source, "close") else None

    def setup(app) -> None:
        if args.rules is not None:
            table_rules(app.state.referee, opts["rules"])

    code = serve(args.data_dir, args.host, args.port, source=run_source, setup=setup)
    if args.record and "pipe" in state:
        _write(args.record, state["pipe"])
    return code
