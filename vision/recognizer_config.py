"""Where the recognizer's models live and what their ``recognizer.json`` says; loading them.

:class:`RecognizerConfig` is the model folder's config file as a value;
:func:`load_recognizer` builds a :class:`~sueca.vision.recognizer.Recognizer` from a folder,
on ONNX Runtime (the default, no torch) or on PyTorch.

>>> cfg = RecognizerConfig.load(default_model_dir())
>>> cfg.threshold > 0.5, cfg.to_dict()["locator"]["classes"]
(True, ['card'])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sueca.vision.readings import READER_CLASSES
from sueca.vision.rectify import CropSpec

CONFIG_NAME = "recognizer.json"
BACKENDS = ("onnx", "ultralytics")
PRECISIONS = ("int8", "fp32")

if TYPE_CHECKING:
    from sueca.vision.recognizer import Recognizer


def default_model_dir() -> Path:
    """The weights shipped in the package (``models/``)."""
    import sueca.models

    return Path(sueca.models.__file__).resolve().parent


@dataclass(frozen=True)
class RecognizerConfig:
    """What ``models/recognizer.json`` says about the two models."""

    locator_onnx: str = "locator.onnx"
    locator_pt: str = "locator.pt"
    imgsz: tuple[int, int] = (256, 320)
    locate_conf: float = 0.35
    locate_iou: float = 0.5
    reader_onnx: str = "reader.onnx"
    reader_pt: str = "reader.pt"
    crop: CropSpec = field(default_factory=CropSpec)
    reader_classes: tuple[str, ...] = READER_CLASSES
    temperature: float = 1.0
    threshold: float = 0.9
    # per-frame threshold on video: a frame's reading is one vote, and the tracker settles
    # a card only on agreeing votes with a clear lead (None: the single-image threshold)
    video_threshold: float | None = None
    ambiguous: float = 0.82  # short/long side ratio above which landscape orderings are read too
    refine: bool = True  # sharpen each located outline at full resolution (sueca.vision.refine)
    # also locate on the mirrored frame and add the cards only that pass finds (Recognizer.locate);
    # such a card is kept only where read at the single-image threshold, whatever the caller asks
    flip_pass: bool = False
    # also add lone card-shaped patches of card stock (sueca.vision.proposals), read the same way
    stock_pass: bool = False
    # also locate on the frame shrunk three times, where its cards are larger than the locator learnt
    zoom_pass: bool = False
    # that look by the locator's weights at a small input ({"onnx", "imgsz"}, exported beside
    # the locator; "conf": the score its boxes need, default the locator's), on every still
    # image; None: the locator itself on a shrunk canvas, on demand
    zoom_net: dict | None = None
    # on a still image also the locator's own boxes scored from faint_conf up to locate_conf, the
    # best faint_max of those on no card found: a second opinion as the mirrored pass's (None / 0: off)
    faint_conf: float | None = None
    faint_max: int = 0
    # a still image whose largest outline is at least "trigger" of the short side is read again
    # shrunk until it is "target" (sueca.vision.closeup); None: off
    closeup: dict | None = None
    # the learned outline stage (sueca.vision.outliner); None: classical refinement only
    outliner: dict | None = None
    # a second reader (other width, other data) that must read the same card:
    # {"onnx", "pt", "temperature"}; None: the first reader alone
    second_reader: dict | None = None
    # the card's face (sueca.vision.face_suit): {"onnx", "pt", "temperature", "sure", "doubt",
    # "fuse", "classes", "rank", "rank_check", "court_power"}; with "fuse" it weighs the readers
    # (by its suit, and with "rank" by its suit and rank group: "classes" "card"; a court's
    # factor raised to "court_power"), and a reading whose suit it rules out is withdrawn (with
    # "rank_check", whose rank group too); None: no face
    face_suit: dict | None = None
    # 8-bit copies of the ONNX networks (sueca.vision.quantize): {"files": {network: file},
    # "default": whether ONNX Runtime loads them unless told otherwise, ...}; None: float only
    int8: dict | None = None
    # a still image's card whose first outline reads clearly is not read on its other outlines
    # (Recognizer.read_quads; video keeps its crop memory instead)
    lazy: bool = False
    # a colour cast past these (warm-cold, green-magenta; log gain) is taken back by them before
    # anything is read (sueca.vision.balance); None: frames are read as they come
    balance: tuple[float, float] | None = None
    # a locator and an outliner tuned on white table tops, used where the cards' surrounds are as
    # bright as their stock (sueca.vision.tabletop): {"locator": {"onnx", "pt"}, "outliner":
    # {"onnx", "pt"}, "ratio", "least", "conf", "video_conf"} (see _white); None: the one locator
    # and outliner on every table
    white: dict | None = None
    # a still image read again in 2 x 2 tiles (sueca.vision.tiles): "always", "small" (only a
    # large photo of small cards), or None: never
    tiles: str | None = None
    # how a tile is read (sueca.vision.tiles.TILE_READING's keys): "hand_read", a tile takes the
    # whole image's readings of the cards it read; "flip", "zoom", "closeup" false: those second
    # opinions, which the whole image asked already, are not asked in a tile.
    # None: a tile is read as a photo of its own
    tile_reading: dict | None = None
    info: dict = field(default_factory=dict)

    @classmethod
    def load(cls, model_dir: str | Path) -> "RecognizerConfig":
        path = Path(model_dir) / CONFIG_NAME
        if not path.is_file():
            raise FileNotFoundError(f"configuração do modelo em falta / model config missing: {path}")
        d = json.loads(path.read_text())
        loc, rd = d["locator"], d["reader"]
        classes = tuple(rd["classes"])
        if classes != READER_CLASSES:
            raise ValueError(f"{path}: reader classes differ from sueca.vision.classes.CARD_CODES + '?'")
        return cls(
            locator_onnx=loc.get("onnx", "locator.onnx"), locator_pt=loc.get("pt", "locator.pt"),
            imgsz=tuple(loc["imgsz"]), locate_conf=float(loc.get("conf", 0.35)), locate_iou=float(loc.get("iou", 0.5)),
            reader_onnx=rd.get("onnx", "reader.onnx"), reader_pt=rd.get("pt", "reader.pt"),
            crop=CropSpec.from_dict(rd["crop"]), reader_classes=classes,
            temperature=float(rd["temperature"]), threshold=float(rd["threshold"]),
            video_threshold=None if rd.get("video_threshold") is None else float(rd["video_threshold"]),
            ambiguous=float(rd.get("ambiguous", 0.82)), lazy=bool(rd.get("lazy", False)),
            refine=bool(loc.get("refine", True)),
            flip_pass=bool(loc.get("flip", False)), stock_pass=bool(loc.get("stock", False)),
            zoom_pass=bool(loc.get("zoom", False)),
            zoom_net=loc["zoom"] if isinstance(loc.get("zoom"), dict) else None,
            faint_conf=None if loc.get("faint") is None else float(loc["faint"]["conf"]),
            faint_max=0 if loc.get("faint") is None else int(loc["faint"]["max"]),
            closeup=_closeup(loc.get("closeup"), path),
            outliner=_outliner(d.get("outliner"), path), second_reader=rd.get("second"),
            face_suit=_face_suit(d.get("face_suit"), path),
            int8=d.get("int8"), balance=_balance(d.get("balance"), path), white=_white(d.get("white"), path),
            tiles=_tiles(d.get("tiles"), path), tile_reading=_tile_reading(d.get("tile_reading"), path),
            info=d.get("info", {}),
        )

    def to_dict(self) -> dict:
        return {
            "locator": {"onnx": self.locator_onnx, "pt": self.locator_pt, "imgsz": list(self.imgsz),
                        "classes": ["card"], "conf": self.locate_conf, "iou": self.locate_iou, "refine": self.refine,
                        **({"flip": True} if self.flip_pass else {}),
                        **({"stock": True} if self.stock_pass else {}),
                        **({"zoom": self.zoom_net or True} if self.zoom_pass else {}),
                        **({"faint": {"conf": self.faint_conf, "max": self.faint_max}}
                           if self.faint_conf is not None else {}),
                        **({"closeup": dict(self.closeup)} if self.closeup else {})},
            "reader": {"onnx": self.reader_onnx, "pt": self.reader_pt, "crop": self.crop.to_dict(),
                       "classes": list(self.reader_classes), "temperature": self.temperature,
                       "threshold": self.threshold, "video_threshold": self.video_threshold,
                       "ambiguous": self.ambiguous, **({"lazy": True} if self.lazy else {}),
                       **({"second": self.second_reader} if self.second_reader else {})},
            **({"outliner": self.outliner} if self.outliner else {}),
            **({"face_suit": self.face_suit} if self.face_suit else {}),
            **({"int8": self.int8} if self.int8 else {}),
            **({"balance": list(self.balance)} if self.balance is not None else {}),
            **({"white": self.white} if self.white else {}),
            **({"tiles": self.tiles} if self.tiles else {}),
            **({"tile_reading": dict(self.tile_reading)} if self.tile_reading else {}),
            "info": self.info,
        }


def _tiles(value, path: Path) -> str | None:
    """``tiles`` checked: null, "always" or "small" (:data:`sueca.vision.tiles.POLICIES`)."""
    from sueca.vision.tiles import POLICIES

    if value is not None and value not in POLICIES:
        raise ValueError(f"{path}: tiles must be null or one of {', '.join(POLICIES)}, got {value!r}")
    return value


def _tile_reading(value, path: Path) -> dict | None:
    """``tile_reading`` checked: null, or an object of true/false values whose keys are
    :data:`sueca.vision.tiles.TILE_READING`'s."""
    from sueca.vision.tiles import TILE_READING

    if value is None:
        return None
    if not isinstance(value, dict) or not all(isinstance(v, bool) for v in value.values()):
        raise ValueError(f"{path}: tile_reading must be null or an object of true/false values, got {value!r}")
    unknown = sorted(set(value) - set(TILE_READING))
    if unknown:
        raise ValueError(f"{path}: tile_reading: unknown key(s) {', '.join(unknown)}; "
                         f"expected some of {', '.join(TILE_READING)}")
    return dict(value)


