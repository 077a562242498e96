"""sueca.hardware."""
