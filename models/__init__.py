"""sueca.models."""
