"""sueca.server."""
