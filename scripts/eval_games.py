#!/usr/bin/env python3
"""Long-run check of the referee pipeline against games whose truth is known.

Three kinds of games, each compared play by play with its truth
(:func:`sueca.vision.gamecheck.compare`):

- ``--sim``: the simulated table of ``sueca.vision.simtable`` (random matches,
  renúncias injected, hands over cards, nudges, lifts), oracle detections;
- ``--plan``: ``sueca dataset game`` plans (the generator's own timing,
  camera, hands and renúncias) with oracle detections, no rendering;
- ``--video DIR [DIR ...]``: folders written by ``sueca dataset game``
  (video.mp4, calibration.json, truth.json) through the real recognizer.

Prints one JSON line per game and a summary: hands right (every play, in
order, right card and seat, right dealer and trump), wrong cards, misreads (a card
recorded where another was played, held plays too), latency.

Latency is counted twice: ``latency_from_rest_s`` from the instant the card
stopped, ``latency_s`` from when it was first seen at rest with most of it in
view (a hand may stay on it). For ``--video`` that instant comes from the game's
plan replayed without pixels: the folder's name must end in its seed, and
``--renuncias`` must be what it was rendered with.

    python scripts/eval_games.py --sim --seeds 1000-1009 --hands 3
    python scripts/eval_games.py --sim --seeds 4000-4039 --hands 3 --faults harsh
    python scripts/eval_games.py --plan --seeds 500-529 --hands 3 --renuncias 1
    python scripts/eval_games.py --video /tmp/games/*
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b) + 1)) if b else [int(a)]
    return out


#: --faults: detector noise and table mishaps of the simulated games
FAULTS = {
    "normal": ({}, {}),
    "harsh": ({"miss": 0.15, "misread": 0.08, "confident_misread": 0.01, "unreadable": 0.3},
              {"hover_p": 0.4, "nudge_p": 0.1, "lift_p": 0.06}),
    "severe": ({"miss": 0.25, "misread": 0.12, "confident_misread": 0.02, "unreadable": 0.4},
               {"hover_p": 0.4, "nudge_p": 0.1, "lift_p": 0.06}),
}


def _sim_game(seed: int, hands: int, revoke_rate: float, faults: str = "normal", fps: float = 10.0):
    from sueca.engine import MatchRecord, Rules, random_hand
    from sueca.vision.pipeline import Pipeline
    from sueca.vision.simtable import OracleDetector, OracleNoise, SimConfig, sim_source, simulate, truth_json

    noise, table = FAULTS[faults]

    rng = random.Random(seed)
    rules = Rules(target=100)  # keep one match going for all the hands
    dealer = rng.randrange(4)
    hs = []
    for _ in range(hands):
        hs.append(random_hand(rng, rules, dealer, revoke_rate=revoke_rate))
        dealer = (dealer + 1) % 4
    sim = simulate(MatchRecord(rules, tuple(hs)), rng, SimConfig(**table, fps=fps))
    pipe = Pipeline(sim_source(sim), OracleDetector(seed=seed, noise=OracleNoise(**noise)), sim.calibration, rules)
    pipe.run()
    return truth_json(sim), pipe


def _seen_marker(truth: list[dict]):
    """A function to call on each frame of the plan (a ``SimFrame``), then once with
    None: it notes in ``truth`` (``t_seen``) when each played card was first seen
    at rest with most of it in view. Latency is also counted from there: before
    it the player's hand still covers the card."""
    want: dict[str, list] = {}
    for h, hand in enumerate(truth):
        for i, p in enumerate(hand["plays"]):
            want.setdefault(p["card"], []).append([p["t"], None, h, i])

    def mark(f):
        if f is None:
            for lst in want.values():
                for t, seen, h, i in lst:
                    truth[h]["plays"][i]["t_seen"] = t if seen is None else seen
            return None
        for c in f.image:
            for w in want.get(c.code, ()):
                if w[1] is None and w[0] - 0.05 <= f.t < w[0] + 8 and c.visible >= 0.8 and c.speed < 1:
                    w[1] = f.t
        return f
    return mark


