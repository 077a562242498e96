"""8-bit copies of the recognizer's ONNX networks, for speed on the CPU (recipe step; needs ``onnx``).

Each network's convolutions and dense layers are quantized statically (weights int8 per output
channel, activations uint8, QDQ format) with ranges measured on the inputs the networks get at
run time: the float recognizer reads calibration scenes (seeds from :data:`QUANT_SEED0`, which no
other set uses) of the face network's three deck groups, and every input each network is given
is kept. What stays in float: each crop's own level normalisation (mean and spread, where a
shift of one step would move every pixel), and the locator's last layers, whose outputs are
boxes and angles (see :func:`locator_float`).

The 8-bit files sit beside the float ones (``locator.int8.onnx`` ...) and the model's
``recognizer.json`` names them under ``"int8"``; ``load_recognizer(precision=...)`` picks.

    .venv-train/bin/python -m sueca.vision.quantize models --scenes 40
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

#: First calibration scene seed; group k starts at QUANT_SEED0 + 50_000 k.
QUANT_SEED0 = 9_000_000
GROUPS = ("train", "glyph", "real_train_all")
#: The networks and their entries in recognizer.json.
NETWORKS = ("locator", "locator_zoom", "outliner", "reader", "reader2", "face_suit")
#: The operators quantized. The locator with all of its operators in 8 bits (its SiLU
#: activations, additions, concatenations too) ran 7.8 ms a pass against 10.7 but held a game
#: video's hand for the referee that this one reads right (models/EXPERIMENTS.md, 2026-12-05);
#: the readers' pooling in 8 bits saved 0.3 ms each and read one card more wrong.
CONV_ONLY = ["Conv", "Gemm", "MatMul"]


def locator_float(node: str) -> bool:
    """Whether a node of the YOLO11-OBB locator stays in float (of the operators quantized at
    all): everything of its head (model.23) but the convolution blocks inside the branches (so
    the branches' last convolutions and the decoding of boxes, angles and scores, where a step
    of 1/255 of the range moves a box), and the attention's softmax.

    >>> [locator_float(n) for n in ("/model.23/cv2.0/cv2.0.0/conv/Conv", "/model.23/cv2.0/cv2.0.2/Conv",
    ...                             "/model.23/dfl/conv/Conv", "/model.23/Concat_3", "/model.4/m.0/cv1/act/Mul")]
    [False, True, True, True, False]
    """
    if "/attn/Softmax" in node or "/dfl/" in node:
        return True
    return node.startswith("/model.23/") and "/conv/" not in node and "/act/" not in node


def _capture(session, sink: list) -> None:
    run = session.run

    def kept(outputs, feeds, *a, **k):
        sink.append(np.array(next(iter(feeds.values()))))
        return run(outputs, feeds, *a, **k)

    session.run = kept


def calibration_inputs(model_dir: str | Path, scenes: int = 40, log=print) -> dict[str, list[np.ndarray]]:
    """Every input each float network gets while the recognizer reads ``scenes`` scenes of each
    group (a group not fetched is skipped), still-image calls, by network name."""
    from sueca.datasets.scene import render_scene
    from sueca.datasets.styles import resolve_styles
    from sueca.vision.face_suit import face_crops
    from sueca.vision.onnx_backend import crops_to_nchw
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.rectify import corner_crops

    rec = load_recognizer(model_dir, backend="onnx", precision="fp32")
    # every outline read, as on video: the ranges cover all the crops a reader can be given
    rec.config = replace(rec.config, lazy=False)
    sinks: dict[str, list] = {n: [] for n in NETWORKS}
    for session in rec.locator.sessions:  # the frame's and the mirrored pass's
        _capture(session, sinks["locator"])
    if rec.small_locator is not None:  # the zoomed-out look's, on every still image
        _capture(rec.small_locator.session, sinks["locator_zoom"])
    outliner, face = rec.outliner.net if rec.outliner else None, rec.face.net if rec.face else None
    for name, net in (("outliner", outliner), ("reader", rec.reader), ("reader2", rec.second), ("face_suit", face)):
        for session in (net.sessions if net is not None else ()):  # a batch may be split over several
            _capture(session, sinks[name])
    at_true = {n: [] for n in NETWORKS}  # inputs cut at the cards' true outlines
    for k, group in enumerate(GROUPS):
        try:
            names = [s.name for s in resolve_styles(group)]
        except (FileNotFoundError, KeyError, ValueError) as e:
            log(f"calibration: group {group} skipped ({e})")
            continue
        for seed in range(QUANT_SEED0 + 50_000 * k, QUANT_SEED0 + 50_000 * k + scenes):
            scene = render_scene(seed, (1280, 960), names)
            rec(scene.image)
            quads = [np.asarray(c.corners, np.float32) for c in scene.cards if c.face_up]
            if quads:
                q = np.stack(quads)
                corners = crops_to_nchw(corner_crops(scene.image, q, rec.config.crop))
                at_true["reader"].append(corners)
                at_true["reader2"].append(corners)
                at_true["face_suit"].append(crops_to_nchw(face_crops(scene.image, q)))
                if rec.outliner is not None:
                    at_true["outliner"].append(crops_to_nchw(rec.outliner.views(scene.image, q)[1]))
    # a model that finds or reads little (a short training run) never asks some networks:
    # their ranges are then measured on inputs cut at the cards' true outlines
    for name, got in sinks.items():
        if not got:
            sinks[name] = at_true[name]
    return sinks


def rebatched(arrays: list[np.ndarray], rows: int = 256) -> list[np.ndarray]:
    """Calls' inputs (crops, a few per call) regrouped into batches of at most ``rows``.

    >>> [b.shape[0] for b in rebatched([np.zeros((3, 2)), np.zeros((4, 2))], rows=5)]
    [5, 2]
    """
    if not arrays:
        return []
    allrows = np.concatenate(arrays)
    return [allrows[i:i + rows] for i in range(0, len(allrows), rows)]


def quantize_network(src: Path, dst: Path, batches: list[np.ndarray], keep_float=None,
                     op_types: list[str] | None = None) -> None:
    """Static QDQ quantization of ``src`` into ``dst``, activation ranges from ``batches``
    (its inputs); ``keep_float(node name)``: the nodes that stay in float; ``op_types``: the
    operators quantized (None: all ONNX Runtime can)."""
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = onnx.load(str(src)).graph.input[0].name
    if not batches:
        raise ValueError(f"{src.name}: no calibration inputs")

    class Feed(CalibrationDataReader):
        def __init__(self):
            self.it = iter(batches)

        def get_next(self):
            x = next(self.it, None)
            return None if x is None else {name: x}

    pre = dst.with_suffix(".pre.onnx")
    quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
    nodes = [n.name for n in onnx.load(str(pre)).graph.node]
    excluded = [n for n in nodes if keep_float is not None and keep_float(n)]
    quantize_static(str(pre), str(dst), Feed(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    op_types_to_quantize=op_types, nodes_to_exclude=excluded,
                    calibrate_method=CalibrationMethod.MinMax)
    pre.unlink(missing_ok=True)


def _entries(cfg: dict) -> dict[str, dict]:
    """Each network's entry of recognizer.json (where it has one)."""
    zoom = (cfg.get("locator") or {}).get("zoom")
    out = {"locator": cfg.get("locator"), "locator_zoom": zoom if isinstance(zoom, dict) else None,
           "outliner": cfg.get("outliner"), "reader": cfg.get("reader"),
           "reader2": (cfg.get("reader") or {}).get("second"), "face_suit": cfg.get("face_suit")}
    return {k: v for k, v in out.items() if v and v.get("onnx")}


