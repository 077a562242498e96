"""Live sources: latest-frame grabbing, corrupt frames, reconnect with backoff.

The device is a fake fed by the test one read at a time through a queue, so
every interleaving is decided by the test, not by thread timing.
"""

from __future__ import annotations

import itertools
import queue
import sys
import threading
import time
import types

import numpy as np
import pytest

from sueca.hardware import Backoff, SourceError, SourceUnavailable, open_source
from sueca.hardware.live import LiveSource

WAIT = 5.0  # generous bound for a thread to react; tests never sleep this long when passing


def image(k: int, shape=(6, 8, 3)) -> np.ndarray:
    return np.full(shape, k, np.uint8)


class FakeDevice:
    """Each ``read()`` takes the next scripted result the test puts in ``feed``."""

    all: list["FakeDevice"] = []

    def __init__(self) -> None:
        self.feed: queue.Queue = queue.Queue()
        self.released = threading.Event()
        self.unplugged = threading.Event()  # set by the test's teardown: reads end
        FakeDevice.all.append(self)

    def read(self):
        deadline = time.monotonic() + WAIT
        while True:
            try:
                item = self.feed.get(timeout=0.005)
                break
            except queue.Empty:
                if self.unplugged.is_set() or time.monotonic() > deadline:
                    return False, None
        if isinstance(item, Exception):
            raise item
        if isinstance(item, tuple):
            return item
        return True, item

    def release(self) -> None:
        self.released.set()


class Opener:
    """Opens the scripted results in order: a device, or an exception to raise."""

    def __init__(self, *results) -> None:
        self.results = list(results)
        self.calls = 0

    def __call__(self):
        self.calls += 1
        result = self.results.pop(0) if self.results else OSError("no more devices")
        if isinstance(result, Exception):
            raise result
        return result


