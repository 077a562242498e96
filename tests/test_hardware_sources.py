"""File sources (video, folder of frames), source specs and frame checks."""

from __future__ import annotations

import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest

from sueca.hardware import Frame, SourceError, grab_frame, open_source
from sueca.hardware.files import FolderSource, VideoFileSource
from sueca.hardware.sources import Backoff, frame_problem, natural_key


def shade(k: int, shape=(48, 64, 3)) -> np.ndarray:
    """A frame whose brightness encodes ``k`` (survives lossy compression)."""
    return np.full(shape, 10 + 12 * k, np.uint8)


def level(frame: Frame) -> int:
    return round((float(frame.image.mean()) - 10) / 12)


def write_video(path: Path, count: int, fps: float = 10.0) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.CAP_FFMPEG, cv2.VideoWriter_fourcc(*"MJPG"), fps,
                             (64, 48))
    assert writer.isOpened()
    for k in range(count):
        writer.write(shade(k))
    writer.release()
    return path


class FakeTime:
    """A clock that only moves when someone sleeps on it."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_video_file_frames_in_order_with_the_files_own_times(tmp_path):
    video = write_video(tmp_path / "game.avi", 12, fps=10)
    with open_source(str(video)) as source:
        assert isinstance(source, VideoFileSource)
        frames = list(source)
        status = source.status
    assert [f.index for f in frames] == list(range(12))
    assert [level(f) for f in frames] == list(range(12))
    assert np.allclose([f.t for f in frames], [k / 10 for k in range(12)], atol=1e-6)
    assert all(f.image.shape == (48, 64, 3) and f.image.dtype == np.uint8 for f in frames)
    assert status.frames == 12 and status.finished and status.corrupt == 0


def test_video_fps_override_sets_the_times(tmp_path):
    video = write_video(tmp_path / "game.avi", 4, fps=10)
    frames = list(open_source(str(video), fps=4))
    assert [f.t for f in frames] == [0.0, 0.25, 0.5, 0.75]


def test_video_realtime_paces_frames_at_their_own_rate(tmp_path):
    video = write_video(tmp_path / "game.avi", 5, fps=10)
    fake = FakeTime()
    source = VideoFileSource(video, realtime=True, clock=fake.clock, sleep=fake.sleep)
    times = [(f.t, fake.now - 100.0) for f in source]
    # Each frame leaves when the wall clock reaches its own time, not before.
    assert [round(wall, 6) for _, wall in times] == [round(t, 6) for t, _ in times]
    assert np.allclose(fake.sleeps, [0.1] * 4)


def test_without_realtime_files_never_wait(tmp_path):
    video = write_video(tmp_path / "game.avi", 5, fps=10)
    fake = FakeTime()
    assert len(list(VideoFileSource(video, clock=fake.clock, sleep=fake.sleep))) == 5
    assert fake.sleeps == []


def test_truncated_video_ends_cleanly_with_good_frames_only(tmp_path):
    # Matroska streams without an index, like a recording cut short by a power cut.
    video = write_video(tmp_path / "game.mkv", 20, fps=10)
    data = video.read_bytes()
    video.write_bytes(data[: len(data) // 2])
    with open_source(str(video)) as source:
        frames = list(source)
    assert frames, "the first half of the file is readable"
    indices = [f.index for f in frames]
    assert indices == sorted(set(indices))
    assert all(frame_problem(f.image) is None for f in frames)
    assert [level(f) for f in frames] == indices  # each frame is the one written there


def test_not_a_video_is_a_clear_error(tmp_path):
    bogus = tmp_path / "notes.mp4"
    bogus.write_text("not a video")
    with pytest.raises(SourceError, match="notes.mp4"):
        open_source(str(bogus))


def make_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in [1, 2, 10, 3]:  # natural order: 1, 2, 3, 10
        cv2.imwrite(str(folder / f"frame{k}.png"), shade(k))
    (folder / "frame4.jpg").write_bytes(b"\xff\xd8 this is not a JPEG")  # unreadable
    cv2.imwrite(str(folder / "frame5.png"), np.zeros((48, 64, 3), np.uint8))  # decode failure
    cv2.imwrite(str(folder / "frame6.png"), shade(6, shape=(40, 64, 3)))  # wrong size
    cv2.imwrite(str(folder / "frame11.png"), shade(11))
    (folder / "notes.txt").write_text("ignored")
    return folder


def test_folder_in_natural_order_skipping_corrupt_files(tmp_path):
    folder = make_folder(tmp_path)
    with open_source(str(folder), fps=5) as source:
        assert isinstance(source, FolderSource)
        names = [p.name for p in source.files]
        frames = list(source)
        status = source.status
    assert names == ["frame1.png", "frame2.png", "frame3.png", "frame4.jpg", "frame5.png",
                     "frame6.png", "frame10.png", "frame11.png"]
    assert [level(f) for f in frames] == [1, 2, 3, 10, 11]
    # Indices are positions in the folder: the three bad files leave a gap.
    assert [f.index for f in frames] == [0, 1, 2, 6, 7]
    assert [f.t for f in frames] == [0.0, 0.2, 0.4, 1.2, 1.4]
    assert status.corrupt == 3 and status.frames == 5 and status.finished
    assert "frame6.png" in status.last_error


def test_folder_realtime_pacing(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(3):
        cv2.imwrite(str(folder / f"{k}.png"), shade(k + 1))
    fake = FakeTime()
    frames = list(FolderSource(folder, fps=2, realtime=True, clock=fake.clock, sleep=fake.sleep))
    assert len(frames) == 3 and fake.sleeps == [0.5, 0.5]


def test_single_image_and_bad_specs(tmp_path):
    picture = tmp_path / "table.jpg"
    cv2.imwrite(str(picture), shade(3, shape=(30, 40, 3)))
    assert [f.size for f in open_source(str(picture))] == [(40, 30)]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no images"):
        open_source(str(empty))
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "missing.mp4"))
    with pytest.raises(SourceError, match="unknown URL scheme"):
        open_source("ftp://example/video")
    with pytest.raises(SourceError, match="empty"):
        open_source("  ")
    with pytest.raises(SourceError, match="camera number"):
        open_source("picamera:x")
    with pytest.raises(SourceError, match="fps"):
        FolderSource(picture, fps=0)


def test_grab_frame_skips_and_reports_why_nothing_came(tmp_path):
    folder = make_folder(tmp_path)
    assert level(grab_frame(str(folder), skip=2)) == 3
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "a.png").write_bytes(b"garbage")
    with pytest.raises(SourceError, match="a.png"):
        grab_frame(str(broken))


def test_frame_problem_and_natural_key():
    good = shade(1)
    assert frame_problem(good) is None
    assert frame_problem(good, expected_shape=(48, 64, 3)) is None
    assert "differs" in frame_problem(good, expected_shape=(40, 64, 3))
    assert "black" in frame_problem(np.zeros_like(good))
    dark = np.zeros_like(good)
    dark[7, 9, 1] = 1  # one live pixel off the strided peek: still a real frame
    assert frame_problem(dark) is None
    assert frame_problem(None) == "no image"
    assert "shape" in frame_problem(good[:, :, 0])
    assert "shape" in frame_problem(good.astype(np.float32))
    names = ["b10.png", "a2.png", "b9.png", "a10.png", "B1.png"]
    assert sorted(names, key=natural_key) == ["a2.png", "a10.png", "B1.png", "b9.png", "b10.png"]


def test_backoff_schedule_is_bounded():
    backoff = Backoff(initial=0.5, factor=2.0, maximum=8.0)
    assert [backoff.delay(k) for k in range(7)] == [0.5, 1, 2, 4, 8, 8, 8]
    assert backoff.delay(10_000) == 8.0  # no overflow after a long outage
    for bad in [dict(initial=-1), dict(factor=0.5), dict(attempts=0)]:
        with pytest.raises(ValueError):
            Backoff(**bad)


def test_status_fps_measures_delivery_rate(tmp_path):
    folder = tmp_path / "frames"
    folder.mkdir()
    for k in range(6):
        cv2.imwrite(str(folder / f"{k}.png"), shade(k + 1))
    ticks = itertools.count()
    source = FolderSource(folder, clock=lambda: next(ticks) * 0.05)
    list(source)
    assert source.status.fps == pytest.approx(20.0, rel=0.3)
