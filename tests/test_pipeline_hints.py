"""A card read in one frame only is no play's card, but it tells two unread cards apart
at the hand's end (PlayEvent.hint, sueca.vision.deduce.reconcile)."""

from test_pipeline_robust import TwoBlind, _interchangeable, game

from sueca.vision.detections import CardDetections
from sueca.vision.gamecheck import compare
from sueca.vision.pipeline import Pipeline
from sueca.vision.simtable import sim_source, truth_json


class ReadOnce(TwoBlind):
    """Two cards never read, but each once: in the first frame it is seen after lying still
    ``after`` seconds (a slow camera's single good look)."""

    def __init__(self, plays, seed, after=0.0):
        super().__init__(tuple(p.card for p in plays), seed)
        self.rest = {p.card: p.t_rest for p in plays}
        self.after, self.read = after, set()

    def __call__(self, cards):
        t = self.t
        self.t += 0.1
        d = self.inner(cards)
        if not len(d):
            return d
        codes, conf = [], d.confidence.copy()
        for k, c in enumerate(d.codes):
            if c in self.codes and c not in self.read and t >= self.rest[c] + self.after:
                self.read.add(c)
                codes.append(c)
                conf[k] = 0.95  # a good look, one frame only
            else:
                codes.append("" if c in self.codes else c)
        return CardDetections(d.xyxy, tuple(codes), conf, d.locate_confidence, d.corners)


def _pair(seed):
    rules, sim = game(seed, hands=1)
    i, j = _interchangeable(sim.truth[0])
    return rules, sim, sim.truth[0].plays[i], sim.truth[0].plays[j]


def test_two_cards_read_once_each_are_named_where_the_rules_alone_cannot():
    rules, sim, a, b = _pair(33)
    blind = Pipeline(sim_source(sim), TwoBlind((a.card, b.card), 33), sim.calibration, rules)
    blind.run()
    assert blind.unresolved  # never read: the rules cannot tell the two apart, the referee is asked

    once = ReadOnce((a, b), 33)
    pipe = Pipeline(sim_source(sim), once, sim.calibration, rules)
    pipe.run()
    assert once.read == {a.card, b.card}  # each was read, in one frame
    record = pipe.record_json()
    assert not pipe.unresolved and compare(truth_json(sim), record)["hands_right"] == 1
    marked = [p["card"] for p in record["hands"][0]["plays"] if isinstance(p, dict) and p.get("uncertain")]
    assert marked == [a.card, b.card]  # named, and still for the referee to confirm


def test_a_hint_goes_with_the_held_play_for_the_referee():
    rules, sim, a, b = _pair(33)
    pipe = Pipeline(sim_source(sim), ReadOnce((a, b), 33), sim.calibration, rules)
    for _ in pipe:  # the hand not over yet when the record is written: nothing deduced
        if len(pipe.held_json()) >= 2 and sum(1 for u in pipe.held_json() if u["card"] is None) == 2:
            break
    held = [u for u in pipe.held_json() if u["card"] is None]
    assert [u.get("hint") for u in held] == [a.card, b.card]
    assert all(u["why"] == "unreadable" or u["why"] == "after an unreadable card" for u in held)
