"""Write ``models/README.md``, the model card, from a training run's figures.

>>> _pct(0.99512)
'99.51%'
"""

from __future__ import annotations

from pathlib import Path

from sueca.vision.train_eval import THRESHOLD_GRID


def _pct(x: float) -> str:
    return f"{100 * x:.2f}%"


def _val_table(cal: dict) -> str:
    rows = (cal.get("pipeline_val") or {}).get("table") or []
    if not rows:
        return ""
    head = "| threshold | " + " | ".join(f"{r['threshold']:g}" for r in rows) + " |\n|---|" + "---|" * len(rows)
    rec = "| recall | " + " | ".join(f"{100 * r['recall']:.1f}%" for r in rows) + " |"
    wr = "| wrong | " + " | ".join(str(r["wrong"]) for r in rows) + " |"
    return "\nValidation readings by threshold:\n\n" + "\n".join([head, rec, wr]) + "\n"


def _outline_rows(ol: dict) -> str:
    names = {"box": "the locator's box", "classical": "classical refinement", "outliner": "the outliner"}
    rows = [f"- {names[k]}: {ol[k]['median_iou']:.3f}, {_pct(ol[k]['iou_over_0.9'])}" for k in names if k in ol]
    return "\n".join(rows) or "- (not measured)"


def _readers(cfg) -> str:
    return "two readers (agreeing)" if cfg.second_reader else "reader"


def _second_row(cfg, size_kb: dict) -> str:
    s = cfg.second_reader
    if not s:
        return ""
    return (f"| `{s['onnx']}` | a second reader (width {s.get('width', '?')}), trained apart on more scenes: "
            f"a card is read only where both readers read it | as `reader.onnx` | {size_kb.get(s['onnx'], '?')} KB |\n")


def _face_row(cfg, size_kb: dict) -> str:
    f = cfg.face_suit
    if not f:
        return ""
    card = f.get("classes") == "card"
    what = ("53 classes): the whole card from its face, or \"says nothing\"; a reading whose suit" +
            (" or rank group" if f.get("rank") and f.get("rank_check") else "") if card else
            "5 classes): the suit from the whole card's face, or \"says nothing\"; a reading whose suit")
    power = float(f.get("court_power", 1.0))
    weighed = ("; the readers' probabilities are weighed by it first" +
               (" (suit and rank group together" + (f"; a court's factor to the power {power:g}" if power != 1 else "")
                + ")" if card and f.get("rank") else "")) if f.get("fuse") else ""
    return (f"| `{f['onnx']}` | small CNN (the reader's, {what} it gives under {float(f.get('doubt', 0.05)):g}, "
            f"with another at least {float(f.get('sure', 0.5)):g}, is withdrawn{weighed} (`vision/face_suit.py`) "
            f"| Nx3x72x48 rectified card (BGR) | {size_kb.get(f['onnx'], '?')} KB |\n")


def _zoom_row(cfg, size_kb: dict) -> str:
    z = cfg.zoom_net if cfg.zoom_pass else None
    if not z:
        return ""
    h, w = z["imgsz"]
    return (f"| `{z['onnx']}` | the locator's weights at a small input: on every still image, its boxes of large "
            f"cards (a phone's close-up) are added as a second opinion (`proposals.small_look`) "
            f"| 1x3x{h}x{w} letterboxed RGB | {size_kb.get(z['onnx'], '?')} KB |\n")


def _int8_row(cfg, size_kb: dict) -> str:
    q = cfg.int8
    if not q or not q.get("files"):
        return ""
    sizes = " + ".join(str(size_kb.get(f, "?")) for f in q["files"].values())
    default = "loaded by default" if q.get("default") else "loaded with `precision=\"int8\"`"
    return (f"| `*.int8.onnx` | 8-bit copies of the networks above (`vision/quantize.py`: static QDQ, ranges from "
            f"{q.get('scenes_per_group', '?')} calibration scenes a deck group), {default} by ONNX Runtime "
            f"(`--precision fp32`: the float ones) | as above | {sizes} KB |\n")


def _int8_recipe(preset) -> str:
    if not getattr(preset, "int8_scenes", 0):
        return ""
    return (f"; then 8-bit copies of the networks, their ranges from {preset.int8_scenes} calibration scenes of each "
            f"group (`vision/quantize.py`), with which the card threshold is chosen")


