"""The pipeline's events through LiveFeed into the committed match."""

from sueca.server.feed import LiveFeed
from sueca.server.service import Referee
from sueca.server.store import Store
from sueca.vision.events import PlayCorrected, PlayEvent, TrumpSeen


def feed_with_hand(tmp_path):
    feed = LiveFeed(Referee(Store(str(tmp_path / "s.db"))))
    assert feed.on_event(TrumpSeen("5H", seat=3, t=0.0, confidence=0.9)) == "new_hand"
    assert feed.on_event(PlayEvent("AS", seat=0, t=1.0, confidence=0.97)) == "play"
    return feed


def test_a_late_reading_corrects_the_uncertain_play(tmp_path):
    feed = feed_with_hand(tmp_path)
    assert feed.on_event(PlayEvent("3S", seat=1, t=2.25, confidence=0.4, uncertain=True)) == "play"
    assert feed.on_event(PlayCorrected("2S", previous="3S", play_t=2.25, t=3.0, confidence=0.95)) == "correct_play"
    view = feed.referee.view()
    assert [p.card.code for p in view.record.hands[0].plays] == ["AS", "2S"]
    assert view.meta[0][1].uncertain is False
    # the same reading again changes nothing
    assert feed.on_event(PlayCorrected("2S", previous="3S", play_t=2.25, t=3.5, confidence=0.95)) == "ignored"


def test_a_correction_for_no_known_play_is_rejected_and_loses_nothing(tmp_path):
    feed = feed_with_hand(tmp_path)
    assert feed.on_event(PlayCorrected("2S", previous="", play_t=9.0, t=9.5, confidence=0.9)) == "rejected"
    # an impossible card (already played) is refused by the engine, not written
    assert feed.on_event(PlayCorrected("AS", previous="", play_t=1.0, t=9.5, confidence=0.9)) == "ignored"
    feed.on_event(PlayEvent("2S", seat=1, t=2.0, confidence=0.4, uncertain=True))
    assert feed.on_event(PlayCorrected("AS", previous="2S", play_t=2.0, t=3.0, confidence=0.9)) == "rejected"
    view = feed.referee.view()
    assert [p.card.code for p in view.record.hands[0].plays] == ["AS", "2S"]
    assert len(view.rejected) == 2


def test_an_unread_play_is_refused_with_its_weak_reading_for_the_referee(tmp_path):
    feed = feed_with_hand(tmp_path)
    assert feed.on_event(PlayEvent("", seat=1, t=2.0, confidence=0.0, uncertain=True, hint="7H")) == "rejected"
    assert feed.on_event(PlayEvent("", seat=1, t=2.5, confidence=0.0, uncertain=True)) == "rejected"
    view = feed.referee.view()
    assert [p.card.code for p in view.record.hands[0].plays] == ["AS"]  # a weak reading is no play
    assert view.rejected[-2]["hint"] == "7H" and "hint" not in view.rejected[-1]
    assert all(r["why"] == "unreadable" and "nobody could read" in r["reason"] for r in view.rejected[-2:])


def test_a_play_nobody_saw_is_refused_as_unseen_for_its_seat(tmp_path):
    feed = feed_with_hand(tmp_path)
    assert feed.on_event(PlayEvent("", seat=1, t=2.0, confidence=0.0, uncertain=True, unseen=True)) == "rejected"
    r = feed.referee.view().rejected[-1]
    assert (r["why"], r["seat"]) == ("unseen", 1) and "nobody saw" in r["reason"]
