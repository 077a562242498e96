"""sueca.datasets."""
