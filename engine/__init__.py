"""sueca.engine."""