def _balance(value, path: Path) -> tuple[float, float] | None:
    """``balance`` checked: null, or the casts left alone, [warm-cold, green-magenta], each a
    log gain from 0 to under 2."""
    if value is None:
        return None
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < 2 for v in value)):
        raise ValueError(f"{path}: balance must be null or [warm-cold, green-magenta], two numbers from 0 "
                         f"to under 2, got {value!r}")
    return (float(value[0]), float(value[1]))


def _white(value, path: Path) -> dict | None:
    """``white`` checked: a locator and an outliner file each, ``ratio`` (0.5 to 1.5: the cards'
    surround over their stock, :mod:`sueca.vision.tabletop`), ``least`` (cards, 1 or more),
    ``conf``, the score the white locator's boxes need (0 to 1; default the locator's), and
    ``video_conf``, the score an unread box of theirs needs on video (0 to 1; default none)."""
    if value is None:
        return None
    try:
        files = [value[part]["onnx"] for part in ("locator", "outliner")]
        ratio, least = float(value["ratio"]), int(value["least"])
        scores = [float(value.get(k) if value.get(k) is not None else 0.5) for k in ("conf", "video_conf")]
    except (TypeError, KeyError, ValueError):
        raise ValueError(f'{path}: white must be {{"locator": {{"onnx": ...}}, "outliner": {{"onnx": ...}}, '
                         f'"ratio": R, "least": N, "conf": C, "video_conf": V}}, got {value!r}') from None
    if (not all(isinstance(f, str) and f for f in files) or not 0.5 <= ratio <= 1.5 or least < 1
            or not all(0 < c < 1 for c in scores)):
        raise ValueError(f"{path}: white needs file names, 0.5 <= ratio <= 1.5, least >= 1 and scores (conf, "
                         f"video_conf) between 0 and 1, got {value!r}")
    return value


