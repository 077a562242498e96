"""The readers go on learning from other artists' decks (a recipe step, after the second reader).

Synthetic decks alone do not teach the readers printed decks: on the held-out real
decks (``scripts/real_decks_check.py``) the installed readers read few cards and
some wrongly. This step fine-tunes both readers on crops cut as at run time (the
locator and the outliner of ``model_dir``) from scenes of the real decks in
``REAL_TRAIN_STYLES`` (when fetched: ``sueca dataset fetch-heldout-decks``), half
and half with scenes of the training styles, and fits their temperatures again on
validation scenes of the training styles. The other real decks are never used here.
The ``glyph`` decks (generated decks with typefaces' suit signs) may join them: with both,
no validation reading was wrong from 0.93 up (``models/EXPERIMENTS.md``, 2026-12-04 later).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sueca.vision.train_run import VAL_SEED0

#: First scene seeds of the real-deck crops and of the synthetic half beside them.
REAL_TUNE_SEED0 = 3_500_000
REAL_TUNE_SYNTH_SEED0 = 3_600_000


def tune_on_real_decks(model_dir: str | Path, scenes: int, epochs: int, seed: int = 0, val_scenes: int = 100,
                       log=print, decks: str = "real_train", shapes: float = 0.0,
                       only: str | None = None, blur: float = 0.0) -> dict | None:
    """Fine-tune ``reader.pt`` and the second reader in ``model_dir`` in place (ONNX too).
    Returns ``{"real_tuned": {...}}`` (new temperatures, decks, crop accuracies), or None
    when no real training deck is cached (the readers stay as they are).

    ``decks``: the style groups the new crops come from, joined by "+": ``"real_train"``
    (other artists' decks, fetched) and/or ``"glyph"`` (generated decks with typefaces'
    suit signs), ``scenes`` scenes each. ``shapes``: the probability of a crop's stroke weight
    and of its index size being jittered while learning (:func:`sueca.vision.train_reader.shape_jitter`);
    ``blur``: of a crop being blurred past the generator's (:func:`~sueca.vision.train_reader.blur_jitter`).
    ``only``: ``"first"`` or ``"second"`` tunes that reader alone (the other stays as it is): two runs
    with other seeds give two readers that learnt from other crops, which err apart."""
    from sueca.datasets.styles import resolve_styles
    from sueca.vision.rectify import CropSpec
    from sueca.vision.train_data import build_recognizer_crops
    from sueca.vision.train_reader import calibrate, export_reader, load_reader, train_reader

    model_dir = Path(model_dir)
    second = json.loads((model_dir / "recognizer.json").read_text())["reader"].get("second")
    if only is not None and (only not in ("first", "second") or (only == "second" and not second)):
        raise ValueError(f"only={only!r}: expected 'first' or 'second' (for a model with a second reader)")
    groups, xs_new, ys_new, names = decks.split("+"), [], [], []
    for g, group in enumerate(groups):
        try:
            names_g = [s.name for s in resolve_styles(group)]
        except ValueError as e:
            log(f"real-deck tuning: {group} skipped: {e}")
            continue
        seed0 = REAL_TUNE_SEED0 + 50_000 * g + seed  # each group its own layouts
        x_g, y_g = build_recognizer_crops(range(seed0, seed0 + scenes), names_g, model_dir, log=log)
        xs_new.append(x_g)
        ys_new.append(y_g)
        names += names_g
    if not names:
        return None
    xr, yr = np.concatenate(xs_new), np.concatenate(ys_new)
    synth = scenes * len(xs_new)  # as many scenes of the training styles: half and half
    xs, ys = build_recognizer_crops(range(REAL_TUNE_SYNTH_SEED0 + seed, REAL_TUNE_SYNTH_SEED0 + seed + synth),
                                   "train", model_dir, log=log)
    vx, vy = build_recognizer_crops(range(VAL_SEED0, VAL_SEED0 + val_scenes), "train", model_dir, log=log)
    x, y = np.concatenate([xr, xs]), np.concatenate([yr, ys])
    log(f"real-deck tuning: {len(yr)} crops of {len(names)} decks ({names[0]}...) + {len(ys)} of the training styles")
    out = {"scenes": scenes, "epochs": epochs, "decks": names, "crops": [int(len(yr)), int(len(ys))],
           **({"shape_jitter": shapes} if shapes else {}), **({"blur_jitter": blur} if blur else {})}
    readers = [("reader", "temperature")] + ([(Path(second["pt"]).stem, "second_temperature")] if second else [])
    if only is not None:
        readers = readers[:1] if only == "first" else readers[1:]
        out["only"] = only
    for stem, key in readers:
        model = train_reader(x, y, epochs, lr=1e-3, seed=seed + 7, log=log, init=load_reader(model_dir / f"{stem}.pt"),
                             shapes=shapes, blur=blur)
        temp, acc = calibrate(model, vx, vy)
        export_reader(model, CropSpec().size, model_dir / f"{stem}.onnx", model_dir / f"{stem}.pt")
        out[key], out[f"{stem}_val_crop_accuracy"] = temp, acc
        log(f"real-deck tuning: {stem} run-time val crop accuracy {acc:.4f}, T={temp:.3f}")
    return {"real_tuned": out}


def install_readers(model_dir: str | Path, first: str | Path, second: str | Path, val_scenes: int = 100,
                    log=print) -> dict:
    """Put readers trained elsewhere (``export_reader``'s ``.pt``) in ``model_dir`` as its first and
    second reader, export them to ONNX and fit their temperatures on run-time crops of the
    validation scenes, as :func:`tune_on_real_decks` does. Returns ``{"real_tuned": {...}}``."""
    from sueca.vision.rectify import CropSpec
    from sueca.vision.train_data import build_recognizer_crops
    from sueca.vision.train_reader import calibrate, export_reader, load_reader

    model_dir = Path(model_dir)
    cfg = json.loads((model_dir / "recognizer.json").read_text())
    second_cfg = cfg["reader"].get("second")
    if not second_cfg:
        raise ValueError(f"{model_dir}: recognizer.json names no second reader")
    vx, vy = build_recognizer_crops(range(VAL_SEED0, VAL_SEED0 + val_scenes), "train", model_dir, log=log)
    out = {"installed_from": [str(first), str(second)]}
    for src, stem, key in ((first, "reader", "temperature"), (second, Path(second_cfg["pt"]).stem, "second_temperature")):
        model = load_reader(src)
        out[key], out[f"{stem}_val_crop_accuracy"] = calibrate(model, vx, vy)
        export_reader(model, CropSpec().size, model_dir / f"{stem}.onnx", model_dir / f"{stem}.pt")
        log(f"installed {src} as {stem}: run-time val crop accuracy {out[f'{stem}_val_crop_accuracy']:.4f}, "
            f"T={out[key]:.3f}")
    return {"real_tuned": out}


__all__ = ["tune_on_real_decks", "install_readers", "REAL_TUNE_SEED0"]