class Recorder:
    """Stands in for backoff sleeping: records the delays, waits for nothing."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@pytest.fixture(autouse=True)
def unplug_fake_devices():
    """A real camera returns from ``read()`` within a frame; so must the fakes."""
    yield
    for device in FakeDevice.all:
        device.unplugged.set()
    FakeDevice.all.clear()


def close(source) -> None:
    for device in FakeDevice.all:
        device.unplugged.set()
    source.close()


def ticking_clock(step: float = 0.01):
    counter = itertools.count()
    return lambda: next(counter) * step


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.002)


def ident(frame) -> int:
    return int(frame.image[0, 0, 0])


def test_stale_frames_are_dropped_and_the_latest_is_delivered():
    device = FakeDevice()
    source = LiveSource("fake", Opener(device), sleep=Recorder())
    try:
        for k in range(1, 6):
            device.feed.put(image(k))
        wait_until(lambda: source.status.dropped == 4, "four stale frames")
        frame = source.read(timeout=WAIT)
        assert ident(frame) == 5 and frame.index == 4
        assert source.read(timeout=0.01) is None  # nothing new: nothing invented
        device.feed.put(image(6))
        frame = source.read(timeout=WAIT)
        assert ident(frame) == 6 and frame.index == 5
        status = source.status
        assert status.connected and status.frames == 2 and status.dropped == 4
    finally:
        close(source)
    assert device.released.is_set()


def test_reconnects_with_exponential_backoff_and_keeps_time_monotonic():
    first, second = FakeDevice(), FakeDevice()
    opener = Opener(OSError("no camera"), OSError("still no camera"), first,
                    OSError("gone"), second)
    sleep = Recorder()
    source = LiveSource("fake", opener, backoff=Backoff(initial=0.1, factor=2.0, maximum=0.15),
                        sleep=sleep, clock=ticking_clock())
    try:
        frames = []
        first.feed.put(image(1))
        frames.append(source.read(timeout=WAIT))
        first.feed.put(image(2))
        frames.append(source.read(timeout=WAIT))
        first.feed.put((False, None))  # the camera vanished
        wait_until(lambda: first.released.is_set(), "the lost device to be released")
        second.feed.put(image(3))
        frames.append(source.read(timeout=WAIT))
        second.feed.put(image(4))
        frames.append(source.read(timeout=WAIT))

        assert [ident(f) for f in frames] == [1, 2, 3, 4]
        assert [f.index for f in frames] == [0, 1, 2, 3]
        times = [f.t for f in frames]
        assert all(b > a for a, b in zip(times, times[1:]))
        # Backoff grows while failing, is capped, and starts over after good frames.
        assert sleep.delays == [0.1, 0.15, 0.1, 0.15]
        status = source.status
        assert status.reconnects == 2 and status.connected
        assert "gone" in status.last_error
        assert opener.calls == 5
    finally:
        close(source)


def test_corrupt_frames_are_counted_never_delivered():
    device = FakeDevice()
    source = LiveSource("fake", Opener(device), sleep=Recorder(), max_bad=6)
    try:
        device.feed.put(image(1))
        assert ident(source.read(timeout=WAIT)) == 1
        for bad in [(True, None), image(0), image(7, shape=(3, 8, 3)),
                    np.full((6, 8), 9, np.uint8), np.full((6, 8, 3), 9, np.float32)]:
            device.feed.put(bad)
        wait_until(lambda: source.status.corrupt == 5, "five corrupt frames")
        device.feed.put(image(2))
        frame = source.read(timeout=WAIT)
        # Six bad frames in a row would have reset the device; five did not.
        assert ident(frame) == 2
        status = source.status
        assert status.corrupt == 5 and status.reconnects == 0 and status.connected
        assert "corrupt" in status.last_error
    finally:
        close(source)


def test_too_many_corrupt_frames_in_a_row_reopen_the_device():
    first, second = FakeDevice(), FakeDevice()
    opener = Opener(first, second)
    sleep = Recorder()
    source = LiveSource("fake", opener, max_bad=2, backoff=Backoff(initial=0.2), sleep=sleep)
    try:
        first.feed.put(image(0))
        first.feed.put(image(0))
        second.feed.put(image(5))
        frame = source.read(timeout=WAIT)
        assert ident(frame) == 5 and frame.index == 0
        assert first.released.is_set() and opener.calls == 2
        assert sleep.delays == [0.2]
        assert source.status.reconnects == 1 and source.status.corrupt == 2
    finally:
        close(source)


def test_a_device_that_raises_on_read_is_reopened():
    first, second = FakeDevice(), FakeDevice()
    source = LiveSource("fake", Opener(first, second), sleep=Recorder())
    try:
        first.feed.put(image(1))
        assert ident(source.read(timeout=WAIT)) == 1
        first.feed.put(RuntimeError("USB unplugged"))
        second.feed.put(image(2))
        frame = source.read(timeout=WAIT)
        assert ident(frame) == 2 and frame.index == 1
        assert source.status.reconnects == 1
    finally:
        close(source)


def test_gives_up_after_the_configured_attempts_and_iteration_ends():
    sleep = Recorder()
    opener = Opener()  # always fails
    source = LiveSource("fake", opener, backoff=Backoff(0.5, 3.0, 4.0, attempts=3), sleep=sleep)
    assert list(source) == []
    status = source.status
    assert status.finished and not status.connected
    assert "3" in status.last_error and "gave up" in status.last_error
    assert sleep.delays == [0.5, 1.5, 4.0]
    assert opener.calls == 4  # the first try, then three reconnection attempts


def test_close_interrupts_a_long_backoff_wait():
    source = LiveSource("fake", Opener(), backoff=Backoff(initial=60.0))
    started = time.monotonic()
    close(source)
    assert time.monotonic() - started < WAIT
    assert not source._thread.is_alive()
    assert source.read(timeout=0.01) is None and source.finished


def test_a_permanent_failure_is_raised_at_once():
    with pytest.raises(SourceUnavailable, match="library missing"):
        LiveSource("fake", Opener(SourceUnavailable("library missing")))


def test_open_source_routes_live_specs_to_an_injected_opener():
    for spec in ["0", "/dev/video2", "rtsp://cam.local/stream", "tcp://raspberrypi:8888"]:
        device = FakeDevice()
        with open_source(spec, opener=Opener(device)) as source:
            assert isinstance(source, LiveSource)
            device.feed.put(image(3))
            assert ident(source.read(timeout=WAIT)) == 3
            device.unplugged.set()  # lets the grab thread's read return
        assert device.released.is_set()


def test_status_converts_to_the_pipeline_event():
    device = FakeDevice()
    with LiveSource("fake", Opener(device), sleep=Recorder()) as source:
        device.feed.put(image(1))
        source.read(timeout=WAIT)
        device.unplugged.set()
        event = source.status.to_event(model="m.onnx", t=1.5)
    assert (event.connected, event.frames, event.model, event.t) == (True, 1, "m.onnx", 1.5)


def test_missing_picamera2_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes the import fail
    with pytest.raises(SourceUnavailable) as info:
        open_source("picamera")
    message = str(info.value)
    assert "install Raspberry Pi OS's apt package `python3-picamera2`" in message
    assert "make the venv with `--system-site-packages`" in message


class FakePicamera2:
    """Just enough of picamera2's API; hands out 4-channel XRGB frames."""

    instances: list["FakePicamera2"] = []

    def __init__(self, number: int) -> None:
        self.number, self.config, self.started, self.closed = number, None, False, False
        self.count = 0
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main, buffer_count, controls):
        return {"main": main, "buffer_count": buffer_count, "controls": controls}

    def configure(self, config) -> None:
        self.config = config

    def start(self) -> None:
        self.started = True

    def capture_array(self, stream: str) -> np.ndarray:
        self.count += 1
        if self.count > 3:
            time.sleep(0.005)  # a camera paces itself; keeps this thread from spinning
        w, h = self.config["main"]["size"]
        return np.full((h, w, 4), self.count, np.uint8)

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True


