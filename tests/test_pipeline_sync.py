"""Server mode: the referee's committed record is the pipeline's truth.

Whole hands on the simulated table go through the real LiveFeed and Referee;
in the middle the referee corrects the match the way the dashboard does
(``Referee.submit``, who="referee"), and the camera's later plays must land on
the right seats, be accepted, and lose nothing already recorded.
"""

import random

import pytest

from sueca.engine import MatchRecord, Rules, random_hand
from sueca.server.feed import LiveFeed
from sueca.server.service import Referee
from sueca.server.state_models import StateOut
from sueca.server.store import Store
from sueca.vision.detections import CardDetections
from sueca.vision.events import PlayEvent
from sueca.vision.pipeline import Pipeline
from sueca.vision.simtable import OracleDetector, SimConfig, sim_source, simulate

REF = "referee"


def one_hand(seed, **cfg):
    rng = random.Random(seed)
    rules = Rules()
    hand = random_hand(rng, rules, seed % 4, revoke_rate=0.0)
    return simulate(MatchRecord(rules, (hand,)), rng, SimConfig(**cfg))


def served(sim, detector, **kw):
    feed = LiveFeed(Referee(Store(":memory:")))
    pipe = Pipeline(sim_source(sim), detector, sim.calibration, on_event=feed.on_event,
                    committed=feed.committed, **kw)
    return feed, pipe


def plays_of(feed, hand=0):
    rec = feed.referee.view().record
    return [(p.card.code, p.seat) for p in rec.hands[hand].plays] if len(rec.hands) > hand else []


def truth_of(sim, hand=0):
    return [(p.card, p.seat) for p in sim.truth[hand].plays]


def drive(pipe, on_play):
    """Run the pipeline; ``on_play(event, n)`` after its n-th play event (the
    referee acting on the dashboard between two frames)."""
    n = 0
    for ev in pipe:
        if isinstance(ev, PlayEvent):
            on_play(ev, n)
            n += 1
    pipe.deduce_unknown()


def assert_exact(feed, sim, pipe):
    view = feed.referee.view()
    assert plays_of(feed) == truth_of(sim)
    assert view.match.hands[0].seat_mismatches == []
    assert view.rejected == ()
    assert pipe.record is view.record and pipe.turn is None and not pipe._pending


class Misread:
    """Oracle detections in which card ``x`` reads, confidently, as ``y`` until
    ``fixed`` is set (the recognizer's commonest fault)."""

    def __init__(self, x, y, seed):
        self.x, self.y, self.fixed = x, y, False
        self.inner = OracleDetector(seed=seed)

    def __call__(self, cards):
        d = self.inner(cards)
        if self.fixed or not len(d):
            return d
        codes = tuple(self.y if c == self.x else c for c in d.codes)
        conf = d.confidence.copy()
        conf[[c == self.x for c in d.codes]] = 0.95
        return CardDetections(d.xyxy, codes, conf, d.locate_confidence, d.corners)


class Blind(OracleDetector):
    """Never reads one card (it is still located)."""

    def __init__(self, code, seed):
        super().__init__(seed=seed)
        self.code = code

    def __call__(self, cards):
        d = super().__call__(cards)
        codes = tuple("" if c == self.code else c for c in d.codes)
        return CardDetections(d.xyxy, codes, d.confidence, d.locate_confidence, d.corners)


def test_referee_sets_dealer_and_trump_and_held_plays_go_in():
    sim = one_hand(21, trump_visible=False)
    truth = sim.truth[0]
    feed, pipe = served(sim, OracleDetector(seed=21))
    ref = feed.referee
    seen = []

    def act(ev, n):
        seen.append(ev)
        if n == 5:
            # six plays seen, nothing committed: the pipeline holds them, knows no turn
            assert plays_of(feed) == [] and pipe.turn is None and len(pipe._pending) == 6
            assert ref.view().rejected == ()   # held, not thrown at the referee
            ref.submit("new_hand", {"dealer": truth.dealer, "trump_card": truth.trump_card}, REF)
        if n == 6:
            # the next frame released them: in order, on their seats, and the turn moved on
            assert plays_of(feed) == truth_of(sim)[:7]
            assert pipe.turn == truth.plays[7].seat

    drive(pipe, act)
    assert len(seen) == 40
    assert_exact(feed, sim, pipe)


def test_trump_from_flags_reaches_the_referee():
    sim = one_hand(22, trump_visible=False)
    truth = sim.truth[0]
    feed, pipe = served(sim, OracleDetector(seed=22), dealer=truth.dealer, trump=truth.trump_card)
    hand = feed.referee.view().record.hands[0]
    assert (hand.dealer, hand.trump_card.code) == (truth.dealer, truth.trump_card)
    assert pipe.turn == (truth.dealer + 1) % 4
    drive(pipe, lambda ev, n: None)
    assert_exact(feed, sim, pipe)


