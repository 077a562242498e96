"""Server configuration kept beside the database: the admin token, the calibration.

The admin token is generated at the first start, printed once by the caller
(``Config.load`` tells it whether the token is new) and stored in
``<data_dir>/config.json`` (mode 0600) where the referee can look it up again.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> cfg, created = Config.load(d)
>>> created, len(cfg.admin_token) >= 32
(True, True)
>>> Config.load(d)[1]
False
>>> import shutil; shutil.rmtree(d)
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

CONFIG_NAME = "config.json"
DB_NAME = "sueca.db"


def default_data_dir() -> Path:
    """``$SUECA_HOME`` or ``~/.local/share/sueca``."""
    env = os.environ.get("SUECA_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "sueca"


@dataclass(frozen=True)
class Config:
    data_dir: Path
    admin_token: str
    calibration: dict | None = None

    @property
    def db_path(self) -> Path:
        return self.data_dir / DB_NAME

    @classmethod
    def load(cls, data_dir: str | Path) -> tuple["Config", bool]:
        """Read the config, creating it (and a fresh admin token) when absent.

        Returns ``(config, token_was_created)``.
        """
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / CONFIG_NAME
        if path.exists():
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise ValueError(f"{path}: not a readable JSON config ({exc})") from exc
            token = raw.get("admin_token")
            if not isinstance(token, str) or len(token) < 16:
                raise ValueError(f"{path}: admin_token missing or shorter than 16 characters")
            return cls(data_dir, token, raw.get("calibration")), False
        cfg = cls(data_dir, secrets.token_urlsafe(24))
        cfg.save()
        return cfg, True

    def with_calibration(self, calibration: dict) -> "Config":
        cfg = replace(self, calibration=calibration)
        cfg.save()
        return cfg

    def save(self) -> None:
        """Write atomically (temp file + rename) so a crash never leaves half a config."""
        body = {"admin_token": self.admin_token}
        if self.calibration is not None:
            body["calibration"] = self.calibration
        fd, tmp = tempfile.mkstemp(dir=self.data_dir, prefix=".config-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(body, fh, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.data_dir / CONFIG_NAME)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
