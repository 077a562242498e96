"""Run the dashboard with a live source feeding it: what ``sueca demo``,
``sueca serve`` and ``sueca run`` share.

>>> # serve(data_dir, host="0.0.0.0", port=8000, source=my_source)  # blocks
>>> # my_source(feed, stop) runs in a thread; feed.on_event(...) per pipeline event
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Callable

Source = Callable[["object", threading.Event], None]


def lan_address() -> str:
    """The address a phone on the café's network would use (best effort, no traffic sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent for a UDP connect
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def urls(host: str, port: int) -> list[str]:
    if host in ("0.0.0.0", "::", ""):
        return [f"http://127.0.0.1:{port}/", f"http://{lan_address()}:{port}/"]
    return [f"http://{host}:{port}/"]


def serve(data_dir: str | Path | None, host: str = "0.0.0.0", port: int = 8000,
          source: Source | None = None, show_token: bool = False, log_level: str = "warning",
          out=print, setup: Callable | None = None) -> int:
    """Build the app, run ``setup(app)``, start ``source(feed, stop)`` in a thread, serve until Ctrl-C."""
    import uvicorn

    from .app import create_app

    app = create_app(data_dir)
    if setup is not None:
        setup(app)
    cfg = app.state.config
    links = urls(host, port)
    out("Sueca: painel / dashboard")
    for u in links:
        out(f"  {u}")
    if app.state.token_created or show_token:
        out(f"Árbitro / referee: {links[-1]}#token={cfg.admin_token}")
        out(f"  admin token: {cfg.admin_token}")
        if app.state.token_created:
            out(f"  (gerado agora, guardado em / generated now, stored in {cfg.data_dir / 'config.json'})")
    else:
        out(f"Árbitro / referee: admin token in {cfg.data_dir / 'config.json'}")
    stop = threading.Event()
    worker = None
    if source is not None:
        def run_source():
            try:
                source(app.state.feed, stop)
            except Exception as e:  # shown on the status line rather than killing the server
                app.state.referee.set_status({"connected": False, "last_error": f"{type(e).__name__}: {e}"})
                raise
        worker = threading.Thread(target=run_source, name="sueca-source", daemon=True)
        worker.start()
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=2)
    hub = app.state.referee.hub

    class Server(uvicorn.Server):
        def handle_exit(self, sig, frame):
            hub.close()  # end the live streams so that Ctrl-C exits at once
            super().handle_exit(sig, frame)

    try:
        Server(config).run()
    finally:
        stop.set()
        if worker is not None:
            worker.join(timeout=3)
    return 0


def free_port() -> int:
    """A TCP port nobody listens on right now (tests, benchmarks)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(data_dir: str | Path, port: int, timeout: float = 60.0, command: str = "serve",
          extra: tuple[str, ...] = ()):
    """Start ``sueca serve`` (or ``demo``) as a child process and wait until it answers.

    Returns the ``subprocess.Popen``; its stdout holds what the server printed.
    """
    import subprocess
    import sys
    import time
    import urllib.request

    cmd = [sys.executable, "-m", "sueca", command, "--host", "127.0.0.1", "--port", str(port),
           "--data-dir", str(data_dir), *extra]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {proc.stdout.read().decode(errors='replace')}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise TimeoutError(f"server on port {port} did not answer within {timeout} s")
