"""The referee's memory: an append-only event log per match in SQLite (WAL).

Every event is committed (``synchronous=FULL``) before :meth:`Store.append`
returns, and the dashboard only shows what ``append`` returned, so a kill -9
or a power cut loses nothing that was ever on screen. The game record and the
score are never stored: they are re-derived from the events (``replay.py``).

>>> s = Store(":memory:")
>>> m = s.create_match("Mesa 1")
>>> e = s.append(m, "names", {"players": ["Ana", "Rui", "Zé", "Bia"]}, who="referee")
>>> [ev.kind for ev in s.events(m)]
['names']
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    title TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    who TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_match ON events(match_id, id);
CREATE TABLE IF NOT EXISTS snapshots (
    event_id INTEGER PRIMARY KEY REFERENCES events(id),
    jpeg BLOB NOT NULL
);
"""


@dataclass(frozen=True)
class Event:
    """One line of a match's log: what happened, who did it, when (unix seconds)."""

    id: int
    match_id: int
    kind: str
    payload: dict = field(hash=False)
    who: str
    at: float

    def to_json(self) -> dict:
        return {"id": self.id, "match_id": self.match_id, "kind": self.kind,
                "payload": self.payload, "who": self.who, "at": self.at}


@dataclass(frozen=True)
class MatchRow:
    id: int
    created: float
    title: str
    events: int
    last_event: int | None


class Store:
    """Thread-safe SQLite store. One connection guarded by a lock: writes are
    tiny and rare (a play every second or so), so a pool would buy nothing."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # FULL: a committed event survives a power cut, not only a process kill.
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- matches -----------------------------------------------------------
    def create_match(self, title: str = "") -> int:
        with self._lock:
            cur = self._db.execute("INSERT INTO matches(created, title) VALUES (?, ?)",
                                   (time.time(), title))
            return int(cur.lastrowid)

    def matches(self) -> list[MatchRow]:
        """All matches, newest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT m.id, m.created, m.title, COUNT(e.id), MAX(e.id) FROM matches m "
                "LEFT JOIN events e ON e.match_id = m.id GROUP BY m.id ORDER BY m.id DESC").fetchall()
        return [MatchRow(int(r[0]), float(r[1]), r[2], int(r[3]), r[4]) for r in rows]

    def match(self, match_id: int) -> MatchRow | None:
        with self._lock:
            r = self._db.execute(
                "SELECT m.id, m.created, m.title, COUNT(e.id), MAX(e.id) FROM matches m "
                "LEFT JOIN events e ON e.match_id = m.id WHERE m.id = ? GROUP BY m.id",
                (match_id,)).fetchone()
        return None if r is None else MatchRow(int(r[0]), float(r[1]), r[2], int(r[3]), r[4])

    def latest_match(self) -> int | None:
        with self._lock:
            r = self._db.execute("SELECT MAX(id) FROM matches").fetchone()
        return None if r[0] is None else int(r[0])

    def set_title(self, match_id: int, title: str) -> None:
        with self._lock:
            self._db.execute("UPDATE matches SET title = ? WHERE id = ?", (title, match_id))

    # -- events ------------------------------------------------------------
    def append(self, match_id: int, kind: str, payload: dict, who: str,
               snapshot: bytes | None = None, at: float | None = None) -> Event:
        """Append one event (and its snapshot) in one committed transaction."""
        at = time.time() if at is None else at
        text = json.dumps(payload, separators=(",", ":"), sort_keys=True)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "INSERT INTO events(match_id, kind, payload, who, at) VALUES (?, ?, ?, ?, ?)",
                    (match_id, kind, text, who, at))
                event_id = int(cur.lastrowid)
                if snapshot:
                    self._db.execute("INSERT INTO snapshots(event_id, jpeg) VALUES (?, ?)",
                                     (event_id, sqlite3.Binary(snapshot)))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Event(event_id, match_id, kind, json.loads(text), who, at)

    def events(self, match_id: int) -> list[Event]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, match_id, kind, payload, who, at FROM events WHERE match_id = ? ORDER BY id",
                (match_id,)).fetchall()
        return [Event(int(r[0]), int(r[1]), r[2], json.loads(r[3]), r[4], float(r[5])) for r in rows]

    def snapshot(self, event_id: int) -> bytes | None:
        with self._lock:
            r = self._db.execute("SELECT jpeg FROM snapshots WHERE event_id = ?", (event_id,)).fetchone()
        return None if r is None else bytes(r[0])

    def matches_with_snapshots(self) -> list[int]:
        with self._lock:
            rows = self._db.execute("SELECT DISTINCT e.match_id FROM snapshots s JOIN events e "
                                    "ON e.id = s.event_id ORDER BY e.match_id DESC").fetchall()
        return [int(r[0]) for r in rows]

    def drop_snapshots(self, match_id: int, keep: set[int]) -> int:
        """Delete a match's snapshots except ``keep`` (event ids); returns how many went."""
        with self._lock:
            ids = self.snapshot_ids(match_id) - keep
            self._db.executemany("DELETE FROM snapshots WHERE event_id = ?", [(i,) for i in ids])
        return len(ids)

    def snapshot_ids(self, match_id: int) -> set[int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT s.event_id FROM snapshots s JOIN events e ON e.id = s.event_id "
                "WHERE e.match_id = ?", (match_id,)).fetchall()
        return {int(r[0]) for r in rows}