def misread_case(seed):
    sim = one_hand(seed)
    plays = sim.truth[0].plays
    trump = sim.truth[0].trump_card
    k = next(i for i in range(4, 8) if plays[i].card != trump)
    y = next(p.card for p in plays[16:] if p.card != trump)
    det = Misread(plays[k].card, y, seed)
    feed, pipe = served(sim, det)
    return sim, det, feed, pipe, k


def test_referee_corrects_a_misread_card_and_the_real_one_is_played_later():
    sim, det, feed, pipe, k = misread_case(23)
    x, y = det.x, det.y
    done = []

    def act(ev, n):
        if ev.card == y and not done:
            assert n == k and plays_of(feed)[k] == (y, ev.seat)   # committed as misread
            before = plays_of(feed)
            feed.referee.submit("correct_play", {"hand": 0, "index": k, "card": x}, REF)
            det.fixed = True
            done.append(n)
            after = plays_of(feed)
            assert after[:k] == before[:k] and after[k] == (x, ev.seat)   # nothing lost

    drive(pipe, act)
    assert done == [k]
    assert_exact(feed, sim, pipe)    # the real y, played later, went in on its seat


def test_referee_undoes_a_misread_play_and_enters_it_by_hand():
    sim, det, feed, pipe, k = misread_case(24)
    x, y = det.x, det.y
    ref = feed.referee
    turns = []

    def act(ev, n):
        if ev.card == y and n == k:
            ref.submit("undo", {}, REF)
            assert len(plays_of(feed)) == k
            ref.submit("play", {"card": x, "seat": ev.seat}, REF)
            det.fixed = True
        elif n == k + 1:
            turns.append((pipe.turn, ref.view().match.current_hand.turn))

    drive(pipe, act)
    assert_exact(feed, sim, pipe)
    assert turns == [(sim.truth[0].plays[k + 2].seat,) * 2]


def test_referee_enters_the_unread_card_and_the_hand_goes_on():
    sim = one_hand(25)
    hidden = sim.truth[0].plays[5]
    feed, pipe = served(sim, Blind(hidden.card, 25))
    ref = feed.referee
    named = []

    def act(ev, n):
        if n == 8 and pipe.unresolved:
            # the unread play blocks the hand: its later plays wait here, not there
            assert len(plays_of(feed)) == 5
            # whose turn it is still follows the seats of the plays held (held_turn)
            assert pipe.turn == sim.truth[0].plays[5 + len(pipe._pending)].seat
            assert ref.view().rejected[-1]["why"] == "unreadable"
            assert "nobody could read" in ref.view().rejected[-1]["reason"]
            # the dashboard's status line tells the referee what the game waits for
            feed.on_event(pipe._status(1.0, ev.t))
            status = StateOut.model_validate(ref.state()).status
            assert status.held == len(pipe.unresolved) >= 3 and status.held_t == round(pipe.unresolved[0].t, 2)
            ref.submit("play", {"card": hidden.card, "seat": hidden.seat}, REF)
            named.append(n)

    drive(pipe, act)
    assert named == [8]
    view = ref.view()
    assert plays_of(feed) == truth_of(sim)
    assert len(view.rejected) == 1   # the alert that asked for the card, nothing else
    assert pipe.turn is None and not pipe._pending and not pipe.abandoned
    assert pipe._status(1.0, 0.0).held == 0


class Invisible(Blind):
    """Never sees one card at all (not even located): its play is missed."""

    def __call__(self, cards):
        return OracleDetector.__call__(self, [c for c in cards if c.code != self.code])


def test_referee_inserts_a_missed_play_mid_hand():
    sim = one_hand(31)
    k = 6
    missed = sim.truth[0].plays[k]
    feed, pipe = served(sim, Invisible(missed.card, 31))
    ref = feed.referee
    done = []

    def act(ev, n):
        if n == k + 2 and not done:
            # two plays later the referee notices the gap and puts the card back where it was
            assert missed.card not in [c for c, _ in plays_of(feed)]
            ref.submit("insert_play", {"hand": 0, "index": k, "card": missed.card, "seat": missed.seat}, REF)
            done.append(n)

    drive(pipe, act)
    assert done == [k + 2]
    view = ref.view()
    assert plays_of(feed) == truth_of(sim)
    assert view.match.hands[0].all_played and view.match.hands[0].seat_mismatches == []
    assert len(view.meta[0]) == 40


def test_new_match_on_the_dashboard_is_followed():
    sim = one_hand(26)
    feed, pipe = served(sim, OracleDetector(seed=26))
    ref = feed.referee

    def act(ev, n):
        if n == 10:
            ref.start_match(REF)   # the referee throws the match away mid-hand

    drive(pipe, act)
    # the new match has no hand: the camera's later plays wait for a dealer and trump
    assert ref.view().record.hands == () and pipe.turn is None
    assert len(pipe._pending) == 40 - 11
    assert [len(r.hands[0].plays) for r in pipe.finished_records] == [11]
    assert ref.view().rejected == ()


