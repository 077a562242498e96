"""How many complete hands the engine scores per second, from JSON records.

Run: python benchmarks/bench_engine.py [--hands N]
Prints figures for each stage side by side: parsing the record, replaying
and scoring, and the whole path (JSON text -> score report).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor

from sueca.engine import Match, MatchRecord, Rules, random_hand


def _score_chunk(objs: list[dict]) -> int:
    return sum(Match(MatchRecord.from_json(o)).riscos[0] >= 0 for o in objs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    rules = Rules()
    hands = [random_hand(rng, rules, rng.randrange(4), revoke_rate=0.02) for _ in range(args.hands)]
    # one single-hand record per hand, as a scorer of many tables would see them
    objs = [{"hands": [h.to_json()]} for h in hands]
    texts = [json.dumps(o) for o in objs]
    # The inputs stay alive for the whole run; keep the cyclic GC from rescanning
    # them (a scorer reading one record at a time never holds them all).
    gc.collect()
    gc.freeze()

    def timed(fn):
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    records = []
    t_parse = timed(lambda: records.extend(MatchRecord.from_json(o) for o in objs))
    t_score = timed(lambda: [Match(r).results for r in records])
    records.clear()
    t_stream = timed(lambda: [Match(MatchRecord.from_json(o)).results for o in objs])
    t_full = timed(lambda: [Match(MatchRecord.from_json(json.loads(s))).report() for s in texts])
    workers = os.cpu_count() or 1
    chunks = [objs[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        list(pool.map(_score_chunk, [c[:10] for c in chunks]))  # start the workers first
        t_multi = timed(lambda: list(pool.map(_score_chunk, chunks)))
    n = args.hands
    print(f"hands: {n} complete hands (random legal play, 2% revoke rate), CPython")
    print(f"{'stage':<34}{'seconds':>10}{'hands/s':>12}")
    for name, t in [("parse record (dict -> MatchRecord)", t_parse), ("replay + score (Match)", t_score),
                    ("parse + score (dict -> riscos)", t_parse + t_score),
                    ("parse + score, one record at a time", t_stream),
                    ("JSON text -> full score report", t_full),
                    (f"parse + score, {workers} processes", t_multi)]:
        print(f"{name:<34}{t:>10.3f}{n / t:>12,.0f}")
    print(f"target 20,000 hands/s: one core {n / t_stream / 20000:.2f}x, "
          f"{workers} processes {n / t_multi / 20000:.2f}x (parse + score)")


if __name__ == "__main__":
    main()
