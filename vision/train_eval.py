"""Evaluate a recognizer on generated scenes (held-out seed and deck styles).

Counts, per ground-truth card, whether it was located and read right; every
reported identity is checked (a reading with no card under it, or the wrong
card, is a *wrong identity*). Runtime-only (numpy + OpenCV); the confusion
image needs matplotlib (training venv).

>>> metrics, confusion = evaluate(load_recognizer("out/train/model"), range(900000, 900200), "test")  # doctest: +SKIP
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from sueca.vision.classes import CARD_CLASS, CARD_CODES
from sueca.vision.detections import UNREADABLE
from sueca.vision.readings import outline_iou as _poly_iou  # the runtime's, one way to measure overlap
from sueca.vision.readings import overlap_areas

#: Confusion columns after the 52 cards.
EXTRA_COLUMNS = ("unreadable", "missed")


def _box(corners: np.ndarray) -> np.ndarray:
    c = np.asarray(corners, np.float32)
    return np.concatenate([c.min(0), c.max(0)])


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def inside(a: np.ndarray, b: np.ndarray) -> float:
    """The share of outline ``a``'s area (4, 2) that lies inside outline ``b``.

    >>> q = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    >>> inside(q * 0.5, q), round(inside(q, q * 0.5), 2)
    (1.0, 0.25)
    """
    inter, area, _ = overlap_areas(a, b)
    return inter / area if area > 0 else 0.0


def match(dets, cards, min_iou: float = 0.45, same_code_iou: float = 0.3,
          same_code_inside: float = 0.6) -> list[tuple[int, int]]:
    """(detection, card) pairs; cards are all cards of the scene (backs too).

    Outline IoU (the detections' quads against the true card outlines). In
    piles a reading's outline can overlap a neighbour more than its own card:
    a detection first pairs with the face-up card of the code it read when
    they overlap by ``same_code_iou``, or when ``same_code_inside`` of the reading's
    outline lies on that card (a card half out of the frame or under others, outlined
    where it shows: its IoU with the whole card is low, yet the card was read); then
    the rest pair greedily by IoU.
    """
    quads = dets.corners if dets.corners is not None else np.stack(
        [np.array([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]]) for b in dets.xyxy]) if len(dets) else []
    ious = {(i, j): _poly_iou(quads[i], c.corners) for i in range(len(dets)) for j, c in enumerate(cards)
            if _iou(dets.xyxy[i], _box(c.corners)) > 0}

    def same_card(i: int, j: int) -> bool:
        return (i, j) in ious and (ious[i, j] >= same_code_iou or inside(quads[i], cards[j].corners) >= same_code_inside)

    pairs, used_d, used_c = [], set(), set()
    for i, code in enumerate(dets.codes):
        for j, c in enumerate(cards):
            if c.face_up and c.code == code and j not in used_c and same_card(i, j):
                pairs.append((i, j))
                used_d.add(i)
                used_c.add(j)
                break
    for iou, i, j in sorted(((v, i, j) for (i, j), v in ious.items()), reverse=True):
        if iou < min_iou:
            break
        if i in used_d or j in used_c:
            continue
        used_d.add(i)
        used_c.add(j)
        pairs.append((i, j))
    return pairs


def lies_whole(card) -> bool:
    """A face-up card at least 99% in view with both corner indices showing.

    >>> from types import SimpleNamespace as C
    >>> lies_whole(C(visible_fraction=1.0, index_visible=np.array([1.0, 0.9])))
    True
    >>> lies_whole(C(visible_fraction=1.0, index_visible=np.array([1.0, 0.3])))
    False
    """
    from sueca.datasets.scene import READABLE_INDEX_FRACTION

    return card.visible_fraction >= 0.99 and bool(np.all(np.asarray(card.index_visible) >= READABLE_INDEX_FRACTION))


def evaluate(recognizer, seeds, styles, size=(1280, 960), log=print, scenes=None, image_filter=None,
             **options) -> tuple[dict, np.ndarray]:
    """Metrics dict and a (52, 54) confusion matrix of readable cards (cols: 52 cards, unreadable, missed).

    ``scenes`` (seed -> scene) replaces rendering, e.g. a cache shared by several runs;
    ``image_filter`` (image, seed -> image) changes what the recognizer sees, not the truth
    (``scripts/robustness_check.py``).
    """
    from sueca.vision.train_data import MIN_VISIBLE, render

    conf = np.zeros((len(CARD_CODES), len(CARD_CODES) + 2), np.int64)
    readable = read_right = located = locatable = 0
    whole = whole_right = 0  # readable cards lying whole in view: what a played card mostly is
    hidden = hidden_guessed = 0
    reported = wrong = 0
    wrong_examples: list[str] = []
    times = []
    for k, seed in enumerate(seeds):
        scene = scenes(seed) if scenes is not None else render(seed, size, styles, **options)
        image = scene.image if image_filter is None else image_filter(scene.image, seed)
        t0 = time.perf_counter()
        dets = recognizer(image)
        times.append(time.perf_counter() - t0)
        pairs = dict(match(dets, scene.cards))  # det -> card
        by_card = {j: i for i, j in pairs.items()}
        for j, card in enumerate(scene.cards):
            if not card.face_up:
                continue
            i = by_card.get(j)
            code = dets.codes[i] if i is not None else None
            if card.visible_fraction >= MIN_VISIBLE:
                locatable += 1
                located += int(i is not None)
            if card.readable:
                readable += 1
                read_right += int(code == card.code)
                if lies_whole(card):
                    whole += 1
                    whole_right += int(code == card.code)
                col = len(CARD_CODES) + 1 if code is None else (len(CARD_CODES) if code == UNREADABLE else CARD_CLASS[code])
                conf[CARD_CLASS[card.code], col] += 1
            else:
                hidden += 1
                hidden_guessed += int(code not in (None, UNREADABLE, card.code))
        for i, code in enumerate(dets.codes):
            if code == UNREADABLE:
                continue
            reported += 1
            j = pairs.get(i)
            truth = scene.cards[j] if j is not None else None
            if truth is None or not truth.face_up or truth.code != code:
                wrong += 1
                if len(wrong_examples) < 20:
                    what = "nothing" if truth is None else (truth.code + ("" if truth.face_up else " (face down)"))
                    wrong_examples.append(f"seed {seed}: read {code} on {what} (p={dets.confidence[i]:.3f})")
        if (k + 1) % 50 == 0:
            log(f"eval {k + 1}/{len(seeds)}: recall {read_right / max(readable, 1):.4f}, wrong {wrong}/{reported}")
    t = np.asarray(times) * 1000
    metrics = {
        "scenes": len(times), "styles": styles if isinstance(styles, str) else list(styles or []),
        "seeds": [int(seeds[0]), int(seeds[-1])] if len(seeds) else [], "options": options,
        "readable_cards": readable, "read_right": read_right,
        "recall_readable": read_right / max(readable, 1),
        "whole_cards": whole, "whole_read_right": whole_right, "recall_whole": whole_right / max(whole, 1),
        "reported_identities": reported, "wrong_identities": wrong,
        "wrong_rate": wrong / max(reported, 1),
        "hidden_cards": hidden, "hidden_guessed_wrong": hidden_guessed,
        "locatable_cards": locatable, "located": located, "locator_recall": located / max(locatable, 1),
        "ms_per_frame_median": float(np.median(t)) if len(t) else None,
        "wrong_examples": wrong_examples,
    }
    return metrics, conf


def true_outline_reading(recognizer, seeds, styles, size=(1280, 960)) -> dict:
    """The reader alone: every readable face-up card read from its *true* outline.

    Separates the reader's errors from the locator's and the outline stage's.
    """
    from sueca.vision.train_data import render

    right = wrong = n = 0
    for seed in seeds:
        scene = render(seed, size, styles)
        cards = [c for c in scene.cards if c.face_up and c.readable]
        if not cards:
            continue
        codes, _ = recognizer.read_quads(scene.image, [np.asarray(c.corners, np.float32)[None] for c in cards])
        for card, code in zip(cards, codes):
            n += 1
            right += code == card.code
            wrong += code not in (UNREADABLE, card.code)
    return {"scenes": len(seeds), "seeds": [int(seeds[0]), int(seeds[-1])] if len(seeds) else [],
            "cards": n, "read_right": right, "wrong": wrong, "recall": right / max(n, 1)}


def outline_quality(recognizer, seeds, styles, size=(1280, 960)) -> dict:
    """Outline IoU with the truth of each readable face-up card the locator found: its box,
    the classical refinement (:mod:`sueca.vision.refine`) and the outliner (when the model has one)."""
    from sueca.vision.refine import refine_quad
    from sueca.vision.train_data import render

    rows: dict[str, list[float]] = {"box": [], "classical": [], "outliner": []}
    for seed in seeds:
        scene = render(seed, size, styles)
        located = recognizer.locator(scene.image)
        if len(located) == 0:
            continue
        learned = recognizer.outliner(scene.image, located.corners) if recognizer.outliner is not None else None
        for card in scene.cards:
            if not (card.face_up and card.readable):
                continue
            ious = [_poly_iou(q, card.corners) for q in located.corners]
            i = int(np.argmax(ious))
            if ious[i] < 0.3:
                continue
            rows["box"].append(ious[i])
            r = refine_quad(scene.image, located.corners[i])
            rows["classical"].append(_poly_iou(r, card.corners) if r is not None else ious[i])
            if learned is not None:
                rows["outliner"].append(_poly_iou(learned[i], card.corners))
    out: dict = {"scenes": len(seeds), "seeds": [int(seeds[0]), int(seeds[-1])] if len(seeds) else [],
                 "cards": len(rows["box"])}
    for k, v in rows.items():
        if v:
            out[k] = {"median_iou": float(np.median(v)), "iou_over_0.9": float(np.mean(np.asarray(v) > 0.9))}
    return out


#: Thresholds :func:`choose_card_threshold` tries, low to high.
THRESHOLD_GRID = (0.5, 0.8, 0.9, 0.93, 0.95, 0.97, 0.98, 0.985, 0.99, 0.995, 0.998)


def readings(recognizer, seeds, styles, size=(1280, 960)) -> tuple[np.ndarray, int]:
    """Every identity the recognizer reports with no threshold, as (confidence, right) rows,
    and the number of readable cards: what a threshold is chosen from."""
    from dataclasses import replace

    from sueca.vision.train_data import render

    strict = recognizer.config
    recognizer.config = replace(strict, threshold=0.0)
    rows, readable = [], 0
    try:
        for seed in seeds:
            scene = render(seed, size, styles)
            dets = recognizer(scene.image)
            pairs = dict(match(dets, scene.cards))
            readable += sum(1 for c in scene.cards if c.face_up and c.readable)
            for i, code in enumerate(dets.codes):
                if code == UNREADABLE:
                    continue
                j = pairs.get(i)
                truth = scene.cards[j] if j is not None else None
                rows.append((float(dets.confidence[i]), truth is not None and truth.face_up and truth.code == code))
    finally:
        recognizer.config = strict
    return np.asarray(rows, np.float64).reshape(-1, 2), readable


def choose_card_threshold(rows: np.ndarray, readable: int, grid=THRESHOLD_GRID) -> tuple[float, list[dict]]:
    """The card threshold, from whole-frame readings of validation scenes.

    The lowest grid threshold with no wrong identity left, then one step higher:
    a few hundred scenes cannot show a 0.1% error rate, and decks never seen
    are misread more often than the validation decks.

    >>> rows = np.array([[0.99, 1], [0.96, 1], [0.92, 0], [0.6, 1]])
    >>> choose_card_threshold(rows, 4, (0.5, 0.9, 0.95, 0.99))[0]
    0.99
    """
    table = []
    for t in grid:
        m = rows[:, 0] >= t
        table.append({"threshold": t, "recall": float(rows[m, 1].sum() / max(readable, 1)),
                      "wrong": int((rows[m, 1] == 0).sum()), "reported": int(m.sum())})
    clean = [k for k, row in enumerate(table) if row["wrong"] == 0]
    k = min(clean[0] + 1, len(grid) - 1) if clean else len(grid) - 1
    return float(grid[k]), table


#: Confidence bins of :func:`reliability`: finer where a threshold is chosen.
RELIABILITY_BINS = (0.0, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1.0)


def reliability(rows: np.ndarray, bins=RELIABILITY_BINS) -> tuple[list[dict], float]:
    """How far the reported confidence can be trusted: :func:`readings`' (confidence, right)
    rows by confidence bin (each bin's mean confidence, share right, wrong count), and the
    expected calibration error (the bins' gap between the two, weighed by their readings).

    >>> rows = np.array([[0.97, 1], [0.96, 0], [0.9995, 1], [0.9999, 1]])
    >>> table, ece = reliability(rows, (0.0, 0.95, 0.999, 1.0))
    >>> [(b["lo"], b["readings"], b["right"], b["wrong"]) for b in table]
    [(0.95, 2, 0.5, 1), (0.999, 2, 1.0, 0)]
    >>> round(ece, 3)
    0.233
    """
    rows = np.asarray(rows, np.float64).reshape(-1, 2)
    table, gap = [], 0.0
    for k, (lo, hi) in enumerate(zip(bins[:-1], bins[1:])):
        last = k == len(bins) - 2  # the top bin holds a confidence of exactly its upper edge
        m = (rows[:, 0] >= lo) & ((rows[:, 0] <= hi) if last else (rows[:, 0] < hi))
        n = int(m.sum())
        if not n:
            continue
        conf, right = float(rows[m, 0].mean()), float(rows[m, 1].mean())
        table.append({"lo": float(lo), "hi": float(hi), "readings": n, "confidence": conf, "right": right,
                      "wrong": int(n - rows[m, 1].sum())})
        gap += n * abs(conf - right)
    return table, gap / max(len(rows), 1)


def choose_video_threshold(table: list[dict], max_rate: float = 0.005) -> float:
    """The per-frame threshold on video: the lowest whose validation readings are
    wrong at most ``max_rate`` of the time. A frame's reading there is one vote; the
    tracker settles a card only on two agreeing votes with a clear lead.

    >>> choose_video_threshold([{"threshold": 0.8, "wrong": 7, "reported": 1000},
    ...                         {"threshold": 0.9, "wrong": 4, "reported": 990}])
    0.9
    """
    for row in table:
        if row["wrong"] <= max_rate * max(row["reported"], 1):
            return float(row["threshold"])
    return float(table[-1]["threshold"])


def plot_confusion(conf: np.ndarray, path, title: str) -> None:
    """Save the confusion matrix as a PNG (log-scaled counts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(13, 12), dpi=80)
    ax.imshow(np.log1p(conf), cmap="viridis", aspect="auto")
    cols = list(CARD_CODES) + list(EXTRA_COLUMNS)
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels(cols, rotation=90, fontsize=7)
    ax.set_yticks(range(len(CARD_CODES)))
    ax.set_yticklabels(CARD_CODES, fontsize=7)
    ax.set_xlabel("lida / read")
    ax.set_ylabel("verdadeira / true")
    ax.set_title(title)
    for i, j in zip(*np.nonzero(conf)):
        if i != j:
            ax.text(j, i, str(conf[i, j]), ha="center", va="center", color="white", fontsize=6)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def model_metrics(model_dir: str | Path, test_scenes: int = 200, val_scenes: int = 100, work: Path | None = None,
                  log=print) -> dict:
    """The model card's figures of the models in ``model_dir`` (ONNX Runtime): the held-out test
    set, 45-degree views, the held-out printed decks (where fetched), the readers on true outlines,
    outline quality and validation scenes; draws ``confusion.png`` there. Returns the metrics dict
    (``metrics.json``'s, less the training timings)."""
    from sueca.datasets.styles import TEST_STYLES, resolve_styles
    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_run import REAL_SEED0, TEST_SEED0, TILT_SEED0, VAL_SEED0

    model_dir = Path(model_dir)
    rec = load_recognizer(model_dir, "onnx")
    seeds = range(TEST_SEED0, TEST_SEED0 + test_scenes)
    metrics, conf = evaluate(rec, seeds, "test", log=log)
    val_metrics, _ = evaluate(rec, range(VAL_SEED0, VAL_SEED0 + val_scenes), "train", log=log)
    # steeper cameras than the training scenes (up to 30 degrees): the 45-degree views of the brief
    tilt_metrics, _ = evaluate(rec, range(TILT_SEED0, TILT_SEED0 + max(test_scenes // 2, 2)), "test",
                               log=log, max_tilt=45.0)
    metrics["tilt45"] = {k: v for k, v in tilt_metrics.items() if k != "wrong_examples"}
    try:  # other artists' decks no model learnt from, where fetched
        held = [s.name for s in resolve_styles("real_heldout")]
    except ValueError:
        held = []
    if held:
        real, _ = evaluate(rec, range(REAL_SEED0, REAL_SEED0 + max(test_scenes // 2, 2)), held, log=log)
        metrics["real_heldout"] = {k: v for k, v in real.items() if k != "options"}
    metrics["reader_true_outlines"] = true_outline_reading(rec, seeds[:max(len(seeds) // 5, 2)], "test")
    metrics["outlines"] = outline_quality(rec, seeds[:max(len(seeds) // 5, 2)], "test")
    metrics["train_styles_val"] = {k: v for k, v in val_metrics.items() if k != "wrong_examples"}
    plot_confusion(conf, model_dir / "confusion.png",
                   f"held-out styles {', '.join(TEST_STYLES)}, seeds {seeds[0]}..{seeds[-1]}")
    if work is not None:
        np.save(Path(work) / "confusion.npy", conf)
    return metrics


def rechoose_thresholds(model_dir, val_frames: int = 400, note: dict | None = None) -> dict:
    """Choose a model folder's card and video thresholds again, by the recipe's rule, on
    ``val_frames`` validation scenes read whole, and write them into its ``recognizer.json``
    (with ``note`` merged into ``info.reader_val``): what any change of a model's stages
    needs before its figures mean anything. Returns the thresholds and the table."""
    import json
    from pathlib import Path

    from sueca.vision.recognizer import load_recognizer
    from sueca.vision.train_run import VAL_SEED0

    path = Path(model_dir) / "recognizer.json"
    rows, readable = readings(load_recognizer(model_dir), range(VAL_SEED0, VAL_SEED0 + val_frames), "train")
    thr, table = choose_card_threshold(rows, readable)
    video = choose_video_threshold(table)
    cfg = json.loads(path.read_text())
    cfg["reader"]["threshold"], cfg["reader"]["video_threshold"] = thr, video
    val = cfg.setdefault("info", {}).setdefault("reader_val", {})
    val.update(note or {}, pipeline_threshold=thr, pipeline_val={"scenes": val_frames, "table": table},
               video_threshold=video)
    path.write_text(json.dumps(cfg, indent=1))
    return {"threshold": thr, "video_threshold": video, "table": table}
