"""The training recipe's presets and the run-time settings it installs (``sueca.vision.train_run``).

A :class:`Preset` says how much data and how many epochs each step gets; :func:`runtime_config`
is the recognizer's config as the recipe writes it, each setting with the measurement behind it.

>>> PRESETS["default"].locator_epochs
10
"""

from __future__ import annotations

from dataclasses import dataclass

from sueca.vision.proposals import SMALL_IMGSZ
from sueca.vision.readings import READER_CLASSES
from sueca.vision.rectify import CropSpec
from sueca.vision.recognizer_config import RecognizerConfig

#: The first scene seed of each split the recipe makes beside its training scenes: validation,
#: the synthetic test, the tilted test and the printed decks' test.
VAL_SEED0 = 500_000
TEST_SEED0 = 900_000
TILT_SEED0 = 950_000
REAL_SEED0 = 970_000
#: The zoomed-out look's network: the locator exported at a small input, its boxes from score 0.1
#: (close-ups 1274 against 1196 read of 1735, the same 3 wrong: models/EXPERIMENTS.md, eighth session).
ZOOM_NET = {"onnx": "locator_zoom.onnx", "imgsz": list(SMALL_IMGSZ), "conf": 0.1}
#: Casts left alone (warm-cold, green-magenta; log gain): the 95th percentile of each on 300
#: validation scenes of the training styles, 0.502 and 0.154 (`scripts/robustness_check.py
#: --allowances 300`; models/EXPERIMENTS.md)
BALANCE = (0.5, 0.15)

#: A still image whose largest outline is 0.28 of its short side is read again shrunk until that
#: outline is 0.13 of it, the overhead camera's card (sueca.vision.closeup; models/EXPERIMENTS.md)
CLOSEUP = {"trigger": 0.28, "target": 0.13}
#: how a still image's tiles are read (``RecognizerConfig.tile_reading``)
TILE_LEAN = {"hand_read": True, "flip": False, "zoom": False, "closeup": False}


@dataclass(frozen=True)
class Preset:
    name: str
    train_scenes: int
    val_scenes: int
    test_scenes: int
    locator_epochs: int
    reader_epochs: int
    jitters: int = 2
    reader_extra_scenes: int = 0  # scenes used only for reader crops (cheap: no locator images)
    # then continue from the last weights at a lower learning rate, one round per entry:
    # (epochs, lr0, epochs without mosaic at the end)
    locator_finetune: tuple[tuple[int, float, int], ...] = ()
    imgsz: int = 320
    batch: int = 16
    seed: int = 0
    val_frames: int = 400  # validation scenes read whole to choose the card threshold
    # the learned outline stage: scenes (never the locator's), epochs; 0 scenes: none
    outliner_scenes: int = 1200
    outliner_epochs: int = 10
    # then the reader goes on learning from crops cut as at run time (locator + outliner)
    reader_tune_scenes: int = 800
    reader_tune_epochs: int = 4
    locate_conf: float = 0.2
    locate_iou: float = 0.65
    reader_width: int = 16  # channels of the reader's first layer (compute grows with its square)
    # a second reader that must agree with the first: (width, reader_extra_scenes); its own
    # run in work/second with this run's locator and outliner; None: one reader
    second_reader: tuple[int, int] | None = None
    # then both readers go on learning from the decks of real_tune_decks (train_real.py): this
    # many scenes of each group and as many of the training styles, reader_tune_epochs epochs;
    # 0: no. "real_train" (fetched real decks) alone left a confident wrong reading on
    # validation, so the threshold rule rose to 0.998; with the glyph decks beside them it
    # did not (models/EXPERIMENTS.md, 2026-12-04 and 2026-12-04 later); "real_train_all" adds
    # 17 more printed decks (KDE's Jolly Royal, GNOME's themes): 129 more held-out printed cards
    # read, 6 fewer wrong (2026-12-04 after the GPU lease)
    real_tune_scenes: int = 0
    real_tune_decks: str = "real_train"
    # the chance of a crop's stroke weight and index size being jittered in that step
    # (train_reader.shape_jitter); 0.25 read more of the unseen printed decks with the
    # validation rule's threshold unchanged, 0.5 was confidently wrong more often
    # (models/EXPERIMENTS.md, 2026-12-04 night)
    real_tune_shapes: float = 0.0
    # then the locator goes on learning from scenes of the printed training decks (fetched;
    # skipped where not) beside scenes of the training styles, after its own rounds and before
    # the outliner learns from its boxes: (printed scenes, training-style scenes, epochs, lr0);
    # None: no (train_locator.printed_deck_data; models/EXPERIMENTS.md, 2026-12-05)
    locator_real: tuple[int, int, int, float] | None = None
    # last, the face network (vision/train_face.py, the whole card: its suit and rank group weigh
    # and check the readers): (scenes of each group, epochs); None: no
    face_suit: tuple[int, int] | None = None
    # then 8-bit copies of the ONNX networks (vision/quantize.py), calibrated on the float
    # recognizer's inputs from this many scenes of each deck group, loaded by default (the
    # threshold below is chosen with them); 0: float only
    int8_scenes: int = 0


