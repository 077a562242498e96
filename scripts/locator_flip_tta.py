"""Experiment: the locator also run on the left-right flipped input, boxes of both merged.

    python scripts/locator_flip_tta.py tta    # or: base
Prints the held-out test metrics (200 scenes from 900000) and the card threshold the
recipe's rule would choose on 400 validation scenes (from 500000). Nothing is installed.
"""
import sys

import numpy as np
from sueca.vision.recognizer import load_recognizer
from sueca.vision.onnx_backend import letterbox, nms_rotated, rbox_corners, Located
from sueca.vision.train_eval import evaluate, readings, choose_card_threshold

def tta_locator(loc):
    def call(frame):
        blob, lb = letterbox(frame, loc.imgsz)
        a = loc.session.run(None, {loc.input_name: blob})[0][0].T
        b = loc.session.run(None, {loc.input_name: np.ascontiguousarray(blob[..., ::-1])})[0][0].T.copy()
        b[:, 0] = blob.shape[3] - b[:, 0]  # back to the unflipped input
        b[:, -1] = -b[:, -1]               # a mirrored box turns the other way
        pred = np.concatenate([a, b])
        scores = pred[:, 4:-1].max(axis=1)
        sel = scores > loc.conf
        pred, scores = pred[sel], scores[sel]
        rb = np.concatenate([pred[:, :4], pred[:, -1:]], axis=1).astype(np.float32)
        keep = nms_rotated(rb, scores, loc.iou)[:64]
        rb, scores = rb[keep], scores[keep]
        rb[:, :2] = lb.to_image(rb[:, :2])
        rb[:, 2:4] /= lb.gain
        return Located(rb, rbox_corners(rb), scores.astype(np.float32))
    return call


def main() -> None:
    rec = load_recognizer()
    if sys.argv[1] == "tta":
        rec.locator = tta_locator(rec.locator)
    m, _ = evaluate(rec, range(900000, 900200), "test", log=lambda *a: None)
    print(sys.argv[1], "test", {k: m[k] for k in ("recall_readable", "read_right", "wrong_identities", "reported_identities", "locator_recall", "recall_whole", "ms_per_frame_median")})
    rows, n = readings(rec, range(500000, 500400), "train")
    t, table = choose_card_threshold(rows, n)
    print(sys.argv[1], "val threshold", t, [(r["threshold"], round(r["recall"], 3), r["wrong"]) for r in table])


if __name__ == "__main__":
    main()