def test_picamera_source_with_a_stand_in_picamera2(monkeypatch):
    FakePicamera2.instances.clear()
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    with open_source("picamera:1", size=(64, 48), fps=10) as source:
        frame = source.read(timeout=WAIT)
    camera = FakePicamera2.instances[0]
    assert camera.number == 1 and camera.closed
    assert camera.config["main"] == {"size": (64, 48), "format": "RGB888"}
    assert camera.config["controls"] == {"FrameRate": 10.0}
    assert frame.image.shape == (48, 64, 3) and frame.image.flags.c_contiguous


def test_picamera_focus_option_fixes_the_lens(monkeypatch):
    FakePicamera2.instances.clear()
    monkeypatch.setitem(sys.modules, "picamera2", types.SimpleNamespace(Picamera2=FakePicamera2))
    with open_source("picamera?focus=0.9", size=(32, 24)) as source:
        assert source.read(timeout=WAIT).size == (32, 24)
    camera = FakePicamera2.instances[0]
    assert camera.number == 0
    assert camera.config["controls"] == {"AfMode": 0, "LensPosition": 0.9}
    for bad in ["picamera?zoom=2", "picamera?focus=far", "picamera:one"]:
        with pytest.raises(SourceError):
            open_source(bad)


def test_frames_with_idle_yields_none_while_the_camera_is_away():
    first, second = FakeDevice(), FakeDevice()
    opener = Opener(first, OSError("unplugged"), second)
    gate = threading.Event()  # the backoff waits until the test has seen the outage
    source = LiveSource("fake", opener, sleep=lambda seconds: gate.wait(WAIT),
                        clock=ticking_clock())
    try:
        stream = source.frames(idle=0.01)
        first.feed.put(image(1))
        assert ident(next(stream)) == 1
        first.feed.put((False, None))
        # While nothing comes, the loop gets control back (None) and sees the state.
        deadline = time.monotonic() + WAIT
        while not (next(stream) is None and not source.status.connected):
            assert time.monotonic() < deadline, "the outage never showed"
        assert "stopped delivering" in source.status.last_error
        gate.set()
        second.feed.put(image(2))
        item = next(stream)
        while item is None:
            assert time.monotonic() < deadline + WAIT, "no frame after the reconnect"
            item = next(stream)
        assert ident(item) == 2 and item.index == 1
    finally:
        close(source)
    assert list(source.frames(idle=0.01)) == []  # a closed source ends the stream
