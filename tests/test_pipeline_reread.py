"""A card misread in its first frames at rest (blurred as it landed) and read right a moment
later where it lies: the play is corrected in place (``PlayCorrected``), never recorded twice,
and the hand comes out right."""

import dataclasses
import random

import numpy as np
import pytest

from sueca.engine import MatchRecord, Rules, random_hand
from sueca.vision.events import PlayCorrected
from sueca.vision.gamecheck import compare
from sueca.vision.pipeline import Pipeline
from sueca.vision.simtable import OracleDetector, OracleNoise, sim_source, simulate, truth_json


def _landing_misread(oracle, x: str, y: str, frames: int = 3):
    """``x`` reads as ``y`` (sure of it) in its first ``frames`` frames lying still, then as itself."""
    left = [frames]

    def detect(cards):
        d = oracle(cards)
        still = any(c.code == x and c.speed <= 1.0 and c.visible >= 1.0 for c in cards)
        if left[0] > 0 and still and x in d.codes:
            left[0] -= 1
            hit = np.asarray([c == x for c in d.codes])
            return dataclasses.replace(d, codes=tuple(y if c == x else c for c in d.codes),
                                       confidence=np.where(hit, 0.97, d.confidence).astype(np.float32))
        return d
    return detect


def _run(seed: int, early: int = 5):
    rng = random.Random(seed)
    rules = Rules(target=100)
    hand = random_hand(rng, rules, seed % 4, revoke_rate=0.0)
    sim = simulate(MatchRecord(rules, (hand,)), rng)
    x = hand.plays[early].card.code
    y = hand.plays[30].card.code  # a card played later (as Aguilar's 2S read as 2C)
    oracle = OracleDetector(seed=seed, noise=OracleNoise(misread=0.0, confident_misread=0.0))
    events = []
    pipe = Pipeline(sim_source(sim), _landing_misread(oracle, x, y), sim.calibration, rules,
                    on_event=events.append)
    pipe.run()
    return pipe, compare(truth_json(sim), pipe.record_json()), events, x, y


@pytest.mark.parametrize("seed", [21, 22, 23, 24])
def test_a_play_misread_as_it_landed_is_corrected_in_place(seed):
    pipe, report, events, x, y = _run(seed)
    fixed = [e for e in events if isinstance(e, PlayCorrected)]
    assert [(e.previous, e.card) for e in fixed] == [(y, x)], fixed  # the case happened, and was mended
    assert report["misread"] == 0 and report["hands_right"] == 1, report["hands"]
    plays = pipe.record_json()["hands"][0]["plays"]
    assert len(plays) == 40 and sum(p["card"] == x for p in plays) == 1 and sum(p["card"] == y for p in plays) == 1