def _seen_from_plan(folder: Path, truth: dict, renuncias: int) -> bool:
    """``t_seen`` for a rendered game, from its plan replayed without pixels (the
    folder's name ends in the seed; same hands, size and renúncias, those of its
    ``events.json`` first, then ``renuncias``). False when that plan is not the one
    this video was rendered from."""
    import re

    from sueca.vision.planoracle import PlanTable

    m = re.search(r"(\d+)$", folder.name)
    if not m:
        return False
    target = truth.get("rules", {}).get("target", 4)
    # what the game was rendered with, where its events.json says (older folders: the options)
    events = json.loads((folder / "events.json").read_text()) if (folder / "events.json").is_file() else {}
    size = tuple(events.get("size", (1280, 960)))
    tries = dict.fromkeys([int(events.get("renuncias_injected", renuncias)), renuncias])
    for renuncias, clockwise in ((r, c) for r in tries for c in (False, True)):
        table = PlanTable(int(m.group(1)), len(truth["hands"]), renuncias=renuncias, clockwise=clockwise,
                          target=target, size=size)
        key = [[(p["card"], p["seat"], p["t"]) for p in h["plays"]] for h in table.truth()]
        if key == [[(p["card"], p["seat"], p["t"]) for p in h["plays"]] for h in truth["hands"]]:
            mark = _seen_marker(truth["hands"])
            for f in table.frames(float(events.get("fps", 10.0))):  # as the video was rendered
                mark(f)
            mark(None)
            return True
    return False


def _plan_game(seed: int, hands: int, renuncias: int, clockwise: bool = False, fps: float = 10.0):
    from sueca.engine import Rules
    from sueca.vision.pipeline import Pipeline
    from sueca.vision.planoracle import PlanTable
    from sueca.vision.simtable import OracleDetector

    table = PlanTable(seed, hands, renuncias=renuncias, clockwise=clockwise, target=100)  # play every hand
    truth = table.truth()
    mark = _seen_marker(truth)
    rules = Rules.from_dict({**table.plan.record.get("rules", {}), "target": 100})
    pipe = Pipeline((mark(f) for f in table.frames(fps)), OracleDetector(seed=seed), table.calibration(), rules)
    pipe.run()
    mark(None)
    return truth, pipe


