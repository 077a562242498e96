"""A real network stream through OpenCV: a local HTTP server plays a video.

When the video ends the "camera" has stopped delivering: the source must
reconnect by itself and keep indices and times increasing.
"""

from __future__ import annotations

import functools
import http.server
import socket
import threading

import cv2
import numpy as np
import pytest

from sueca.hardware import Backoff, open_source
from sueca.hardware.live import LiveSource


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def served_video(tmp_path):
    writer = cv2.VideoWriter(str(tmp_path / "table.mkv"), cv2.CAP_FFMPEG,
                             cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for k in range(10):
        writer.write(np.full((48, 64, 3), 10 + 12 * k, np.uint8))
    writer.release()
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/table.mkv"
    server.shutdown()
    server.server_close()


def test_stream_that_ends_is_reconnected_with_monotonic_frames(served_video):
    with open_source(served_video, backoff=Backoff(initial=0.01)) as source:
        assert isinstance(source, LiveSource)
        frames = []
        while not frames or frames[-1].index < 25:  # 10 frames per pass: two reconnects
            frame = source.read(timeout=5.0)
            assert frame is not None, source.status
            frames.append(frame)
        status = source.status
    indices = [f.index for f in frames]
    times = [f.t for f in frames]
    assert indices == sorted(set(indices))
    assert all(b > a for a, b in zip(times, times[1:]))
    assert all(f.image.shape == (48, 64, 3) for f in frames)
    assert status.reconnects >= 2 and "stopped delivering" in status.last_error
    assert status.frames == len(frames)


def test_unreachable_stream_gives_up_when_told_and_says_why():
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with open_source(f"tcp://127.0.0.1:{port}", backoff=Backoff(0.01, attempts=2)) as source:
        assert list(source) == []
        status = source.status
    assert status.finished and not status.connected and status.frames == 0
    assert "gave up after 2" in status.last_error and f"127.0.0.1:{port}" in status.last_error
