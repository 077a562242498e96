"""Table geometry: proposals, playing direction, sectors, regions, JSON."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sueca.vision.geometry import Calibration, CalibrationError, Region, edges

EDGE_POINTS = {"bottom": (640.0, 960.0), "right": (1280.0, 480.0), "top": (640.0, 0.0),
               "left": (0.0, 480.0)}


@pytest.mark.parametrize("seat0", ["bottom", "right", "top", "left"])
@pytest.mark.parametrize("direction", ["ccw", "cw"])
def test_propose_puts_seat0_at_the_chosen_edge(seat0, direction):
    cal = Calibration.propose(1280, 960, seat0_edge=seat0, direction=direction)
    assert cal.image_size == (1280, 960) and cal.center == (640.0, 480.0)
    assert cal.seats[0] == EDGE_POINTS[seat0]
    assert cal.seats == tuple(EDGE_POINTS[e] for e in edges(direction, seat0))
    assert cal.direction == direction
    # Partners sit opposite each other.
    assert cal.seats[2] == (1280 - cal.seats[0][0], 960 - cal.seats[0][1])


def right_hand(seat_point, centre):
    """Image-space vector pointing to the right hand of a player at ``seat_point``
    who faces the centre, worked out from first principles: facing straight up
    the image (0, -1), the right hand points along +x."""
    fx, fy = centre[0] - seat_point[0], centre[1] - seat_point[1]
    return -fy, fx


@pytest.mark.parametrize("seat0", ["bottom", "right", "top", "left"])
def test_counter_clockwise_means_the_right_hand_neighbour_plays_next(seat0):
    for direction, sign in [("ccw", 1), ("cw", -1)]:
        cal = Calibration.propose(800, 600, seat0_edge=seat0, direction=direction)
        for s in range(4):
            here, nxt = cal.seats[s], cal.seats[(s + 1) % 4]
            rx, ry = right_hand(here, cal.center)
            towards = (nxt[0] - here[0]) * rx + (nxt[1] - here[1]) * ry
            assert sign * towards > 0, (direction, s)


def test_bottom_seat0_ccw_goes_to_the_right_then_top():
    cal = Calibration.propose(1280, 960)
    assert edges() == ("bottom", "right", "top", "left")
    assert cal.seat_of((1200, 480))[0] == 1  # the right side of the image
    assert cal.seat_of((640, 40))[0] == 2
    assert cal.seat_of((40, 480))[0] == 3


def test_seat_of_sectors_and_margins():
    cal = Calibration.propose(1000, 1000)
    assert cal.seat_of((500, 900)) == (0, 45.0)
    seat, margin = cal.seat_of((700, 703))  # just below the bottom-right diagonal
    assert seat == 0 and 0 < margin < 1
    seat, margin = cal.seat_of((703, 700))  # just above it
    assert seat == 1 and 0 < margin < 1
    assert cal.seat_of((500, 500))[1] == 0.0  # the centre has no direction
    seats, margins = cal.seats_of(np.array([[500, 900], [900, 500], [500, 100], [100, 500]]))
    assert seats.tolist() == [0, 1, 2, 3] and np.allclose(margins, 45)


def test_frames_of_another_size_are_scaled():
    cal = Calibration.propose(640, 480)
    big = (1280, 960)
    for point in [(320, 400), (600, 250), (100, 100), (330, 250)]:
        doubled = (point[0] * 2, point[1] * 2)
        assert cal.seat_of(doubled, frame_size=big) == pytest.approx(cal.seat_of(point))
        assert cal.region_of(doubled, frame_size=big) == cal.region_of(point)
        assert cal.is_in_play_area(doubled, big) == cal.is_in_play_area(point)
    scaled = cal.scaled(big)
    assert scaled.image_size == big and scaled.seats[1] == (1280.0, 480.0)
    assert cal.scaled((640, 480)) is cal


def test_play_area_and_regions():
    cal = Calibration.propose(1280, 960, play_area=0.5)
    assert cal.play_radius == 240.0  # half the nearest seat distance (480)
    assert cal.is_in_play_area((640, 480 + 239))
    assert not cal.is_in_play_area((640, 480 + 241))
    assert cal.region_of((660, 500)) == Region("middle", 0, pytest.approx(cal.seat_of((660, 500))[1]))
    assert str(cal.region_of((640, 900))) == "seat edge 0"
    assert str(cal.region_of((1100, 480))) == "seat edge 1"
    assert str(cal.region_of((1300, 480))) == "outside"  # off the image
    assert str(cal.region_of((640, -5))) == "outside"
    inner = Calibration((1280, 960), (640, 480), ((640, 800), (1000, 480), (640, 160),
                                                   (280, 480)))
    assert str(inner.region_of((640, 780))) == "seat edge 0"
    assert str(inner.region_of((640, 850))) == "outside"  # beyond the table's edge
    assert inner.region_of((640, 850)).seat == 0


def random_calibration(draw_angles, radii, centre):
    seats = tuple((centre[0] + r * math.cos(a), centre[1] - r * math.sin(a))
                  for a, r in zip(draw_angles, radii))
    return Calibration((2000, 2000), centre, seats)


@st.composite
def any_calibration(draw):
    start = draw(st.floats(0, 2 * math.pi))
    # Neighbouring seats less than 180 degrees apart, as round any real table.
    gaps = draw(st.lists(st.floats(0.6, 1.5), min_size=4, max_size=4))
    radii = draw(st.lists(st.floats(50, 600), min_size=4, max_size=4))
    centre = (draw(st.floats(700, 1300)), draw(st.floats(700, 1300)))
    sign = draw(st.sampled_from([1, -1]))
    total = sum(gaps)
    angles = [start + sign * 2 * math.pi * sum(gaps[:k]) / total for k in range(4)]
    return random_calibration(angles, radii, centre)


def screen_angle(cal, point):
    return math.atan2(-(point[1] - cal.center[1]), point[0] - cal.center[0])


def gap(a, b):
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi)


@settings(max_examples=200, deadline=None)
@given(cal=any_calibration(), angle=st.floats(0, 2 * math.pi), r=st.floats(5, 900))
def test_a_point_belongs_to_the_nearer_of_the_two_seats_around_it(cal, angle, r):
    point = (cal.center[0] + r * math.cos(angle), cal.center[1] - r * math.sin(angle))
    seat, margin = cal.seat_of(point)
    theta = screen_angle(cal, point)
    directions = [screen_angle(cal, p) for p in cal.seats]
    # The two seats whose directions bracket the point, found by brute force.
    order = sorted(range(4), key=lambda k: directions[k] % (2 * math.pi))
    before = max((k for k in order if directions[k] % (2 * math.pi) <= theta % (2 * math.pi)),
                 key=lambda k: directions[k] % (2 * math.pi), default=order[-1])
    after = order[(order.index(before) + 1) % 4]
    near = min((before, after), key=lambda k: gap(theta, directions[k]))
    far = after if near == before else before
    if abs(gap(theta, directions[before]) - gap(theta, directions[after])) > 1e-6:
        assert seat == near
        # The margin is the angular distance to the nearer sector boundary: the
        # halfway line towards ``far`` or the one on the other side of ``near``.
        half = (gap(theta, directions[far]) - gap(theta, directions[near])) / 2
        other = order[(order.index(near) + (1 if far == before else -1)) % 4]
        beyond = gap(theta, directions[near]) + gap(directions[near], directions[other]) / 2
        assert margin == pytest.approx(math.degrees(min(half, beyond)), abs=1e-6)
    else:
        assert seat in (before, after) and margin == pytest.approx(0, abs=1e-4)


@settings(max_examples=100, deadline=None)
@given(cal=any_calibration())
def test_each_seat_point_lies_in_its_own_sector_and_json_round_trips(cal):
    for k, point in enumerate(cal.seats):
        assert cal.seat_of(point)[0] == k
    again = Calibration.from_json(json.loads(json.dumps(cal.to_json())))
    assert again == cal and again.direction == cal.direction


def test_save_and_load(tmp_path):
    cal = Calibration.propose(1280, 960, "left", "cw")
    path = tmp_path / "calibration.json"
    cal.save(path)
    obj = json.loads(path.read_text())
    assert obj["image_size"] == [1280, 960] and obj["seats"][0] == [0.0, 480.0]
    assert Calibration.load(path) == cal
    # The spec's minimal form (no play_area) loads with the default.
    del obj["play_area"]
    assert Calibration.from_json(obj) == cal


GOOD = {"image_size": [1280, 960], "center": [640, 480],
        "seats": [[640, 960], [1280, 480], [640, 0], [0, 480]]}


@pytest.mark.parametrize("change, field", [
    ({"seats": None}, "seats"),
    ({"seats": [[640, 960], [1280, 480], [640, 0]]}, "seats"),
    ({"seats": [[640, 960], [1280, 480], ["a", 0], [0, 480]]}, "seats[2]"),
    ({"seats": [[640, 960], [1280, 480], [640, 0], [0, float("nan")]]}, "seats[3]"),
    ({"seats": [[640, 960], [640, 0], [1280, 480], [0, 480]]}, "playing order"),
    ({"seats": [[640, 960], [640, 480], [640, 0], [0, 480]]}, "seats[1]"),
    ({"image_size": [1280, -1]}, "image_size"),
    ({"image_size": [1280.5, 960]}, "image_size"),
    ({"center": [2000, 480]}, "center"),
    ({"center": [640]}, "center"),
    ({"play_area": 0}, "play_area"),
    ({"play_area": "big"}, "play_area"),
])
def test_validation_errors_name_the_field(change, field):
    obj = {**GOOD, **change}
    if change.get("seats", 0) is None:
        del obj["seats"]
    with pytest.raises(CalibrationError) as info:
        Calibration.from_json(obj, where="cal.json")
    assert field in str(info.value) and str(info.value).startswith("cal.json: ")


def test_load_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CalibrationError, match="bad.json.*JSON"):
        Calibration.load(bad)
    with pytest.raises(CalibrationError, match="missing.json"):
        Calibration.load(tmp_path / "missing.json")
    with pytest.raises(CalibrationError, match="object"):
        Calibration.from_json([1, 2])
    with pytest.raises(CalibrationError, match="seat0_edge"):
        Calibration.propose(100, 100, seat0_edge="north")


def test_draw_marks_the_preview_without_touching_the_frame():
    frame = np.full((480, 640, 3), (30, 90, 30), np.uint8)
    original = frame.copy()
    ccw = Calibration.propose(1280, 960).draw(frame)  # calibrated at another size
    cw = Calibration.propose(1280, 960, direction="cw").draw(frame)
    assert np.array_equal(frame, original)
    assert ccw.shape == frame.shape and ccw.dtype == np.uint8
    changed = np.any(ccw != frame, axis=2)
    assert changed[240, 320]  # the centre marker, scaled to this frame
    # The sector boundaries run at 45 degrees from the centre to the image edges.
    assert changed[0:3, 77:84].any() and changed[477:480, 557:564].any()
    assert not changed[0:3, 0:40].any()
    assert changed[200:280, 580:640].any()  # seat 1's label, right side
    assert not changed[65:75, 245:255].any()  # in seat 2's sector, away from the drawings
    assert not np.array_equal(ccw, cw)  # the arrows show the direction


@settings(max_examples=50, deadline=None)
@given(cal=any_calibration())
def test_saved_file_loads_back_exactly(cal, tmp_path_factory):
    path = tmp_path_factory.mktemp("cal") / "c.json"
    cal.save(path)
    assert Calibration.load(path) == cal