def _second_recipe(preset) -> str:
    if not getattr(preset, "second_reader", None):
        return ""
    width, extra = preset.second_reader
    return (f"; then a second reader (width {width}) on crops of {preset.train_scenes + extra} scenes, "
            f"its own run in `work/second` with the same locator and outliner (same epochs and tuning)")


def _face_recipe(preset) -> str:
    if not getattr(preset, "face_suit", None):
        return ""
    scenes, epochs = preset.face_suit
    return (f"; last, the face-suit check, {epochs} epochs on whole cards of {scenes} scenes of each group "
            f"(training styles, glyph decks, printed training decks where fetched: `vision/train_face.py`)")


def _second_confidence(cfg) -> str:
    s = cfg.second_reader
    if not s:
        return ""
    return (f" The second reader (temperature {float(s['temperature']):.3f}) reads the same crops"
            f" the same way; the card is read only where both read the same code, at the lower of"
            f" their two confidences (`combine_readers`): two networks trained apart are rarely sure"
            f" of the same wrong suit.")


def _second_opinions(cfg) -> str:
    parts = (["lone card-shaped patches of card stock added (`sueca.vision.proposals`)"] if cfg.stock_pass else []) + \
        (["the mirrored frame located too"] if cfg.flip_pass else []) + \
        ([f"close-ups located by the locator's copy at {cfg.zoom_net['imgsz'][0]}x{cfg.zoom_net['imgsz'][1]} "
          "on every still image" if cfg.zoom_net else "close-ups located on the frame shrunk three times"]
         if cfg.zoom_pass else []) + \
        ([f"the locator's {cfg.faint_max} best boxes scored from {cfg.faint_conf:g} up to its threshold"]
         if cfg.faint_conf is not None and cfg.faint_max else []) + \
        ([f"a still image whose largest outline is {cfg.closeup['trigger']:g} of its short side read again "
          f"shrunk until it is {cfg.closeup['target']:g} (`sueca.vision.closeup`)"] if cfg.closeup else []) + \
        ([f"a still image read again as 2 x 2 tiles ({cfg.tiles}, `sueca.vision.tiles`)"] if cfg.tiles else [])
    return "; " + ", ".join(parts) + ", their cards kept only where read at the threshold" if parts else ""


def _second_look(cfg) -> str:
    o = cfg.outliner or {}
    return ("; a card left unread gets four more" if o.get("second_look") else "") + \
        ("; cards under a fanned spread are followed from the card on top (`vision/fans.py`)" if o.get("spreads") else "") + \
        ("; on a still image a box left unread is drawn again at the read cards' size from each corner "
         "(`vision/anchored.py`)" if o.get("anchored") else "") + \
        (f"; then read once more shrunk to {float(o['shrunk']):g} (`vision/shrunk.py`)" if o.get("shrunk") else "") + \
        ("; a locator box over two overlapping cards gives the card its outline left out a try "
         "(`vision/split_box.py`)" if o.get("split_box") else "") + \
        (f"; last, a box still unread is read at {float(o['last_look']):g} and kept where the face's own card "
         "agrees (`vision/last_look.py`)" if o.get("last_look") else "") + \
        (f"; on video a box left unread {int(o['close_look'])} frames (counted at 10 a second) while it lies "
         "unchanged is read in a "
         "window of 0.6 of the frame, as a still image's tile (`vision/close_look.py`)" if o.get("close_look") else "")


def _balance(cfg) -> str:
    return ("" if cfg.balance is None else
            f"; a colour cast past {cfg.balance[0]:g} (warm-cold) or {cfg.balance[1]:g} (green-magenta) of a log "
            f"gain taken back by it on a still image, as its cards say, and to half of it on video, measured on "
            f"the cards read (`vision/balance.py`)")


def _real_data(cal: dict) -> str:
    rt = cal.get("real_tuned")
    if not rt:
        return ""
    glyph = [d for d in rt["decks"] if d.startswith("glyph")]
    real = [d for d in rt["decks"] if not d.startswith("glyph")]
    groups = ([f"{len(glyph)} generated decks with typefaces' suit signs (`{glyph[0]}`-`{glyph[-1]}`, "
               "`datasets/README.md`)"] if glyph else []) + \
        ([f"other artists' decks ({', '.join(f'`{d}`' for d in real)}; fetched at build time by "
          "`sueca dataset fetch-heldout-decks`, never committed)"] if real else [])
    n = len(groups)
    return (f"\nLast, both readers go on learning ({rt['epochs']} epochs, `vision/train_real.py`) from run-time crops of "
            f"{rt['scenes']} scenes each of {' and of '.join(groups)}, and {rt['scenes'] * n} of the training styles "
            f"(seeds from 3500000, 50000 further for each next group, and from 3600000)"
            + (f"; a crop's stroke weight and index size are jittered with probability {rt['shape_jitter']} "
               "(`train_reader.shape_jitter`)" if rt.get("shape_jitter") else "")
            + ". The other real decks stay held out.")


