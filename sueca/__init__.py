"""sueca: a camera referee for the Portuguese card game Sueca.

The parts are subpackages: :mod:`sueca.engine` (rules), :mod:`sueca.vision`
(recognition, geometry, tracking), :mod:`sueca.hardware` (frame sources),
:mod:`sueca.server` (dashboard), :mod:`sueca.datasets` (synthetic data).
"""

__version__ = "0.1.0"
