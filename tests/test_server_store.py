"""Store, event fold, referee service and live feed, without HTTP."""

from __future__ import annotations

import random
import sqlite3

import pytest

from sueca.engine import Match, MatchRecord, Rules, random_hand
from sueca.server.config import Config
from sueca.server.feed import LiveFeed
from sueca.server.replay import EventRejected, MatchView, apply, replay
from sueca.server.service import Referee
from sueca.server.store import Store
from sueca.vision.events import PlayEvent, SourceStatus, TrickCleared, TrumpSeen

# dealer 3, trump 5H, leader 0. Seat 1 does not follow spades in trick 0 (plays 2D)
# and proves it by playing 3S in trick 1: a renúncia of "Eles" (team 1).
RENUNCIA_PLAYS = ["AS", "2D", "KS", "QS", "AC", "3S"]


@pytest.fixture
def ref(tmp_path):
    return Referee(Store(tmp_path / "s.db"))


def test_store_appends_and_reads_back_in_order(tmp_path):
    s = Store(tmp_path / "s.db")
    m = s.create_match("Mesa 2")
    e1 = s.append(m, "names", {"players": ["A", "B", "C", "D"]}, who="referee")
    e2 = s.append(m, "play", {"card": "AS"}, who="camera", snapshot=b"\xff\xd8jpeg")
    assert [e.id for e in s.events(m)] == [e1.id, e2.id]
    assert s.snapshot(e2.id) == b"\xff\xd8jpeg" and s.snapshot(e1.id) is None
    assert s.match(m).events == 2 and s.matches()[0].title == "Mesa 2"
    mode = sqlite3.connect(tmp_path / "s.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_store_survives_reopen(tmp_path):
    s = Store(tmp_path / "s.db")
    m = s.create_match()
    s.append(m, "new_hand", {"dealer": 1, "trump_card": "2C"}, who="x")
    s.close()
    s2 = Store(tmp_path / "s.db")
    assert [e.payload for e in s2.events(m)] == [{"dealer": 1, "trump_card": "2C"}]


def test_fold_matches_engine_on_a_random_hand():
    rng = random.Random(5)
    hand = random_hand(rng, Rules(), dealer=2)
    v = apply(MatchView.empty(), "new_hand", {"dealer": 2, "trump_card": hand.trump_card.code}, 1)
    for i, p in enumerate(hand.plays):
        v = apply(v, "play", {"card": p.card.code}, i + 2)
    expected = Match(MatchRecord(Rules(), (hand,))).report()
    assert v.match.report()["hands"][0]["points"] == expected["hands"][0]["points"]
    assert v.match.riscos == Match(MatchRecord(Rules(), (hand,))).riscos


@pytest.mark.parametrize("kind,payload,needle", [
    ("play", {"card": "AS"}, "no hand started"),
    ("new_hand", {"dealer": 7, "trump_card": "5H"}, "seat"),
    ("new_hand", {"dealer": 1, "trump_card": "8H"}, "not in the Sueca deck"),
    ("renuncia_decision", {"hand": 0, "seat": 1, "trick": 0, "confirm": True}, "claim"),
    ("rules", {"rules": {"target": 0}}, "target"),
    ("rules", {"rules": {"tie": "coin_toss"}}, "tie"),
    ("undo", {}, "nothing to undo"),
    ("teleport", {}, "unknown event kind"),
])
def test_fold_refuses_impossible_events(kind, payload, needle):
    with pytest.raises(EventRejected, match=needle):
        apply(MatchView.empty(), kind, payload)


def test_refused_event_is_not_stored(ref):
    ref.submit("new_hand", {"dealer": 3, "trump_card": "5H"}, "r")
    ref.submit("play", {"card": "AS"}, "r")
    n = len(ref.store.events(ref.live_id))
    with pytest.raises(EventRejected, match="already played"):
        ref.submit("play", {"card": "AS"}, "r")
    assert len(ref.store.events(ref.live_id)) == n


def test_corrections_are_events_and_the_score_is_rederived(ref):
    ref.submit("new_hand", {"dealer": 3, "trump_card": "5H"}, "camera")
    for c in ["AS", "2S", "KS", "QS"]:
        ref.submit("play", {"card": c}, "camera")
    assert ref.state()["hand"]["points"] == [17, 0]
    # the camera misread the king: it was the 4 of spades
    ref.submit("correct_play", {"hand": 0, "index": 2, "card": "4S"}, "referee:Rita")
    assert ref.state()["hand"]["points"] == [13, 0]
    ref.submit("undo", {}, "referee")
    assert ref.state()["hand"]["plays"] == 3
    log = ref.store.events(ref.live_id)
    assert [(e.kind, e.who) for e in log[-2:]] == [("correct_play", "referee:Rita"), ("undo", "referee")]
    # a fresh replay of the log gives the same state
    again = replay(log)
    assert again.record == ref.view().record


def test_renuncia_state_carries_evidence_and_snapshots(ref):
    ref.submit("new_hand", {"dealer": 3, "trump_card": "5H"}, "camera")
    for i, c in enumerate(RENUNCIA_PLAYS):
        ref.submit("play", {"card": c, "seat": i % 4 if i < 4 else [0, 1][i - 4]}, "camera",
                   snapshot=f"jpeg{i}".encode())
    s = ref.state()
    [r] = s["renuncias"]
    assert (r["seat"], r["trick"], r["led_suit"], r["proof_card"], r["status"]) == (1, 0, "S", "3S", "applied")
    assert r["offence_card"] == "2D" and r["offence_play"] == 1 and r["proof_play"] == 5
    ids = [int(u.split("/")[-1].split(".")[0]) for u in r["snapshots"]]
    assert [ref.store.snapshot(i) for i in ids] == [b"jpeg1", b"jpeg5"]
    assert s["riscos"] == [4, 0] and s["winner"] == 0


def test_claim_mode_decision(ref):
    ref.submit("rules", {"rules": {"renuncia": "claim"}}, "referee")
    ref.submit("new_hand", {"dealer": 3, "trump_card": "5H"}, "camera")
    for c in RENUNCIA_PLAYS:
        ref.submit("play", {"card": c}, "camera")
    assert ref.state()["renuncias"][0]["status"] == "pending" and ref.state()["riscos"] == [0, 0]
    ref.submit("renuncia_decision", {"hand": 0, "seat": 1, "trick": 0, "confirm": True}, "referee")
    assert ref.state()["renuncias"][0]["status"] == "confirmed" and ref.state()["riscos"] == [4, 0]


def test_feed_turns_pipeline_events_into_match_events(ref):
    feed = LiveFeed(ref)
    assert feed.on_event(TrumpSeen("5H", seat=3, t=0.0, confidence=0.9)) == "new_hand"
    assert feed.on_event(TrumpSeen("5H", seat=3, t=0.5, confidence=0.9)) == "ignored"
    assert feed.on_event(TrumpSeen("6H", seat=3, t=0.6, confidence=0.9)) == "set_trump"
    assert feed.on_event(PlayEvent("AS", 0, 1.0, 0.97, snapshot_jpeg=b"j")) == "play"
    assert feed.on_event(PlayEvent("AS", 1, 2.0, 0.97)) == "rejected"
    assert feed.on_event(PlayEvent("9S", 1, 2.5, 0.97)) == "rejected"
    assert feed.on_event(PlayEvent("2S", 1, 3.0, 0.51, uncertain=True)) == "play"
    assert feed.on_event(TrickCleared(4.0)) == "ignored"
    assert feed.on_event(SourceStatus(True, 9.5, 120, "yolo-n", "")) == "status"
    s = ref.state()
    assert s["status"]["fps"] == 9.5 and s["status"]["model"] == "yolo-n" and s["status"]["slow"] is False
    feed.on_event(SourceStatus(True, 4.2, 140, "yolo-n", "", slow=True))  # a Pi falling behind its camera
    assert ref.state()["status"]["slow"] is True and ref.state()["status"]["fps"] == 4.2
    feed.on_event(SourceStatus(True, 9.5, 160, "yolo-n", ""))
    assert ref.state()["status"]["slow"] is False
    assert [u["card"] for u in s["uncertain"]] == ["2S"]
    assert [r["card"] for r in s["rejected"]] == ["AS", "9S"]
    assert s["hand"]["trump_card"] == "6H"
    ref.submit("confirm_play", {"hand": 0, "index": 1}, "referee")
    assert ref.state()["uncertain"] == []
    with pytest.raises(TypeError):
        feed.on_event("not an event")


def test_feed_starts_a_new_match_after_a_win(ref):
    feed = LiveFeed(ref)
    feed.on_event(TrumpSeen("5H", 3, 0.0, 0.9))
    for i, c in enumerate(RENUNCIA_PLAYS):
        feed.on_event(PlayEvent(c, None, float(i), 0.95))
    assert ref.state()["winner"] == 0
    first = ref.live_id
    ref.submit("names", {"players": ["Ana", "Rui", "Zé", "Bia"]}, "referee")
    assert feed.on_event(TrumpSeen("2C", 0, 9.0, 0.9)) == "new_match"
    assert ref.live_id != first and ref.state()["players"] == ["Ana", "Rui", "Zé", "Bia"]
    assert ref.state()["hand"]["dealer"] == 0


def test_frame_hook_keeps_the_latest_picture(ref):
    feed = LiveFeed(ref)
    assert feed.frame() is None
    feed.on_frame(b"jpg1", (640, 480), [{"card": "AS", "confidence": 0.9, "box": [1, 2, 3, 4]}], index=7, t=1.5)
    f = feed.frame()
    assert f.jpeg == b"jpg1" and f.meta()["detections"][0]["card"] == "AS" and f.meta()["index"] == 7
    seen = []
    feed.on_calibration(seen.append)
    feed.calibration_changed({"center": [1, 2]})
    assert seen == [{"center": [1, 2]}]


def test_config_token_created_once_and_kept(tmp_path):
    cfg, created = Config.load(tmp_path)
    again, created2 = Config.load(tmp_path)
    assert created and not created2 and cfg.admin_token == again.admin_token
    assert (tmp_path / "config.json").stat().st_mode & 0o077 == 0
    cal = {"image_size": [640, 480], "center": [320, 240], "seats": [[320, 470], [630, 240], [320, 10], [10, 240]]}
    cfg.with_calibration(cal)
    assert Config.load(tmp_path)[0].calibration == cal
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="config.json"):
        Config.load(tmp_path)


