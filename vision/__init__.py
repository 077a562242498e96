"""sueca.vision."""