def _closeup(value, path: Path) -> dict | None:
    """``locator.closeup`` checked: {"trigger", "target"}, 0 < target < trigger <= 1."""
    if value is None:
        return None
    try:
        trigger, target = float(value["trigger"]), float(value["target"])
    except (TypeError, KeyError, ValueError):
        raise ValueError(f'{path}: locator.closeup must be {{"trigger": T, "target": S}}, got {value!r}') from None
    if not 0 < target < trigger <= 1:
        raise ValueError(f"{path}: locator.closeup needs 0 < target < trigger <= 1, got {value!r}")
    return {"trigger": trigger, "target": target}


def _outliner(value, path: Path) -> dict | None:
    """``outliner`` with its ``anchored`` checked: false, true (the locator's own unread boxes)
    or "all" (the second opinions' too), ``shrunk``: false or the factor an unread outline
    is shrunk by (0.8 to 1, :mod:`sueca.vision.shrunk`), and ``split_box``: false, true (the
    locator's own boxes) or "all" (:mod:`sueca.vision.split_box`), and ``last_look``: false or
    the threshold a box still unread is read at (0.5 to 1, :mod:`sueca.vision.last_look`), and
    ``close_look``: false or the frames a box lies unread on video before its close look
    (frames at 10 a second where the frames' times are known: 8 is 0.8 s at any rate;
    :mod:`sueca.vision.close_look`); a misspelt word would otherwise read as true."""
    if value is None:
        return value
    if value.get("anchored", False) not in (False, True, "all"):
        raise ValueError(f'{path}: outliner.anchored must be false, true or "all", got {value["anchored"]!r}')
    _false_or_under_1(value, "shrunk", 0.8, "a factor", path)
    if value.get("split_box", False) not in (False, True, "all"):
        raise ValueError(f'{path}: outliner.split_box must be false, true or "all", got {value["split_box"]!r}')
    _false_or_under_1(value, "last_look", 0.5, "a threshold", path)
    close = value.get("close_look", False)
    if close is not False and (isinstance(close, bool) or not isinstance(close, int) or close < 1):
        raise ValueError(f"{path}: outliner.close_look must be false or a number of frames (1 or more), "
                         f"got {close!r}")
    return value