def _real_row(m: dict) -> str:
    r = m.get("real_heldout")
    if not r:
        return ""
    return (f"| held-out real decks ({', '.join(r['styles'])}; {r['scenes']} scenes from seed {r['seeds'][0]}) | "
            f"recall {_pct(r['recall_readable'])} ({r['read_right']}/{r['readable_cards']}), lying whole "
            f"{_pct(r['recall_whole'])}, wrong {r['wrong_identities']}/{r['reported_identities']}, "
            f"locator recall {_pct(r['locator_recall'])} |\n")


def _fetched(f: dict | None) -> str:
    """What of that art this run had (``sueca.datasets.fetch.fetched``), for the Data section."""
    if not f:
        return ""
    def said(there: bool) -> str:
        return "there" if there else "**missing**, so those styles were not drawn"
    return (f"; in this run: the deck art {said(f.get('letele'))}, the textures {said(f.get('textures'))}, "
            f"{len(f.get('printed_decks', []))} printed decks cached")


def write_model_card(model_dir: str | Path, preset, metrics: dict, cfg) -> Path:
    t = metrics.get("timings", {})
    m = metrics
    v = m.get("train_styles_val", {})
    tilt = m.get("tilt45", {})
    ft = "".join(f", then {n} more epoch{'s' * (n != 1)} from the last weights at lr0 {lr0:g} (last {cm} without mosaic)"
                 for n, lr0, cm in getattr(preset, "locator_finetune", ()))
    if getattr(preset, "locator_real", None):
        n_real, n_synth, n, lr0 = preset.locator_real
        ft += (f", then {n} more epoch{'s' * (n != 1)} at lr0 {lr0:g} on {n_real} scenes of the printed training decks "
               f"and {n_synth} of the training styles (`train_locator.printed_deck_data`; skipped where no printed "
               f"deck is fetched)")
    cal = cfg.info.get("reader_val", {})
    tru = m.get("reader_true_outlines", {})
    ol = m.get("outlines", {})
    from sueca.datasets.styles import GENERATED_FONTS, GENERATED_STYLES

    n_gen, n_fonts = GENERATED_STYLES, len(GENERATED_FONTS)
    size_kb = {p.name: p.stat().st_size // 1024 for p in Path(model_dir).glob("*.onnx")}
    wrong = "\n".join(f"- {w}" for w in m.get("wrong_examples", [])) or "- (none)"
    text = f"""# Card recognition models (`sueca.models`)

Three ONNX models read the cards of one camera frame (`sueca.vision.recognizer`), one
after the other:

| file | what | input | size |
|---|---|---|---|
| `locator.onnx` | YOLO11n-OBB from `yolo11n-obb.yaml`, trained from scratch: finds face-up cards as rotated boxes (conf {cfg.locate_conf:g}, rotated NMS IoU {cfg.locate_iou:g}){_second_opinions(cfg)} | 1x3x256x320 letterboxed RGB | {size_kb.get('locator.onnx', '?')} KB |
{_zoom_row(cfg, size_kb)}| `outliner.onnx` | small CNN: moves each rough box onto the card's four corners, at full resolution (two passes{_second_look(cfg)}) | Nx3x64x64 normalised view of the box (BGR) | {size_kb.get('outliner.onnx', '?')} KB |
| `reader.onnx` | small CNN (width {getattr(preset, 'reader_width', 16)}): reads a rectified corner index, 52 cards + "no readable index" | Nx{cfg.crop.channels}x48x36 crop (BGR when 3) | {size_kb.get('reader.onnx', '?')} KB |
{_second_row(cfg, size_kb)}{_face_row(cfg, size_kb)}{_int8_row(cfg, size_kb)}| `recognizer.json` | classes, crop and view geometry, temperature {cfg.temperature:.3f}, threshold {cfg.threshold:.3f}{_balance(cfg)} | | |
| `*.pt` | the same weights for PyTorch (parity tests, benchmarks) | | |

## Data
Only synthetic scenes from `sueca.datasets.scene.render_scene` (the project's own generator;
the only third-party images, used where fetched at build time: the CC0 `kennard*` deck art
of `sueca dataset fetch-deck` and the CC0 photo textures of `fetch-textures`{_fetched(cfg.info.get("fetched"))}). Training: {preset.train_scenes} scenes, seeds {preset.seed}..{preset.seed + preset.train_scenes - 1},
deck styles `train`: the hand-made ones but the held-out two, plus {n_gen} generated decks
(`sueca.datasets.styles.generated_style`: index typeface drawn from {n_fonts} Debian fonts, the
held-out decks' typefaces excluded; index size and place, colours, pips and courts drawn too), 1280x960.
Validation (temperature): {preset.val_scenes} scenes from seed 500000; card threshold: {preset.val_frames}
whole validation scenes. Test: {m['scenes']} scenes from seed {m['seeds'][0] if m['seeds'] else '?'},
deck styles **never used in training** (`{', '.join(cfg.info.get('test_styles', []))}`).
The locator sees each scene at 640x480 (YOLO-OBB labels: face-up cards with >= 35% showing);
the reader sees {preset.jitters} corner-crop pairs per face-up card cut with a simulated locator quad
(rotated rectangle or jittered corners; half of them as far off as a weak locator's on a pile),
labelled with the card where that index shows whole inside the crop, else "no readable index"
(covered or cut-off corners, backs, empty table, wrong orientation).
The outliner learns from {getattr(preset, 'outliner_scenes', 0)} further scenes (seeds from 2000000, which no other model
sees): rough boxes are the new locator's own on those scenes plus simulated ones (centre off by a
tenth of the card, sides by 12%, 10-degree turns, some square), the target is the card's true
outline even where a hand or another card covers it. Then the reader goes on learning
({getattr(preset, 'reader_tune_epochs', 0)} epochs) from crops cut exactly as at run time, by the locator and the outliner,
on {getattr(preset, 'reader_tune_scenes', 0)} more scenes (seeds from 3000000), half and half with its first crops.{_real_data(cal)}

## Command
```
.venv-train/bin/sueca train --preset {preset.name} --install models
```
(`sueca train` re-runs itself in `.venv-train` when torch is missing, and first fetches the
third-party art, cached art kept; `--no-fetch` uses the cache as it is.) Preset **`{preset.name}`**:
locator {preset.locator_epochs} epochs at imgsz {preset.imgsz}, batch {preset.batch}{ft}; reader {preset.reader_epochs} epochs
on crops of {preset.train_scenes + preset.reader_extra_scenes} scenes{_second_recipe(preset)}{_face_recipe(preset)}{_int8_recipe(preset)}.

Training time, wall clock per step on this machine (2 x86_64 CPU cores, no GPU, shared with
other jobs while it ran; figures of the steps as they ran, resumed steps keep their time):
data {t.get('data_s', 0) / 60:.1f} min, reader {t.get('reader_s', 0) / 60:.1f} min,
locator {t.get('locator_s', 0) / 60:.1f} min, outliner {t.get('outliner_s', 0) / 60:.1f} min,
reader tuning {t.get('reader_tune_s', 0) / 60:.1f} min, second reader (its data, training and tuning)
{t.get('second_reader_s', 0) / 60:.1f} min, evaluation {t.get('eval_s', 0) / 60:.1f} min.

## Metrics (ONNX Runtime, full pipeline, held-out styles and seeds)
| | value |
|---|---|
| card-identity recall, readable cards | **{_pct(m['recall_readable'])}** ({m['read_right']}/{m['readable_cards']}) |
| same, cards lying whole in view (>= 99% showing, both indices) | {_pct(m.get('recall_whole', 0))} ({m.get('whole_read_right', 0)}/{m.get('whole_cards', 0)}) |
| wrong identities / reported identities | **{_pct(m['wrong_rate'])}** ({m['wrong_identities']}/{m['reported_identities']}) |
| hidden face-up cards given a wrong identity | {m['hidden_guessed_wrong']}/{m['hidden_cards']} |
| locator recall (face-up, >= 35% showing) | {_pct(m['locator_recall'])} ({m['located']}/{m['locatable_cards']}) |
| same, training styles (validation seeds) | recall {_pct(v.get('recall_readable', 0))}, wrong {_pct(v.get('wrong_rate', 0))} |
| held-out styles, camera tilted up to 45 degrees ({tilt.get('scenes', 0)} scenes from seed {(tilt.get('seeds') or ['?'])[0]}) | recall {_pct(tilt.get('recall_readable', 0))}, wrong {tilt.get('wrong_identities', 0)}/{tilt.get('reported_identities', 0)}, locator recall {_pct(tilt.get('locator_recall', 0))} |
| reader crop accuracy (validation) | {_pct(cal.get('val_crop_accuracy', 0))} |
| {_readers(cfg)} alone, on the true outlines ({tru.get('scenes', 0)} test scenes from seed {(tru.get('seeds') or ['?'])[0]}) | {_pct(tru.get('recall', 0))} ({tru.get('read_right', 0)}/{tru.get('cards', 0)}), wrong {tru.get('wrong', 0)} |
{_real_row(m)}| median ms per 1280x960 frame (during evaluation) | {m['ms_per_frame_median']:.1f} |

Confusion matrix of readable test cards (columns: read as, "unreadable", "missed"): `confusion.png`.

![confusion](confusion.png)

Wrong identities seen in the test run:
{wrong}

## Outline stage
The locator's rotated boxes are often squarer than a card, 10-25 degrees off or a fifth of a
card away; the reader needs the index corner within a few percent. `sueca.vision.outliner`
cuts each box out of the full-resolution frame into a 64x64 view (the box's long side upright,
1/1.7 of the view) and the outliner regresses the card's four corners there; a second pass
looks again, centred on the first answer. Each outline is also read 8% larger (printed
borders, shadows), and the reading with the most evidence wins. The classical stage
(`sueca.vision.refine`: fit a quadrilateral to what differs from the table) remains for
models without an outliner. Outline IoU with the truth of the readable face-up cards located
in {ol.get('scenes', 0)} test scenes from seed {(ol.get('seeds') or ['?'])[0]} ({ol.get('cards', 0)} cards; median, share above 0.9):
{_outline_rows(ol)}

## How confidence works
Each corner crop gets probabilities from the reader with temperature {cfg.temperature:.3f} (fitted
on validation crops by negative log-likelihood). The two corners must agree; the card's
confidence is the better corner's probability of that card.{_second_confidence(cfg)} Below {cfg.threshold:.3f} the card is
reported unreadable. The threshold is chosen on whole frames of {preset.val_frames} validation scenes
(training deck styles, seeds from 500000) read without one: the lowest of
{', '.join(f'{t:g}' for t in THRESHOLD_GRID)} that leaves no wrong identity there, then one step
higher (a few hundred scenes cannot show a 0.1% error rate; unseen decks are misread more often).
On video each frame's reading is one vote for the card tracker, which settles an identity only on
two agreeing votes with a clear lead: frames are read there at {cfg.video_threshold if cfg.video_threshold is not None else cfg.threshold:.3f}, the lowest
threshold whose validation readings are wrong at most 0.5% of the time.
{_val_table(cal)}

## Known weaknesses (measured, see the table)
- **Far below the targets** (recall >= 99.5%, real photos >= 95%; wrong identities <= 0.1%).
- Where the loss is: the locator still misses some cards (locator recall above), the outliner
  is sometimes far off (piles, fans of held cards, cards under hands), and given the true
  outlines the {_readers(cfg)} read {_pct(tru.get('recall', 0))} of readable held-out cards. More locator
  and outliner training (a GPU, `--preset long`) is the first fix.
- On the held-out decks {m['wrong_identities']} of {m['reported_identities']} reported identities were wrong (listed above);
  earlier models misread small cards' suits and cards under a blurred, see-through hand. A test
  set of {m['reported_identities']} readings cannot show a 0.1% error rate. In video the tracker votes over
  many frames, which the single-image figures here do not show.
- Trained on synthetic decks only; decks with an index far from the corner (beyond 40% of the
  card's width/height), or without corner indices, are not read (reported unreadable).
- Face-down cards are not located (by design); a card whose indices are both covered is unreadable.
- Most misses are cards mostly covered (a corner out of a pile or a fan of held cards): cards
  lying whole in view are read {_pct(m.get('recall_whole', 0))} of the time (table above);
  `scripts/recognition_by_table.py --by visibility` gives the breakdown.
- The locator misses more cards on busy tablecloths (stripes, checks) than on wood, cork or
  felt; `EXPERIMENTS.md` has the measured breakdown by table (kept by hand), and the
  experiments that were measured and not installed.

## The `default` preset (<= 75 min on this machine)
See `DEFAULT_PRESET.md` (kept by hand: what was measured when that preset was run).
"""
    path = Path(model_dir) / "README.md"
    path.write_text(text)
    return path
