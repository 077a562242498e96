"""``sueca train``: reproduce the card recognition models from nothing.

>>> import argparse; p = argparse.ArgumentParser(); s = p.add_subparsers()
>>> register(s); a = p.parse_args(["train", "--preset", "quick", "--no-fetch"]); a.preset, a.fetch
('quick', False)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PRESET_NAMES = ("smoke", "quick", "default", "long")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train",
        help="treinar os modelos de reconhecimento / train the card recognition models",
        description="Gera dados sintéticos, treina localizador + leitor, exporta ONNX, avalia e escreve "
                    "o cartão do modelo. / Generates data, trains, exports, evaluates, writes the model card.",
    )
    p.add_argument("--preset", choices=PRESET_NAMES, default="default",
                   help="tamanho do treino / training size (default: default, <= 75 min on 2 cores)")
    p.add_argument("--work", default=None, help="pasta de trabalho / work folder (default: out/train/PRESET)")
    p.add_argument("--install", default=None, metavar="DIR",
                   help="copiar os modelos para DIR (ex. models) / copy the trained models into DIR")
    p.add_argument("--threads", type=int, default=None, help="torch threads")
    p.add_argument("--no-fetch", dest="fetch", action="store_false",
                   help="não descarregar arte de terceiros; usar a que está em cache / do not fetch the "
                        "third-party deck art and textures first (npm, apt, pip); use what is cached")
    p.set_defaults(func=handler)


def _train_python() -> Path | None:
    """The training venv's python, when this interpreter lacks torch."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        py = root / ".venv-train" / "bin" / "python"
        if py.is_file():
            return py
    return None


def handler(args) -> int:
    try:
        import torch  # noqa: F401
        import ultralytics  # noqa: F401
    except ImportError:
        py = _train_python()
        if py is None or Path(sys.executable).resolve() == py.resolve():
            print("erro: 'sueca train' precisa de torch + ultralytics; crie .venv-train "
                  "(pip install -e '.[train]') / error: needs the training venv", file=sys.stderr)
            return 2
        argv = [str(py), "-m", "sueca", "train", "--preset", args.preset]
        for flag, val in (("--work", args.work), ("--install", args.install), ("--threads", args.threads)):
            if val is not None:
                argv += [flag, str(val)]
        if not args.fetch:
            argv.append("--no-fetch")
        os.execv(str(py), argv)
    from sueca.vision.train_run import PRESETS, run

    work = Path(args.work or Path("out") / "train" / args.preset)
    metrics = run(PRESETS[args.preset], work, args.install, args.threads, fetch=args.fetch)
    print(f"recall {metrics['recall_readable']:.4f}, wrong identities {metrics['wrong_identities']}"
          f"/{metrics['reported_identities']}; model in {work / 'model'}")
    return 0