def _false_or_under_1(outliner: dict, key: str, low: float, what: str, path: Path) -> None:
    """``outliner[key]`` absent, false, or a number from ``low`` to under 1 (a bool is no number)."""
    v = outliner.get(key, False)
    if v is not False and (isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v < 1):
        raise ValueError(f"{path}: outliner.{key} must be false or {what} from {low} to under 1, got {v!r}")


def _face_suit(value, path: Path) -> dict | None:
    """``face_suit`` with its ``court_power`` checked: a number, 0 < p <= 1 (0 would erase a
    court's face, above 1 would make it surer than its signs allow)."""
    if value is None or "court_power" not in value:
        return value
    try:
        power = float(value["court_power"])
    except (TypeError, ValueError):
        raise ValueError(f"{path}: face_suit.court_power must be a number, got {value['court_power']!r}") from None
    if not 0 < power <= 1:
        raise ValueError(f"{path}: face_suit.court_power needs 0 < p <= 1, got {power!r}")
    return value


def load_recognizer(model_dir: str | Path | None = None, backend: str = "onnx",
                    threads: int | None = None, model: str | Path | None = None,
                    precision: str | None = None) -> Recognizer:
    """The recognizer of ``model_dir`` (default: the package's ``models/``).

    ``backend``: ``"onnx"`` (ONNX Runtime, no torch; the default and the Pi's)
    or ``"ultralytics"`` (PyTorch weights ``locator.pt``/``reader.pt``; needs the
    training extra). ``model`` may name a model folder, its ``recognizer.json``
    or a locator weight file (``.onnx``/``.pt``) whose folder holds the rest.
    ``precision`` (ONNX Runtime): ``"int8"`` (the 8-bit networks of ``sueca.vision.quantize``),
    ``"fp32"``, or None: the model's own choice (``int8.default`` in its config).
    """
    from sueca.vision.recognizer import Recognizer

    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    locator_file = None
    if model is not None:
        p = Path(model)
        if p.is_dir():
            model_dir = p
        elif p.suffix in (".json", ".onnx", ".pt"):
            if not p.is_file():
                raise FileNotFoundError(f"modelo não encontrado / model not found: {p}")
            model_dir = p.parent
            locator_file = p if p.suffix != ".json" else None
            if locator_file is not None:
                backend = "onnx" if p.suffix == ".onnx" else "ultralytics"
        else:
            raise ValueError(f"--model: expected a folder, recognizer.json, .onnx or .pt, got {p}")
    model_dir = Path(model_dir) if model_dir is not None else default_model_dir()
    cfg = RecognizerConfig.load(model_dir)
    if precision not in (None, *PRECISIONS):
        raise ValueError(f"unknown precision {precision!r}; choose one of {', '.join(PRECISIONS)}")
    if precision == "int8" and backend != "onnx":
        raise ValueError("the 8-bit networks run on ONNX Runtime only (backend onnx)")
    if backend == "onnx":
        from sueca.vision.onnx_backend import OnnxLocator, OnnxOutliner, OnnxReader

        int8 = cfg.int8 or {}
        if precision is None:
            precision = "int8" if int8.get("default") else "fp32"
        if precision == "int8" and not int8.get("files"):
            raise ValueError(f"{model_dir}: this model has no 8-bit networks (run sueca.vision.quantize)")
        files = int8.get("files", {}) if precision == "int8" else {}

        def net(name: str, fp32: str) -> Path:
            return model_dir / files.get(name, fp32)

        locator = OnnxLocator(locator_file or net("locator", cfg.locator_onnx), cfg.imgsz, cfg.locate_conf,
                              cfg.locate_iou, threads)
        reader = OnnxReader(net("reader", cfg.reader_onnx), threads)
        second = OnnxReader(net("reader2", cfg.second_reader["onnx"]), threads) if cfg.second_reader else None
        face_net = OnnxReader(net("face_suit", cfg.face_suit["onnx"]), threads) if cfg.face_suit else None
        outline_net = OnnxOutliner(net("outliner", cfg.outliner["onnx"]), threads) if cfg.outliner else None
        # on one thread: so small an input parallelises poorly (2.15 ms a frame on one, 2.54 on two)
        small_locator = OnnxLocator(net("locator_zoom", cfg.zoom_net["onnx"]), cfg.zoom_net["imgsz"],
                                    float(cfg.zoom_net.get("conf", cfg.locate_conf)), cfg.locate_iou, 1, mirror=False) \
            if cfg.zoom_pass and cfg.zoom_net and locator_file is None else None
        white_nets = (OnnxLocator(net("locator_white", cfg.white["locator"]["onnx"]), cfg.imgsz,
                                  float(cfg.white.get("conf", cfg.locate_conf)), cfg.locate_iou, threads),
                      OnnxOutliner(net("outliner_white", cfg.white["outliner"]["onnx"]), threads)) \
            if cfg.white and outline_net is not None and locator_file is None else None
    else:
        from sueca.vision.torch_backend import TorchLocator, TorchReader

        locator = TorchLocator(locator_file or model_dir / cfg.locator_pt, cfg.imgsz, cfg.locate_conf,
                               cfg.locate_iou, threads)
        reader = TorchReader(model_dir / cfg.reader_pt, threads)
        second = TorchReader(model_dir / cfg.second_reader["pt"], threads) if cfg.second_reader else None
        face_net = TorchReader(model_dir / cfg.face_suit["pt"], threads) if cfg.face_suit else None
        # the same weights at the small input size (ultralytics letterboxes to any size)
        small_locator = TorchLocator(locator_file or model_dir / cfg.locator_pt, cfg.zoom_net["imgsz"],
                                     float(cfg.zoom_net.get("conf", cfg.locate_conf)), cfg.locate_iou, threads) \
            if cfg.zoom_pass and cfg.zoom_net else None
        outline_net, white_nets = None, None
        if cfg.outliner:
            from sueca.vision.torch_backend import TorchOutliner

            outline_net = TorchOutliner(model_dir / cfg.outliner["pt"], threads)
            if cfg.white and locator_file is None:
                white_nets = (TorchLocator(model_dir / cfg.white["locator"]["pt"], cfg.imgsz,
                                           float(cfg.white.get("conf", cfg.locate_conf)), cfg.locate_iou, threads),
                              TorchOutliner(model_dir / cfg.white["outliner"]["pt"], threads))
    outliner, white_outliner = None, None
    if outline_net is not None:
        from sueca.vision.outliner import Outliner

        o = cfg.outliner
        shape = (int(o.get("size", 64)), float(o.get("reach", 1.7)), int(o.get("passes", 2)))
        outliner = Outliner(outline_net, *shape)
        white_outliner = Outliner(white_nets[1], *shape) if white_nets is not None else None
    face = None
    if face_net is not None:
        from sueca.vision.face_suit import FaceSuit

        f = cfg.face_suit
        face = FaceSuit(face_net, float(f["temperature"]), float(f.get("sure", 0.5)), float(f.get("doubt", 0.05)),
                        bool(f.get("fuse", False)), bool(f.get("rank", False)), bool(f.get("rank_check", False)),
                        float(f.get("court_power", 1.0)))
    rec = Recognizer(locator, reader, cfg, outliner, second, face, small_locator)
    if white_outliner is not None:
        # the same readers, face and small look: only finding and outlining learnt white tops
        rec.white = Recognizer(white_nets[0], reader, cfg, white_outliner, second, face, small_locator)
    if backend == "onnx":
        # ONNX Runtime sessions run side by side safely (ultralytics' predictor keeps state)
        from sueca.vision.onnx_backend import available_cores
        from sueca.vision.tiles import TILES_AT_ONCE

        rec.tiles_at_once = max(1, min(TILES_AT_ONCE, int(threads) if threads else available_cores()))
    return rec