def test_referee_moves_a_play_to_another_seat_and_it_stays():
    sim = one_hand(27)
    feed, pipe = served(sim, OracleDetector(seed=27))
    ref = feed.referee
    moved = (sim.truth[0].plays[2].seat + 2) % 4

    def act(ev, n):
        if n == 3:
            ref.submit("correct_play", {"hand": 0, "index": 2, "seat": moved}, REF)

    drive(pipe, act)
    want = truth_of(sim)
    want[2] = (want[2][0], moved)
    assert plays_of(feed) == want          # the referee's word kept, every later play in
    mism = ref.view().match.hands[0].seat_mismatches
    assert [m.play for m in mism] == [2] and ref.view().rejected == ()


class Unread(OracleDetector):
    """One card unreadable while ``when(t)`` holds (frames at 10 fps)."""

    def __init__(self, code, seed, when):
        super().__init__(seed=seed)
        self.code, self.when, self.t = code, when, 0.0

    def __call__(self, cards):
        d = super().__call__(cards)
        now, self.t = self.when(self.t), self.t + 0.1
        if not now or not len(d):
            return d
        codes = tuple("" if c == self.code else c for c in d.codes)
        return CardDetections(d.xyxy, codes, d.confidence, d.locate_confidence, d.corners)


def test_camera_fixes_reach_the_referee_once():
    # read late while it still lies there: one play, corrected, never doubled
    sim = one_hand(33)
    late = sim.truth[0].plays[2]
    feed, pipe = served(sim, Unread(late.card, 33, lambda t: t < late.t_rest + 4.0))
    drive(pipe, lambda ev, n: None)
    assert plays_of(feed) == truth_of(sim)
    # never read: the hand waits, and at the end the one card not seen is deduced
    sim = one_hand(32)
    hidden = sim.truth[0].plays[9]
    feed, pipe = served(sim, Unread(hidden.card, 32, lambda t: True))
    drive(pipe, lambda ev, n: None)
    assert plays_of(feed) == truth_of(sim)
    assert pipe.record_json()["hands"][0]["plays"][9]["uncertain"] is True
    assert feed.referee.view().meta[0][9].uncertain   # the dashboard asks to confirm it


class Drop(OracleDetector):
    """One card not seen until ``until`` (played under a sleeve and swept with it)."""

    def __init__(self, code, seed, until):
        super().__init__(seed=seed)
        self.code, self.until, self.t = code, until, 0.0

    def __call__(self, cards):
        self.t += 0.1
        return super().__call__([c for c in cards if c.code != self.code or self.t > self.until])


@pytest.mark.parametrize("referee_names_it", [False, True])
def test_missed_last_card_is_asked_of_the_referee_and_named_by_the_next_trump(referee_names_it):
    # the hand's last card is never seen: its trick is swept a card short, so the seat owed
    # played a card nobody saw; the next hand's trump ends the hand, and the card is the
    # only one not seen. The referee is asked meanwhile, and may name it first.
    rng = random.Random(28)
    rules = Rules()
    hands = tuple(random_hand(rng, rules, d, revoke_rate=0.0) for d in (1, 2))
    sim = simulate(MatchRecord(rules, hands), rng)
    lost = sim.truth[0].plays[39]
    feed, pipe = served(sim, Drop(lost.card, 28, until=lost.t_rest + 4.0))
    ref = feed.referee
    entered = []

    def act(ev, n):
        if ref.view().rejected and not entered:
            asked = ref.view().rejected[0]
            assert (asked["why"], asked["seat"]) == ("unseen", lost.seat)
            assert len(plays_of(feed)) == 39
            entered.append(n)
            if referee_names_it:
                ref.submit("play", {"card": lost.card, "seat": lost.seat}, REF)

    drive(pipe, act)
    assert entered
    assert plays_of(feed, 0) == truth_of(sim, 0)
    assert plays_of(feed, 1) == truth_of(sim, 1)
    assert len(ref.view().rejected) == 1 and not pipe._pending


@pytest.mark.parametrize("seed", [101, 303])
def test_whole_games_with_renuncias_are_exact_in_server_mode(seed):
    # a hand decided by a renúncia still takes the rest of its cards, and the next
    # hand starts clean: nothing of one hand spills into the other
    rng = random.Random(seed)
    rules = Rules(target=100)
    hands = tuple(random_hand(rng, rules, (seed + k) % 4, revoke_rate=0.1) for k in range(2))
    sim = simulate(MatchRecord(rules, hands), rng)
    feed, pipe = served(sim, OracleDetector(seed=seed))
    feed.referee.submit("rules", {"rules": {"target": 100}}, REF)
    pipe.run()
    view = feed.referee.view()
    assert any(h.decided_by is not None for h in view.match.hands)
    assert [plays_of(feed, 0), plays_of(feed, 1)] == [truth_of(sim, 0), truth_of(sim, 1)]
    assert view.rejected == () and not pipe._pending
