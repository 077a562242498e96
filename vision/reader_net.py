"""The index reader network (torch; training and the PyTorch backend only).

A small VGG-style CNN on a 48x36 BGR (or grey) crop of a card's top-left corner:
52 card classes + 1 "no readable index". About 12 M multiply-adds per crop,
so a frame's 16 crops cost well under a millisecond.

>>> import torch
>>> net = build_reader()
>>> net(torch.zeros(2, 3, 48, 36)).shape
torch.Size([2, 53])
"""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class ReaderNet(nn.Module):
    def __init__(self, num_classes: int = 53, width: int = 16, dropout: float = 0.2, in_channels: int = 3):
        super().__init__()
        self.width, self.in_channels = width, in_channels  # written into reader.pt by export_reader
        w = width
        self.features = nn.Sequential(
            *_block(in_channels, w), nn.MaxPool2d(2),
            *_block(w, 2 * w), *_block(2 * w, 2 * w), nn.MaxPool2d(2),
            *_block(2 * w, 4 * w), *_block(4 * w, 4 * w), nn.MaxPool2d(2),
            *_block(4 * w, 6 * w),
            # keep a coarse layout (rank above suit) rather than a global average
            nn.AdaptiveAvgPool2d((3, 2)),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(6 * w * 6, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # normalise each crop's levels (one scale for all channels: colour ratios carry the suit's colour)
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True) + 0.05
        return self.head(self.features((x - mean) / std))


def build_reader(num_classes: int = 53, width: int = 16, dropout: float = 0.2, in_channels: int = 3) -> ReaderNet:
    return ReaderNet(num_classes, width, dropout, in_channels)
