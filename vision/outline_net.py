"""The outliner network (torch; training and the PyTorch backend only).

A small CNN on a 64x64 BGR normalised view of a rough card box
(:class:`sueca.vision.outliner.View`): it regresses the card's four corners in
view units. About 20 M multiply-adds per view.

>>> import torch
>>> build_outliner()(torch.zeros(2, 3, 64, 64)).shape
torch.Size([2, 8])
"""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class OutlineNet(nn.Module):
    def __init__(self, width: int = 12, size: int = 64):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            *_block(3, w), nn.MaxPool2d(2),
            *_block(w, 2 * w), *_block(2 * w, 2 * w), nn.MaxPool2d(2),
            *_block(2 * w, 4 * w), *_block(4 * w, 4 * w), nn.MaxPool2d(2),
            *_block(4 * w, 6 * w), nn.MaxPool2d(2),
            *_block(6 * w, 8 * w),
        )
        cells = (size // 16) ** 2
        # where things are is the answer: keep the spatial layout (no global pooling)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(8 * w * cells, 128), nn.ReLU(inplace=True),
                                  nn.Linear(128, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True) + 0.05
        return self.head(self.features((x - mean) / std))


def build_outliner(width: int = 12, size: int = 64) -> OutlineNet:
    return OutlineNet(width, size)
