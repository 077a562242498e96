"""sueca.hardware: where frames come from (cameras, streams, files).

>>> from sueca.hardware import open_source, Frame
"""

from sueca.hardware.sources import (Backoff, Frame, FrameSource, FrameSourceStatus,
                                    SourceError, SourceUnavailable, grab_frame, open_source)

__all__ = ["Backoff", "Frame", "FrameSource", "FrameSourceStatus", "SourceError",
           "SourceUnavailable", "grab_frame", "open_source"]