PRESETS = {
    # a few minutes: checks the recipe end to end (weights not useful)
    "smoke": Preset("smoke", 12, 4, 4, 1, 1, jitters=1, reader_extra_scenes=4, batch=4, val_frames=4,
                    outliner_scenes=6, outliner_epochs=1, reader_tune_scenes=4, reader_tune_epochs=1,
                    second_reader=(8, 2), face_suit=(2, 1), int8_scenes=2),
    # what fits beside other jobs on 2 shared cores in well under an hour
    "quick": Preset("quick", 800, 120, 200, 16, 12, reader_extra_scenes=700,
                    # lr0 0.002 each: the rounds were written 0.004, 0.004, 0.004, 0.003, 0.002, but ultralytics'
                    # "auto" optimizer ignored that and ran AdamW at 0.002 (found 2026-12-05; now it is named)
                    locator_finetune=((10, 0.002, 3), (12, 0.002, 3), (12, 0.002, 3), (1, 0.002, 6), (14, 0.002, 4)),
                    second_reader=(24, 1500), real_tune_scenes=400, real_tune_decks="glyph+real_train_all",
                    real_tune_shapes=0.25, face_suit=(1000, 10), int8_scenes=40),
    # <= 75 min on the 2-core machine alone: run end to end on 2026-12-04 with 14 locator, 10
    # reader and 10 outliner epochs it took 85.4 min, so those became 10, 8 and 6 (65.0 min
    # end to end on 2026-12-05); without printed decks its reader was wrong on 5 of the 13
    # held-out printed cards it read, so the printed-deck step joined it, 200 scenes a group
    # (69.3 min end to end with it; models/DEFAULT_PRESET.md); the face network (200 scenes a
    # group, 5 epochs) added 2026-12-05, projected from the 500-scene run at about 3.5 min more
    "default": Preset("default", 1200, 150, 300, 10, 8, reader_extra_scenes=600, val_frames=300,
                      outliner_epochs=6, real_tune_scenes=200, real_tune_decks="glyph+real_train_all",
                      real_tune_shapes=0.25, face_suit=(200, 5), int8_scenes=30),
    # for a GPU or a long night
    "long": Preset("long", 6000, 400, 600, 80, 20, jitters=3, reader_extra_scenes=4000, batch=32,
                   outliner_scenes=6000, outliner_epochs=20, reader_tune_scenes=3000, reader_tune_epochs=6),
}


#: The outliner's settings and the looks that use it, as the recipe installs them
#: (``RecognizerConfig.outliner``)
OUTLINER = {"onnx": "outliner.onnx", "pt": "outliner.pt", "size": 64, "reach": 1.7, "passes": 2,
            "second_look": True,  # unread cards: their outline looked at again
            "spreads": True,  # cards under a fanned spread, followed from the top one
            "anchored": True,  # unread boxes drawn again at the read cards' size
            "shrunk": 0.93,  # ... and read once more a little smaller
            "split_box": True,  # a box over two cards: the one its outline left out
            "last_look": 0.9,  # a box still unread read lower where its face agrees
            "close_look": 8}  # video: a box unread 8 frames read as a still image's tile


def runtime_config(spec: CropSpec, cal: dict, outliner_cfg: dict | None, preset: Preset) -> RecognizerConfig:
    """The recognizer's config as the recipe installs it, from the reader's calibration ``cal``
    (its temperature and threshold); the later steps add the second reader, the face, the 8-bit
    copies and the card thresholds chosen on whole frames."""
    return RecognizerConfig(crop=spec, reader_classes=READER_CLASSES, temperature=cal["temperature"],
                            threshold=cal["threshold"], imgsz=(256, 320), outliner=outliner_cfg,
                            locate_conf=preset.locate_conf, locate_iou=preset.locate_iou,
                            # lone cards the locator scores low (an ace on a plain cloth, a card on
                            # a checked cloth): the mirrored frame and patches of card stock, read
                            # at the single-image threshold; refused patches are skipped on video
                            flip_pass=True, stock_pass=True,
                            # a still image's card read clearly on its first outline is not read on
                            # its others (synthetic test 933 against 932 read, printed decks 1321
                            # against 1324, the same wrong ones; 2 ms a frame: models/EXPERIMENTS.md)
                            lazy=True,
                            # a phone's close-up: cards larger than the locator learnt, found shrunk
                            # by the locator's small-input copy, on every still image (ZOOM_NET)
                            zoom_pass=True, zoom_net=dict(ZOOM_NET),
                            # partly covered cards the locator scores under its threshold: its four
                            # best boxes from 0.02 on no found card, read as the mirrored pass's
                            # (synthetic test 957 against 933 read, the same 1 wrong: EXPERIMENTS.md)
                            faint_conf=0.02, faint_max=4,
                            # a phone's close-up read again with its cards at the size they were
                            # learnt at (close-up sweep, cards 0.30-0.70 of the frame high: 668 of 952 against 601)
                            closeup=dict(CLOSEUP),
                            # a café lamp's cast or a balance fooled by a green cloth, past the
                            # generator's light (the 95th percentile of the training styles'
                            # validation scenes) taken back by that much (vision/balance.py)
                            balance=BALANCE,
                            # every still image read again as 2 x 2 tiles, each card larger to the
                            # locator (synthetic test 1035 against 997 read, 0 wrong; vision/tiles.py)
                            tiles="always",
                            # a tile takes the whole image's readings and asks none of the locator's
                            # second opinions the whole image asked: 0.81 of the time, 4 of 1924 printed cards
                            # wrong against 7, 4 fewer read (models/EXPERIMENTS.md, 24th session)
                            tile_reading=dict(TILE_LEAN))