def test_replay_skips_an_event_an_engine_refuses(tmp_path):
    s = Store(tmp_path / "s.db")
    m = s.create_match()
    s.append(m, "new_hand", {"dealer": 3, "trump_card": "5H"}, "x")
    s.append(m, "play", {"card": "AS"}, "x")
    s.append(m, "play", {"card": "AS"}, "x")  # written by hand: impossible
    s.append(m, "play", {"card": "2S"}, "x")
    v = replay(s.events(m))
    assert [e["kind"] for e in v.errors] == ["play"]
    assert len(v.record.hands[0].plays) == 2


def _ops():
    from hypothesis import strategies as st

    kinds = st.sampled_from(["play"] * 8 + ["undo", "correct", "seat", "confirm", "new_hand", "names"])
    return st.lists(st.tuples(kinds, st.integers(0, 10_000)), max_size=80)


def test_incremental_state_equals_a_full_replay_of_the_log():
    """Whatever the sequence of events (refused ones included), the state shown
    live is exactly what a restart would rebuild from the log."""
    from hypothesis import given, settings

    from sueca.server.state_models import StateOut, extras
    from sueca.server.view import build_state

    deck = [c.code for c in Rules().deck]

    @settings(max_examples=120, deadline=None)
    @given(_ops())
    def check(ops):
        ref = Referee(Store(":memory:"))
        ref.submit("new_hand", {"dealer": 3, "trump_card": "5H"}, "t")
        for kind, k in ops:
            rec = ref.view().record
            hands = len(rec.hands)
            plays = len(rec.hands[-1].plays) if hands else 0
            h, i = max(hands - 1, 0), (k % plays if plays else 0)
            # mostly cards still in hand (so that plays go through), now and then any card
            used = {p.card.code for p in rec.hands[-1].plays} | {rec.hands[-1].trump_card.code} if hands else set()
            left = [c for c in deck if c not in used] or deck
            card = left[k % len(left)] if k % 10 else deck[k % 40]
            payload = {
                "play": {"card": card, "seat": k % 5 if k % 5 < 4 else None, "uncertain": k % 3 == 0,
                         "confidence": (k % 100) / 100},
                "undo": {},
                "correct": {"hand": h, "index": i, "card": deck[(k // 7) % 40]},
                "seat": {"hand": h, "index": i, "seat": k % 4},
                "confirm": {"hand": h, "index": i},
                "new_hand": {"dealer": k % 4, "trump_card": deck[k % 40]},
                "names": {"players": [f"p{k}", "b", "c", "d"]},
            }[kind]
            real = {"correct": "correct_play", "seat": "correct_play", "confirm": "confirm_play"}.get(kind, kind)
            try:
                ref.submit(real, payload, "t", snapshot=b"j" if kind == "play" and k % 2 else None)
            except EventRejected:
                pass
        again = replay(ref.store.events(ref.live_id))
        assert again.record == ref.view().record and again.meta == ref.view().meta
        live, rebuilt = dict(ref.state()), build_state(again, ref._info(ref.live_id), ref.status)
        live.pop("server_time"), rebuilt.pop("server_time")
        assert live == rebuilt
        assert extras(StateOut.model_validate(ref.state())) == []

    check()


def test_old_matches_keep_only_their_renuncia_snapshots(ref):
    feed = LiveFeed(ref)
    feed.on_event(TrumpSeen("5H", 3, 0.0, 0.9))
    for i, c in enumerate(RENUNCIA_PLAYS):
        feed.on_event(PlayEvent(c, None, float(i), 0.95, snapshot_jpeg=f"s{i}".encode()))
    old = ref.live_id
    assert len(ref.store.snapshot_ids(old)) == 6
    ref.start_match("referee")
    assert ref.prune_snapshots(keep_matches=1) == 4
    kept = sorted(ref.store.snapshot(i) for i in ref.store.snapshot_ids(old))
    assert kept == [b"s1", b"s5"]  # 2D (the offence) and 3S (the proof)
    r = ref.match_state(old)["renuncias"][0]
    assert all(u is not None for u in r["snapshots"])
