"""The Pi camera's white balance: a named mode, fixed gains, or the automatic one held once settled."""

from __future__ import annotations

import sys
import time
import types

import numpy as np
import pytest

from sueca.hardware.picamera import PicameraSpec, lock_white_balance, parse_picamera_spec
from sueca.hardware.sources import SourceError, open_source

WAIT = 5.0


class Camera:
    """Just enough of picamera2's API, with an automatic balance that settles over frames."""

    instances: list["Camera"] = []
    settle = [(1.2, 2.4), (1.5, 2.0), (1.7, 1.8), (1.75, 1.72), (1.76, 1.71), (1.76, 1.71), (1.76, 1.71),
              (1.76, 1.71), (1.9, 1.5)]

    def __init__(self, number: int) -> None:
        self.number, self.config, self.set, self.meta = number, None, [], 0
        self.closed = False
        Camera.instances.append(self)

    def create_video_configuration(self, main, buffer_count, controls):
        return {"main": main, "buffer_count": buffer_count, "controls": dict(controls)}

    def configure(self, config) -> None:
        self.config = config

    def start(self) -> None:
        pass

    def capture_metadata(self) -> dict:
        self.meta += 1
        return {"ColourGains": self.settle[min(self.meta, len(self.settle)) - 1]}

    def set_controls(self, controls: dict) -> None:
        self.set.append(controls)

    def capture_array(self, stream: str) -> np.ndarray:
        time.sleep(0.005)
        w, h = self.config["main"]["size"]
        return np.full((h, w, 3), 90, np.uint8)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def camera(monkeypatch):
    Camera.instances.clear()
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=Camera))
    modes = types.SimpleNamespace(Auto=0, Incandescent=1, Tungsten=2, Fluorescent=3, Indoor=4, Daylight=5, Cloudy=6)
    monkeypatch.setitem(sys.modules, "libcamera", types.SimpleNamespace(controls=types.SimpleNamespace(AwbModeEnum=modes)))
    return Camera


def opened(spec: str) -> Camera:
    with open_source(spec, size=(32, 24)) as source:
        assert source.read(timeout=WAIT).size == (32, 24)
    return Camera.instances[-1]


def test_the_spec_parses_modes_lock_and_gains():
    assert parse_picamera_spec("picamera") == PicameraSpec(0, None, None)
    assert parse_picamera_spec("picamera:2?awb=tungsten&focus=1").awb == "tungsten"
    assert parse_picamera_spec("picamera?focus=1&awb=lock") == PicameraSpec(0, 1.0, "lock")
    assert parse_picamera_spec("picamera?awb=1.8,1.5").awb == (1.8, 1.5)


@pytest.mark.parametrize("bad", ["picamera?awb=sunny", "picamera?awb=1.8", "picamera?awb=0,1.5",
                                 "picamera?awb=1.8,x", "picamera?awb=", "picamera?awb=40,1"])
def test_a_bad_white_balance_is_refused_naming_it(bad):
    with pytest.raises(SourceError, match="white balance"):
        parse_picamera_spec(bad)


def test_a_named_mode_starts_the_camera_with_it(camera):
    cam = opened("picamera?awb=fluorescent")
    assert cam.config["controls"] == {"AwbEnable": True, "AwbMode": 3}
    assert cam.set == [] and cam.closed


def test_fixed_gains_turn_the_automatic_balance_off(camera):
    cam = opened("picamera?awb=1.8,1.5")
    assert cam.config["controls"] == {"AwbEnable": False, "ColourGains": (1.8, 1.5)}


def test_lock_holds_the_balance_where_it_settled(camera):
    cam = opened("picamera?awb=lock&focus=0.9")
    assert cam.config["controls"] == {"AfMode": 0, "LensPosition": 0.9}  # automatic until settled
    # settled at (1.76, 1.71): three frames in a row within 1%; the later swing is never seen
    assert cam.set == [{"AwbEnable": False, "ColourGains": (1.76, 1.71)}]
    assert cam.meta == 7


def test_lock_gives_up_waiting_and_holds_the_last_gains():
    class Drifting(Camera):
        def capture_metadata(self):
            self.meta += 1
            return {"ColourGains": (1.0 + 0.1 * self.meta, 2.0)}

    cam = Drifting(0)
    assert lock_white_balance(cam, frames=5) == pytest.approx((1.5, 2.0))
    assert cam.meta == 5 and cam.set == [{"AwbEnable": False, "ColourGains": (1.5, 2.0)}]


def test_lock_leaves_a_camera_without_colour_gains_automatic(caplog):
    class Mono(Camera):
        def capture_metadata(self):
            return {}

    cam = Mono(0)
    assert lock_white_balance(cam) is None and cam.set == []
    assert "no colour gains" in caplog.text


def test_lock_holds_the_last_gains_reported_when_the_camera_stops_reporting():
    class Fading(Camera):
        def capture_metadata(self):
            self.meta += 1
            return {"ColourGains": (1.4, 1.9)} if self.meta < 3 else {}

    cam = Fading(0)
    assert lock_white_balance(cam) == (1.4, 1.9)
    assert cam.set == [{"AwbEnable": False, "ColourGains": (1.4, 1.9)}]
