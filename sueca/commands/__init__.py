"""CLI subcommands that wire the parts together (I/O lives here, not in the engine)."""
