"""Train the YOLO-OBB card locator (training venv only: ultralytics + torch).

Offline by construction: the model is built from ``yolo11n-obb.yaml`` (no
``*.pt`` download), ``YOLO_OFFLINE=1``, and ultralytics' config folder is a
project folder holding a font copied from the machine and ``sync: false``.

>>> # .venv-train/bin/python -m sueca.vision.train_locator DATA.yaml --epochs 1   # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)


def _any_ttf() -> Path:
    for p in FONT_CANDIDATES:
        if Path(p).is_file():
            return Path(p)
    for root in ("/usr/share/fonts", "/usr/local/share/fonts"):
        for p in sorted(Path(root).rglob("*.ttf")) if Path(root).is_dir() else []:
            return p
    try:
        import matplotlib

        return Path(matplotlib.__file__).parent / "mpl-data/fonts/ttf/DejaVuSans.ttf"
    except ImportError:  # pragma: no cover
        raise FileNotFoundError("no TrueType font on this machine for ultralytics' plots") from None


def setup_ultralytics(config_dir: str | Path) -> Path:
    """Point ultralytics at ``config_dir`` and keep it offline. Call before importing it."""
    config_dir = Path(config_dir).resolve()
    ul = config_dir / "Ultralytics"
    ul.mkdir(parents=True, exist_ok=True)
    for name in ("Arial.ttf", "Arial.Unicode.ttf"):
        if not (ul / name).is_file():
            shutil.copyfile(_any_ttf(), ul / name)
    settings = ul / "settings.json"
    data = json.loads(settings.read_text()) if settings.is_file() else {}
    data.update({"sync": False, "hub": False, "clearml": False, "comet": False, "dvc": False, "mlflow": False,
                 "neptune": False, "raytune": False, "tensorboard": False, "wandb": False,
                 "runs_dir": str(config_dir.parent / "runs")})
    settings.write_text(json.dumps(data, indent=2))
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_VERBOSE", "True")
    return config_dir


#: Augmentation of the table scenes: cards lie at any rotation, light varies.
AUGMENT = dict(degrees=180.0, fliplr=0.5, flipud=0.5, mosaic=1.0, scale=0.5, translate=0.1,
               hsv_h=0.02, hsv_s=0.6, hsv_v=0.5)


def train_locator(data_yaml: str | Path, out_dir: str | Path, epochs: int, imgsz: int = 320, batch: int = 16,
                  workers: int = 2, model_yaml: str = "yolo11n-obb.yaml", seed: int = 0, fraction: float = 1.0,
                  close_mosaic: int = 3, patience: int = 100, name: str = "locator", **overrides) -> Path:
    """Train (from scratch, or from the checkpoint ``model_yaml`` names); returns the best checkpoint."""
    out_dir = Path(out_dir).resolve()
    setup_ultralytics(out_dir / "yolo_config")
    from ultralytics import YOLO

    model = YOLO(model_yaml)
    t0 = time.time()
    model.train(**{
        **dict(data=str(Path(data_yaml).resolve()), epochs=epochs, imgsz=imgsz, batch=batch, workers=workers,
               device="cpu", project=str(out_dir), name=name, exist_ok=True, seed=seed, deterministic=False,
               pretrained=not str(model_yaml).endswith(".yaml"), amp=False, plots=False, verbose=False,
               fraction=fraction, patience=patience, close_mosaic=close_mosaic, cache="ram"),
        **AUGMENT, **overrides})
    best = out_dir / name / "weights" / "best.pt"
    if not best.is_file():
        best = out_dir / name / "weights" / "last.pt"
    (out_dir / name / "train_seconds.txt").write_text(f"{time.time() - t0:.1f}\n")
    return best


def finetune_locator(last_pt: str | Path, data_yaml: str | Path, out_dir: str | Path, epochs: int,
                     imgsz: int = 320, batch: int = 16, seed: int = 1, lr0: float = 0.002,
                     close_mosaic: int = 3) -> Path:
    """Continue training from ``last_pt`` with a fresh learning-rate schedule from ``lr0`` (no warm-up).

    The optimizer is named (AdamW, momentum 0.9): ultralytics' default ``optimizer="auto"``
    ignores ``lr0`` and, for runs this short and one class, takes AdamW at 0.002 itself, which
    is what every fine-tuning round of the installed locator ran with (``models/EXPERIMENTS.md``,
    2026-12-05, seventh session)."""
    return train_locator(data_yaml, out_dir, epochs, imgsz, batch, model_yaml=str(last_pt), seed=seed,
                         name="locator_ft", lr0=lr0, warmup_epochs=0, close_mosaic=close_mosaic,
                         optimizer="AdamW", momentum=0.9)


#: First scene seeds of the printed-deck step's data: printed decks, then the training styles
#: (no other step or check draws these).
PRINTED_SEED0, PRINTED_SYNTH_SEED0 = 7_000_000, 7_100_000


def printed_deck_data(data: str | Path, scenes: int, synth_scenes: int | None = None,
                      decks: str = "real_train_all") -> Path:
    """Render the locator's set of printed decks: ``scenes`` scenes of ``decks`` and
    ``synth_scenes`` (default as many) of the training styles, 640x480 as the locator's own
    data, every 10th for validation; returns its ``data.yaml``.

    The locator learnt from the generator's courts and misses some printed ones (a Bellot
    jack in plain view, frame after frame: ``models/EXPERIMENTS.md``, 2026-12-05); the
    training styles beside them keep what it knew. Raises ``ValueError`` naming the decks
    where they are not fetched (``sueca dataset fetch-heldout-decks``), before rendering.
    """
    from sueca.datasets.build import build_dataset
    from sueca.datasets.styles import resolve_styles
    from sueca.vision.train_data import write_yaml

    resolve_styles(decks)
    data = Path(data)
    synth = scenes if synth_scenes is None else synth_scenes
    for name, seed, styles, n in (("real", PRINTED_SEED0, decks, scenes), ("synth", PRINTED_SYNTH_SEED0, None, synth)):
        build_dataset(data / name, n, seed=seed, size=(640, 480), progress=False, overwrite=True, styles=styles)
    return write_yaml(data, ["real", "synth"])


def printed_deck_round(work: str | Path, best: str | Path, scenes: int, synth_scenes: int, epochs: int,
                       lr0: float, imgsz: int = 320, batch: int = 16, log=print, seed: int = 7) -> Path:
    """The recipe's round on printed decks (preset ``locator_real``): :func:`printed_deck_data`
    in ``work/locator_real``, then :func:`finetune_locator` from ``best``; returns the new
    checkpoint, or ``best`` itself where no printed deck is fetched. What it did goes to
    ``work/locator_real.json`` (the model's stages record it)."""
    from sueca.datasets.styles import resolve_styles

    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    done = {"scenes": scenes, "synth_scenes": synth_scenes, "epochs": epochs, "lr0": lr0}
    try:
        yaml = printed_deck_data(work / "locator_real", scenes, synth_scenes)
    except ValueError as e:
        log(f"locator on printed decks skipped: {e}")
        (work / "locator_real.json").write_text(json.dumps({**done, "skipped": str(e)}))
        return Path(best)
    decks = [s.name for s in resolve_styles("real_train_all")]
    log(f"locator on printed decks: {scenes} scenes of {len(decks)} decks + {synth_scenes} of the training styles, "
        f"{epochs} epochs, lr0 {lr0}")
    best = finetune_locator(best, yaml, work / "ft_real", epochs, imgsz, batch, seed=seed, lr0=lr0,
                            close_mosaic=epochs)
    (work / "locator_real.json").write_text(json.dumps({**done, "decks": len(decks)}))
    return best


def export_locator(pt: str | Path, imgsz: tuple[int, int], out_path: str | Path, config_dir: str | Path) -> Path:
    """Export the checkpoint to a fixed-shape ONNX graph (raw head output, NMS done at run time)."""
    import tempfile

    setup_ultralytics(config_dir)
    from ultralytics import YOLO

    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    # ultralytics writes the graph beside the checkpoint: from a copy in a folder of its own, so
    # that a second export of the same weights (the small copy) never overwrites the first
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / Path(pt).name
        shutil.copyfile(pt, src)
        produced = YOLO(str(src)).export(format="onnx", imgsz=list(imgsz), simplify=True, dynamic=False,
                                         opset=17, half=False, nms=False, device="cpu")
        shutil.copyfile(produced, out_path)
    return out_path


def model_with_locator(model_dir: str | Path, checkpoint: str | Path, out: str | Path,
                       config_dir: str | Path) -> Path:
    """A copy of the model folder ``model_dir`` at ``out`` (replaced where it exists) whose locator
    is ``checkpoint``: stripped ``locator.pt`` and its ONNX files (:func:`export_locators`);
    everything else as it was. The old locator's 8-bit files are removed and unnamed, so ONNX
    Runtime runs the new float locators until ``python -m sueca.vision.quantize OUT --only
    locator locator_zoom`` makes theirs. Returns ``out``."""
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(model_dir, out, ignore=shutil.ignore_patterns("*.png", "*.md"))
    strip_checkpoint(checkpoint, out / "locator.pt")
    export_locators(out, config_dir)
    _forget_8bit_locators(out)
    return out


def tune_on_parts(model_dir: str | Path, out: str | Path, parts: list, epochs: int, lr0: float,
                  info_key: str, log=print) -> Path:
    """Render each of ``parts`` ((folder, first seed, decks, scenes, scene options), 640x480 as
    the locator's own data) under ``out/data``, go on training ``model_dir``'s ``locator.pt`` on
    them all (:func:`finetune_locator`, no mosaic) and write a copy of ``model_dir`` with the new
    locator to ``out/model`` (:func:`model_with_locator`), the parts and the run noted in its
    ``recognizer.json`` under ``info[info_key]``. Returns ``out/model``."""
    from sueca.datasets.build import build_dataset
    from sueca.vision.train_data import write_yaml

    out, t0 = Path(out), time.time()
    data = out / "data"
    for name, seed, styles, n, options in parts:
        build_dataset(data / name, n, seed=seed, size=(640, 480), progress=False, overwrite=True,
                      styles=styles, scene_options=options)
        log(f"{name}: {n} scenes ({time.time() - t0:.0f} s)")
    yaml = write_yaml(data, [p[0] for p in parts])
    best = finetune_locator(Path(model_dir) / "locator.pt", yaml, out / "ft", epochs, 320, 16, seed=1,
                            lr0=lr0, close_mosaic=epochs)
    log(f"data and fine-tuning: {time.time() - t0:.0f} s -> {best}")
    model = model_with_locator(model_dir, best, out / "model", out / "yolo_config")
    cfg_path = model / "recognizer.json"
    cfg = json.loads(cfg_path.read_text())
    cfg.setdefault("info", {})[info_key] = {
        "parts": [{"name": n, "seed0": s, "decks": d or "train", "scenes": k, **o} for n, s, d, k, o in parts],
        "epochs": epochs, "lr0": lr0, "s": round(time.time() - t0)}
    cfg_path.write_text(json.dumps(cfg, indent=1))
    log(f"model: {model} ({time.time() - t0:.0f} s)")
    return model


def _forget_8bit_locators(model_dir: Path) -> None:
    from sueca.vision.quantize import forget_8bit

    forget_8bit(model_dir, ("locator", "locator_zoom"))


def export_locators(model_dir: str | Path, config_dir: str | Path) -> list[Path]:
    """Export ``model_dir/locator.pt`` to each ONNX file its ``recognizer.json`` names: the
    locator's, and the zoomed-out look's small-input copy (``locator.zoom``) where it has one."""
    model_dir = Path(model_dir)
    loc = json.loads((model_dir / "recognizer.json").read_text())["locator"]
    shapes = [(loc.get("onnx", "locator.onnx"), loc["imgsz"])]
    if isinstance(loc.get("zoom"), dict):
        shapes.append((loc["zoom"]["onnx"], loc["zoom"]["imgsz"]))
    return [export_locator(model_dir / "locator.pt", tuple(imgsz), model_dir / name, config_dir)
            for name, imgsz in shapes]


def strip_checkpoint(pt: str | Path, out_path: str | Path) -> Path:
    """Keep only what inference needs (half-precision weights, no optimizer): a small ``locator.pt``."""
    from ultralytics.utils.torch_utils import strip_optimizer

    out_path = Path(out_path)
    shutil.copyfile(pt, out_path)
    strip_optimizer(str(out_path))
    return out_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train the YOLO-OBB card locator.")
    ap.add_argument("data", help="dataset yaml (YOLO-OBB)")
    ap.add_argument("--out", default="out/train")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=16)
    args = ap.parse_args(argv)
    print(train_locator(args.data, args.out, args.epochs, args.imgsz, args.batch))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