def quantize_models(model_dir: str | Path, scenes: int = 40, log=print, default: bool = True,
                    networks: list[str] | None = None) -> dict:
    """Write ``<net>.int8.onnx`` beside each float network of ``model_dir`` and name them in its
    ``recognizer.json`` (``"int8"``; ``default``: ONNX Runtime loads them unless told otherwise);
    returns that entry. ``networks``: only these (of :data:`NETWORKS`), the others' 8-bit files
    kept as they are (a network added to a quantized model; the readers' ranges, measured again
    with its boxes read too, would move a little)."""
    model_dir = Path(model_dir)
    t0 = time.time()
    cfg_path = model_dir / "recognizer.json"
    cfg = json.loads(cfg_path.read_text())
    unknown = sorted(set(networks or ()) - set(_entries(cfg)))
    if unknown:
        raise ValueError(f"{cfg_path}: no float network {', '.join(unknown)} to quantize "
                         f"(has {', '.join(_entries(cfg))})")
    inputs = calibration_inputs(model_dir, scenes, log)
    earlier = (cfg.get("int8") or {}) if networks else {}  # a run for some networks adds to the last
    files = dict(earlier.get("files", {}))
    for net, entry in _entries(cfg).items():
        if networks and net not in networks:
            continue
        src = model_dir / entry["onnx"]
        dst = src.with_name(src.stem + ".int8.onnx")
        if net in ("locator", "locator_zoom"):  # one frame a call
            quantize_network(src, dst, inputs[net], locator_float, CONV_ONLY)
        else:
            quantize_network(src, dst, rebatched(inputs[net]), op_types=CONV_ONLY)
        files[net] = dst.name
        log(f"{net}: {len(inputs[net])} calibration calls -> {dst.name} ({dst.stat().st_size // 1024} KB)")
    run = {"files": files, "default": bool(default), "scenes_per_group": scenes, "seed0": QUANT_SEED0,
           "groups": list(GROUPS),
           "method": "static QDQ, per-channel int8 weights, uint8 activations, MinMax ranges; "
                     "Conv/Gemm/MatMul only; locator head's last layers in float"}
    if networks:  # the earlier run's time stays; this one's is the added networks'
        added = [*earlier.get("added", []), {"networks": list(networks), "s": round(time.time() - t0)}]
        cfg["int8"] = {**earlier, **run, "added": added}
    else:
        cfg["int8"] = {**run, "s": round(time.time() - t0)}
    cfg_path.write_text(json.dumps(cfg, indent=1))
    return cfg["int8"]


def forget_8bit(model_dir: str | Path, networks) -> None:
    """Remove ``networks``' 8-bit files from ``model_dir`` and from its ``recognizer.json``: after
    new float weights, a copied 8-bit file holds the old ones, and ONNX Runtime would load it first.
    A model left with no 8-bit network loses its ``int8`` entry."""
    model_dir = Path(model_dir)
    path = model_dir / "recognizer.json"
    cfg = json.loads(path.read_text())
    files = (cfg.get("int8") or {}).get("files", {})
    for net in networks:
        if net in files:
            (model_dir / files.pop(net)).unlink(missing_ok=True)
    if cfg.get("int8") and not files:  # nothing left in 8 bits: the model is a float one
        del cfg["int8"]
    path.write_text(json.dumps(cfg, indent=1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--scenes", type=int, default=40, help="calibration scenes per deck group")
    ap.add_argument("--not-default", action="store_true", help="keep loading the float networks by default")
    ap.add_argument("--only", nargs="+", choices=NETWORKS, metavar="NET",
                    help=f"quantize only these ({', '.join(NETWORKS)}); the others' 8-bit files stay")
    a = ap.parse_args(argv)
    print(json.dumps(quantize_models(a.model_dir, a.scenes, default=not a.not_default, networks=a.only)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
