"""The systemd unit starts a command line the CLI really accepts, safely."""

from __future__ import annotations

import shlex
from pathlib import Path

from sueca.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]


def unit_settings(path: Path) -> dict[str, dict[str, str]]:
    sections: dict[str, dict[str, str]] = {}
    current = None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        assert current is not None, f"setting outside a section: {line}"
        current[key] = value
    return sections


def test_unit_runs_sueca_run_on_the_camera_as_a_user_and_restarts():
    unit = unit_settings(ROOT / "deploy" / "sueca.service")
    service = unit["Service"]
    assert service["User"] not in ("", "root") and service["Restart"] == "on-failure"
    assert "video" in service["SupplementaryGroups"].split()
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    argv = shlex.split(service["ExecStart"])
    assert argv[0].endswith("/bin/sueca") and argv[1:3] == ["run", "--source"]
    args = build_parser().parse_args(argv[1:])  # every option exists in `sueca run`
    assert args.source == "picamera" and args.calibration and args.record
    assert not args.no_server  # the dashboard is served
    # Where the service writes must be its own state directory.
    assert args.record.startswith("/var/lib/" + service["StateDirectory"])


def test_pi_constraints_keep_numpy_1():
    lines = [line for line in (ROOT / "deploy" / "pi-constraints.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    assert "numpy>=1.26,<2" in lines