def _video_game(folder: Path, model: str | None, renuncias: int = 1):
    from sueca.engine import Rules
    from sueca.hardware.sources import open_source
    from sueca.vision.geometry import Calibration
    from sueca.vision.pipeline import Pipeline
    from sueca.vision.recognizer import load_recognizer

    truth = json.loads((folder / "truth.json").read_text())
    if not _seen_from_plan(folder, truth, renuncias):
        print(f"{folder}: not rendered from plan seed/hands/renúncias {renuncias}; latency from rest only",
              file=sys.stderr)
    rules = Rules.from_dict({**truth.get("rules", {}), "target": 100})
    cal = Calibration.load(folder / "calibration.json")
    rec = load_recognizer(model) if model else load_recognizer()
    with open_source(str(folder / "video.mp4")) as src:
        pipe = Pipeline(src, rec, cal, rules)
        pipe.run()
    return truth["hands"], pipe


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    kind = ap.add_mutually_exclusive_group(required=True)
    kind.add_argument("--sim", action="store_true")
    kind.add_argument("--plan", action="store_true")
    kind.add_argument("--video", nargs="+", type=Path)
    ap.add_argument("--seeds", default="1000-1009", help="e.g. 1000-1019 or 5,7,9 (seeds not used in development)")
    ap.add_argument("--hands", type=int, default=3, help="hands per game")
    ap.add_argument("--renuncias", type=int, default=1, help="--plan: renúncias injected per game; --video: those the games were rendered with "
                         "(to replay their plans for t_seen)")
    ap.add_argument("--revoke-rate", type=float, default=0.08, help="--sim: chance a player revokes when able")
    ap.add_argument("--faults", choices=sorted(FAULTS), default="normal",
                    help="--sim: detector noise and table mishaps (harsh, severe: far worse than a good model)")
    ap.add_argument("--clockwise", action="store_true", help="--plan: seats in clockwise order (Brazil)")
    ap.add_argument("--slow", type=float, default=None, metavar="S",
                    help="print each play whose event came more than S seconds after the card lay still")
    ap.add_argument("--model", default=None, help="--video: recognizer model folder")
    ap.add_argument("--fps", type=float, default=10.0,
                    help="--sim, --plan: frames a second the pipeline sees (a slow Pi's live call sees fewer; "
                         "a phone's video more)")
    args = ap.parse_args(argv)
    if not args.fps > 0:
        ap.error(f"--fps must be a positive number of frames a second, got {args.fps}")

    from sueca.vision.gamecheck import compare

    games = ([("video", p) for p in args.video] if args.video else
             [("sim" if args.sim else "plan", s) for s in _seeds(args.seeds)])
    total = {"games": 0, "hands_total": 0, "hands_right": 0, "wrong_cards": 0, "missing": 0, "extra": 0,
             "misordered": 0, "wrong_seats": 0, "misread": 0, "misread_uncertain": 0, "held_misread": 0,
             "uncertain": 0, "rejected": 0}
    latencies: list[float] = []
    from_rest: list[float] = []
    start = time.time()
    for kind, key in games:
        t0 = time.time()
        if kind == "sim":
            truth, pipe = _sim_game(key, args.hands, args.revoke_rate, args.faults, args.fps)
        elif kind == "plan":
            truth, pipe = _plan_game(key, args.hands, args.renuncias, args.clockwise, args.fps)
        else:
            truth, pipe = _video_game(key, args.model, args.renuncias)
        r = compare(truth, pipe.record_json(), pipe.emitted)
        for hand_truth, (h, hand) in zip(truth, enumerate(pipe.record_json()["hands"])):
            plays = {p["card"]: p for p in hand_truth["plays"] if isinstance(p, dict)}
            for j, p in enumerate(hand["plays"]):
                tp = plays.get(p["card"] if isinstance(p, dict) else p)
                if (h, j) in pipe.emitted and tp is not None and tp.get("t") is not None:
                    # from the card in plain view at rest, and from the instant it stopped
                    latencies.append(pipe.emitted[(h, j)] - tp.get("t_seen", tp["t"]))

                    from_rest.append(pipe.emitted[(h, j)] - tp["t"])
                    if args.slow is not None and max(latencies[-1], from_rest[-1]) > args.slow:
                        print(json.dumps({"slow": str(key), "hand": h, "play": j, "card": tp["card"],
                                          "seat": tp.get("seat"), "t_rest": tp["t"], "t_seen": tp.get("t_seen"),
                                          "latency": round(latencies[-1], 3),
                                          "from_rest": round(from_rest[-1], 3)}), flush=True)
        total["games"] += 1
        for k in ("hands_total", "hands_right", "wrong_cards", "missing", "extra", "misordered", "wrong_seats",
                  "misread", "misread_uncertain", "held_misread"):
            total[k] += r[k]
        uncertain = [f"{e.card}@{e.t:.1f}" for e in pipe.events if getattr(e, "uncertain", False)]
        rejected = len(pipe.rejected)
        total["uncertain"] += len(uncertain)
        total["rejected"] += rejected
        print(json.dumps({"game": str(key), "kind": kind, "hands": r["hands_total"], "right": r["hands_right"],
                          "wrong_cards": r["wrong_cards"], "missing": r["missing"], "extra": r["extra"],
                          "misordered": r["misordered"], "wrong_seats": r["wrong_seats"], "misread": r["misread"],
                          "misread_uncertain": r["misread_uncertain"], "held_misread": r["held_misread"],
                          "held": len(pipe.held_json()), "uncertain": uncertain, "rejected": rejected,
                          "frames": pipe.frames,
                          "seconds": round(time.time() - t0, 1),
                          "bad_hands": [x for x in r["hands"] if not x["right"]]}), flush=True)
    lat = sorted(latencies)
    total["hands_right_ratio"] = round(total["hands_right"] / max(1, total["hands_total"]), 4)
    for key, values in (("latency_s", lat), ("latency_from_rest_s", sorted(from_rest))):
        if values:
            total[key] = {"median": round(values[len(values) // 2], 3),
                          "p95": round(values[int(len(values) * 0.95)], 3),
                          "max": round(values[-1], 3), "n": len(values)}
    total["seconds"] = round(time.time() - start, 1)
    print(json.dumps({"summary": total}))
    ok = total["hands_right_ratio"] >= 0.98 and total["wrong_cards"] == 0 and total["misread"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
