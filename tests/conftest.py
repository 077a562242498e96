import os
import sys

# Nothing in the tests may reach the network or fetch weights.
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# The suite renders the pixels a fresh clone renders, as CI does: art fetched into out/ for
# training (the CC0 photo textures add table kinds, the CC0 deck adds styles) draws other scenes
# from the same seeds, and the installed model's tests were measured on a fresh clone's.
_NO_ART = os.path.join(ROOT, "tests", ".no-fetched-art")
os.environ.setdefault("SUECA_TEXTURE_CACHE", os.path.join(_NO_ART, "textures"))
os.environ.setdefault("SUECA_DECK_CACHE", os.path.join(_NO_ART, "letele"))
