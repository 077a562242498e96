"""Close looks on video (``sueca.vision.close_look``): when an unread box is looked at again, and what is kept."""

import numpy as np

from sueca.vision.close_look import CloseLooks
from sueca.vision.detections import UNREADABLE, CardDetections, outline_boxes


def quad(cx, cy, w=70, h=100):
    return np.float32([[cx - w / 2, cy - h / 2], [cx + w / 2, cy - h / 2], [cx + w / 2, cy + h / 2],
                       [cx - w / 2, cy + h / 2]])


def dets(*cards):
    """cards: (code, cx, cy)."""
    if not cards:
        return CardDetections.empty()
    corners = np.stack([quad(x, y) for _, x, y in cards])
    return CardDetections(outline_boxes(corners, (1280, 960)), tuple(c for c, *_ in cards),
                          np.float32([0.99 if c else 0.4 for c, *_ in cards]), np.full(len(cards), 0.6, np.float32),
                          corners, np.ones(len(cards), bool))


def table(*white_at):
    frame = np.full((960, 1280, 3), 60, np.uint8)
    for x, y in white_at:
        frame[y - 50:y + 50, x - 35:x + 35] = 235
    return frame


class Reader:
    """Reads a window as a still image would: ``cards`` (code, cx, cy) in frame pixels."""

    def __init__(self, *cards):
        self.cards, self.windows = cards, []

    def __call__(self, part, origin):
        self.windows.append(origin)
        x0, y0 = origin
        inside = [(c, x - x0, y - y0) for c, x, y in self.cards
                  if 0 <= x - x0 < part.shape[1] and 0 <= y - y0 < part.shape[0]]
        return dets(*inside)


def run(looks, frame, d, refused, reader):
    """One frame; the fake reader is told where the window it reads lies."""
    origin = []
    window = CloseLooks.window.__get__(looks)
    looks.window = lambda rbox, size: origin.append(window(rbox, size)[:2]) or window(rbox, size)
    return looks.step(frame, d, refused, lambda part: reader(part, origin[-1]))


def test_an_unread_box_is_read_after_lying_unchanged_then_keeps_its_reading():
    looks, frame = CloseLooks(after=3, again=10), table((640, 500), (500, 480))
    reader = Reader(("JH", 640, 500), ("6H", 500, 480))
    seen = [run(looks, frame, dets(("6H", 500, 480), ("", 640, 500)), np.zeros((0, 4, 2)), reader) for _ in range(6)]
    assert [d.codes for d in seen[:3]] == [("6H", UNREADABLE)] * 3      # not yet: it must lie there first
    assert all(d.codes == ("6H", "JH") for d in seen[3:])                 # read once, then kept
    assert looks.looks == 1 and looks.read == 1 and len(reader.windows) == 1
    x0, y0 = reader.windows[0]
    assert x0 <= 640 - 35 and 640 + 35 <= x0 + 768 and y0 <= 450 and 550 <= y0 + 576  # the box inside


def test_a_refused_box_read_by_a_close_look_is_added():
    looks, frame = CloseLooks(after=2), table((640, 500))
    reader = Reader(("JH", 640, 505))                    # the refused box sits a little off its card
    out = [run(looks, frame, dets(), quad(640, 470)[None], reader) for _ in range(4)]
    assert out[0].codes == () and out[-1].codes == ("JH",)
    assert abs(float(out[-1].corners[0].mean(axis=0)[1]) - 505) < 1   # the card's own outline


def test_a_card_already_read_elsewhere_is_not_given_twice():
    looks, frame = CloseLooks(after=1), table((640, 500), (500, 480))
    reader = Reader(("6H", 640, 500))                    # the close look reads the box as the card read
    for _ in range(3):
        d = run(looks, frame, dets(("6H", 500, 480), ("", 640, 500)), np.zeros((0, 4, 2)), reader)
    assert d.codes == ("6H", UNREADABLE)


def test_a_box_never_read_is_looked_at_ever_less_often():
    looks, frame = CloseLooks(after=2, again=4), table((640, 500))
    reader = Reader()                                    # a napkin: nothing to read
    for _ in range(40):
        run(looks, frame, dets(("", 640, 500)), np.zeros((0, 4, 2)), reader)
    # looks at ages 2, 6, 14, 30: each wait twice the last
    assert looks.looks == 4 and looks.read == 0


def test_a_change_on_the_box_starts_its_wait_again():
    looks = CloseLooks(after=3)
    reader = Reader(("JH", 640, 500))
    for k in range(6):  # something moves over the box every other frame: never unchanged long enough
        frame = table((640, 500)) if k % 2 else table((640, 500), (650, 510))
        d = run(looks, frame, dets(("", 640, 500)), np.zeros((0, 4, 2)), reader)
    assert looks.looks == 0 and d.codes == (UNREADABLE,)


def test_only_where_it_is_allowed():
    looks, frame = CloseLooks(after=1), table((640, 500), (1200, 500))
    looks.where = lambda x, y, size: abs(x - size[0] / 2) < 300     # the middle of the table only
    reader = Reader(("JH", 640, 500), ("KS", 1200, 500))
    for _ in range(4):
        d = run(looks, frame, dets(("", 640, 500), ("", 1200, 500)), np.zeros((0, 4, 2)), reader)
    assert d.codes == ("JH", UNREADABLE) and looks.looks == 1


def test_an_unread_box_read_takes_the_cards_own_outline():
    looks, frame = CloseLooks(after=1), table((640, 500))
    reader = Reader(("JH", 640, 520))                    # the box lay 20 px above the card
    for _ in range(3):
        d = run(looks, frame, dets(("", 640, 500)), np.zeros((0, 4, 2)), reader)
    assert d.codes == ("JH",) and abs(float(d.corners[0].mean(axis=0)[1]) - 520) < 1
    assert abs(float(d.xyxy[0][1]) - 470) < 1


def test_with_the_frames_times_the_wait_is_time_not_frames():
    """A camera read 4 times a second waits the 0.8 s that 8 frames are at 10 a second (3.2 frames),
    not 8 of its own frames (2 s, when the last card of a trick may be gathered already)."""
    def first_read(looks, fps):
        frame, reader = table((640, 500)), Reader(("JH", 640, 500))
        for k in range(12):
            if fps is not None:
                looks.t = 30.0 + k / fps
            if run(looks, frame, dets(("", 640, 500)), np.zeros((0, 4, 2)), reader).codes == ("JH",):
                return k
        return None

    assert first_read(CloseLooks(after=8), None) == 8       # untimed (still images): frames
    assert first_read(CloseLooks(after=8), 10.0) == 8       # 10 a second: the same
    assert first_read(CloseLooks(after=8), 4.0) == 4        # 0.8 s after it was first seen at 4 a second
    assert first_read(CloseLooks(after=8), 30.0) is None    # 30 a second: 0.8 s is 24 frames
