"""``sueca demo`` and ``sueca serve``: the dashboard, with or without a table playing by itself."""

from __future__ import annotations

DEMO_PLAYERS = ("Ana", "Rui", "Inês", "Zé")


def _common(p, data_default: str = "$SUECA_HOME or ~/.local/share/sueca") -> None:
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: the café's network)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--data-dir", default=None,
                   help=f"config + SQLite database folder (default {data_default})")


def register(subparsers) -> None:
    p = subparsers.add_parser("demo", help="o produto inteiro num jogo de demonstração / the whole product on a demo game",
                              description="Serve the dashboard while a demo table plays Sueca in a loop.")
    _common(p, "a new temporary folder")
    p.add_argument("--interval", type=float, default=1.5,
                   help="simulated table: seconds between plays (default 1.5)")
    p.add_argument("--source", choices=("auto", "pipeline", "simulated"), default="auto",
                   help="pipeline: the rendered demo game through the real detector, tracker and engine; "
                        "simulated: the engine plays by itself; auto (default): pipeline when model weights "
                        "are packaged, else simulated")
    p.set_defaults(func=_demo)
    p = subparsers.add_parser("serve", help="painel e ferramentas do árbitro / dashboard and referee tools",
                              description="Serve the dashboard and the referee API (no camera).")
    _common(p)
    p.add_argument("--openapi", action="store_true", help="print the API's OpenAPI schema (JSON) and exit")
    p.set_defaults(func=_serve)


def _demo(args) -> int:
    import tempfile

    from sueca.server import demo
    from sueca.server.runner import serve

    data_dir = args.data_dir or tempfile.mkdtemp(prefix="sueca-demo-")
    interval = args.interval

    def source(feed, stop):
        demo.demo_source(feed, stop, interval=interval, mode=args.source)

    def setup(app):
        ref = app.state.referee
        if ref.store.match(ref.live_id).events == 0:  # a fresh demo table gets faces
            ref.submit("names", {"players": list(DEMO_PLAYERS)}, "demo")

    return serve(data_dir, args.host, args.port, source=source, show_token=True, setup=setup)


def _serve(args) -> int:
    from sueca.server.runner import serve

    if args.openapi:
        import json
        import tempfile

        from sueca.server.app import create_app

        with tempfile.TemporaryDirectory(prefix="sueca-openapi-") as data_dir:  # the schema only: no store kept
            print(json.dumps(create_app(data_dir).openapi(), indent=1))
        return 0

    return serve(args.data_dir, args.host, args.port)
