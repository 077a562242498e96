"""Train, calibrate and export the index reader (training venv: torch).

Input: corner crops (N, 48, 36, 3) BGR (or (N, 48, 36) grey) uint8 cut by :mod:`sueca.vision.rectify`
exactly as at run time, labels 0..51 (``CARD_CODES``) or 52 (no readable index).

>>> # .venv-train/bin/python -m sueca.vision.train_reader out/train/reader_data.npz  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from sueca.vision.reader_net import build_reader
from sueca.vision.recognizer import UNREADABLE_CLASS, combine_corners, softmax
from sueca.vision.rectify import CropSpec


def to_tensor(crops: np.ndarray | torch.Tensor) -> torch.Tensor:
    """uint8 crops (N, H, W) or (N, H, W, 3) -> float (N, C, H, W) in [0, 1]."""
    x = crops if isinstance(crops, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(crops))
    x = x.float() / 255.0
    return x[:, None] if x.dim() == 3 else x.permute(0, 3, 1, 2).contiguous()


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Photometric jitter on a batch (B, C, H, W) in [0, 1]: white balance, saturation, light,
    contrast, gamma, noise, blur (café light is warm, dim and uneven)."""
    b, c = x.shape[:2]
    dev = x.device  # g must live there too (a CUDA generator for a batch on the GPU)
    def r(lo, hi):
        return lo + (hi - lo) * torch.rand(b, 1, 1, 1, generator=g, device=dev)
    if c == 3:
        x = x * (0.8 + 0.4 * torch.rand(b, 3, 1, 1, generator=g, device=dev))  # white balance
        grey = x.mean(dim=1, keepdim=True)
        x = grey + (x - grey) * r(0.3, 1.4)  # saturation
    x = x.clamp(1e-3, 1) ** r(0.6, 1.6)
    x = (x - 0.5) * r(0.5, 1.3) + 0.5 + r(-0.2, 0.2)
    # a light gradient across the crop (a shadow edge, a lamp)
    h, w = x.shape[2:]
    yy = torch.linspace(-1, 1, h, device=dev).view(1, 1, h, 1)
    xx = torch.linspace(-1, 1, w, device=dev).view(1, 1, 1, w)
    x = x + (r(-0.15, 0.15) * yy + r(-0.15, 0.15) * xx)
    blur = torch.rand(b, generator=g, device=dev) < 0.3
    if blur.any():
        k = torch.tensor([0.25, 0.5, 0.25], device=dev)
        k2 = (k[:, None] * k[None, :]).view(1, 1, 3, 3).repeat(c, 1, 1, 1)
        x[blur] = F.conv2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), k2, groups=c)
    x = x + torch.randn(x.shape, generator=g, device=dev) * r(0.0, 0.06)
    return x.clamp(0, 1)


def shape_jitter(x: torch.Tensor, g: torch.Generator, p: float = 0.5, box=CropSpec.box) -> torch.Tensor:
    """Other artists' indices on a batch (B, C, H, W) in [0, 1]: heavier or lighter strokes
    (a 3x3 minimum or maximum, dark ink on light stock) and a larger or smaller index
    (zoomed 0.85-1.15 about the card's corner, where the index hangs). Printed decks
    differ from ours most in exactly these, and colour jitter teaches neither. ``box``: the
    crops' :class:`~sueca.vision.rectify.CropSpec` box, which places the card's corner."""
    b, dev = x.shape[0], x.device
    heavy = torch.rand(b, generator=g, device=dev) < p / 2
    light = ~heavy & (torch.rand(b, generator=g, device=dev) < p / (2 - p))
    # blended, not whole: a full 3x3 maximum erases the 1-2 px strokes of a small index,
    # and a crop whose index is gone must not be taught as readable
    if heavy.any():
        a = 0.3 + 0.7 * torch.rand(int(heavy.sum()), 1, 1, 1, generator=g, device=dev)
        x[heavy] = (1 - a) * x[heavy] + a * -F.max_pool2d(-x[heavy], 3, stride=1, padding=1)
    if light.any():
        a = 0.2 + 0.3 * torch.rand(int(light.sum()), 1, 1, 1, generator=g, device=dev)
        x[light] = (1 - a) * x[light] + a * F.max_pool2d(x[light], 3, stride=1, padding=1)
    zoom = torch.rand(b, generator=g, device=dev) < p
    if zoom.any():
        n = int(zoom.sum())
        s = 0.85 + 0.3 * torch.rand(n, generator=g, device=dev)
        # the card's corner (card units 0, 0) stays where it is, in grid units -1..1
        u0, v0, u1, v1 = box
        cx = torch.full((n,), 2 * -u0 / (u1 - u0) - 1, device=dev)
        cy = torch.full((n,), 2 * -v0 / (v1 - v0) - 1, device=dev)
        theta = torch.zeros(n, 2, 3, device=dev)
        theta[:, 0, 0], theta[:, 1, 1] = s, s
        theta[:, 0, 2], theta[:, 1, 2] = cx * (1 - s), cy * (1 - s)
        grid = F.affine_grid(theta, list(x[zoom].shape), align_corners=False)
        x[zoom] = F.grid_sample(x[zoom], grid, mode="bilinear", padding_mode="border", align_corners=False)
    return x


def _blur_kernels(size: int = 11) -> torch.Tensor:
    """(K, size, size) kernels: out of focus (Gaussian, sigma 0.8-2 crop pixels) and a streak
    (3-11 px long, every 22.5 degrees), each summing to 1."""
    c = (size - 1) / 2
    yy, xx = torch.meshgrid(torch.arange(size) - c, torch.arange(size) - c, indexing="ij")
    ks = [torch.exp(-(xx ** 2 + yy ** 2) / (2 * s * s)) for s in (0.8, 1.1, 1.5, 2.0)]
    for length in (3, 5, 7, 9, 11):
        for a in torch.arange(8) * (np.pi / 8):
            # distance from the streak's line, and along it within half its length
            across = (xx * torch.sin(a) - yy * torch.cos(a)).abs()
            along = (xx * torch.cos(a) + yy * torch.sin(a)).abs()
            ks.append(torch.clamp(1 - across, min=0) * (along <= length / 2).float())
    return torch.stack([k / k.sum() for k in ks])


_KERNELS: dict = {}


def blur_jitter(x: torch.Tensor, g: torch.Generator, p: float = 0.3) -> torch.Tensor:
    """Blur past the generator's on a batch (B, C, H, W): a share ``p`` of the crops out of
    focus or streaked (a shaken camera, a card still moving), the label kept: a blurred spade
    must be read as a spade or not at all, never as the club it comes to look like
    (``scripts/robustness_check.py``, rows ``motion`` and ``defocus``)."""
    b, c = x.shape[:2]
    dev = x.device
    pick = torch.rand(b, generator=g, device=dev) < p
    if not pick.any():
        return x
    if dev not in _KERNELS:
        _KERNELS[dev] = _blur_kernels().to(dev)
    kernels = _KERNELS[dev]
    which = torch.randint(len(kernels), (int(pick.sum()),), generator=g, device=dev)
    k = kernels[which]  # (n, s, s): one kernel per crop, applied to its channels alike
    n, s = len(which), k.shape[-1]
    sub = x[pick].reshape(1, n * c, *x.shape[2:])
    w = k.repeat_interleave(c, dim=0).unsqueeze(1)  # (n*c, 1, s, s)
    out = F.conv2d(F.pad(sub, (s // 2,) * 4, mode="replicate"), w, groups=n * c)
    x[pick] = out.reshape(n, c, *x.shape[2:])
    return x


def calibrate(model: torch.nn.Module, crops: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(temperature, crop accuracy) of ``model`` on validation crops: the temperature fitted
    by :func:`fit_temperature`, the accuracy of the argmax at it."""
    logits = predict(model, crops)
    temp = fit_temperature(logits, labels)
    return temp, float(np.mean(softmax(logits, temp).argmax(1) == labels))


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """Temperature minimising the negative log-likelihood (grid search, robust and exact enough)."""
    best_t, best = 1.0, np.inf
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), 120)):
        p = softmax(logits, t)
        nll = -np.mean(np.log(p[np.arange(len(labels)), labels] + 1e-12))
        if nll < best:
            best_t, best = float(t), nll
    return best_t


def choose_threshold(card_probs: list[np.ndarray], card_labels: np.ndarray, card_truth: np.ndarray,
                     max_wrong: float = 0.0005, floor: float = 0.6) -> tuple[float, dict]:
    """Lowest threshold whose wrong-identity rate on the validation cards is at most ``max_wrong``.

    ``card_probs[i]``: calibrated probabilities of card i's crops; ``card_labels[i]``:
    the class it should be read as (52 when it has no readable index);
    ``card_truth[i]``: the card's own class (reading a hidden card right is no error).
    """
    table = []
    for t in np.round(np.arange(floor, 0.995, 0.01), 3).tolist() + [0.995, 0.998]:
        wrong = right = 0
        for p, y, truth in zip(card_probs, card_labels, card_truth):
            code, _ = combine_corners(p, t)
            if code == "":
                continue
            k = _code_index(code)
            right += int(k == y)
            wrong += int(k != truth)
        readable = int(np.sum(card_labels != UNREADABLE_CLASS))
        table.append((t, right / max(readable, 1), wrong / max(len(card_labels), 1)))
    ok = [row for row in table if row[2] <= max_wrong]
    t, recall, wrong = ok[0] if ok else table[-1]
    return float(t), {"recall": recall, "wrong_rate": wrong, "cards": len(card_labels)}


def _code_index(code: str) -> int:
    from sueca.vision.classes import CARD_CLASS

    return CARD_CLASS[code]


def predict(model: torch.nn.Module, crops: np.ndarray, batch: int = 512) -> np.ndarray:
    model.eval()
    dev = next(model.parameters()).device
    out = []
    with torch.inference_mode():
        for i in range(0, len(crops), batch):
            out.append(model(to_tensor(crops[i:i + batch]).to(dev)).cpu().numpy())
    return np.concatenate(out) if out else np.zeros((0, UNREADABLE_CLASS + 1), np.float32)


def train_reader(crops: np.ndarray, labels: np.ndarray, epochs: int = 8, batch: int = 128, lr: float = 3e-3,
                 seed: int = 0, width: int = 16, log=print, init: torch.nn.Module | None = None,
                 shapes: float = 0.0, device: str = "cpu", blur: float = 0.0) -> torch.nn.Module:
    """Train with AdamW + one-cycle, from scratch or on from ``init``; returns the model in eval mode
    (on ``device``). ``shapes``: :func:`shape_jitter` too, at that probability (0: not); ``blur``:
    :func:`blur_jitter`, likewise."""
    torch.manual_seed(seed)
    dev = torch.device(device)
    g = torch.Generator().manual_seed(seed)
    # on the CPU one generator draws both, as the committed weights were trained
    ga = g if dev.type == "cpu" else torch.Generator(device=dev).manual_seed(seed)
    channels = 1 if crops.ndim == 3 else crops.shape[3]
    model = init if init is not None else build_reader(UNREADABLE_CLASS + 1, width, in_channels=channels)
    model = model.to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(crops) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.15)
    y_all = torch.from_numpy(labels.astype(np.int64))
    # on a GPU the whole uint8 set goes there once (a few hundred MB), batches are cut there
    on_dev = None if dev.type == "cpu" else torch.from_numpy(np.ascontiguousarray(crops)).to(dev)
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        perm = torch.randperm(len(crops), generator=g)
        # summed where they are: a float() each step would wait for the GPU
        tot, correct, n = torch.zeros((), device=dev), torch.zeros((), dtype=torch.long, device=dev), 0
        for i in range(0, len(perm), batch):
            idx = perm[i:i + batch]
            x = to_tensor(crops[idx.numpy()]) if on_dev is None else to_tensor(on_dev[idx.to(dev)])
            if shapes > 0:
                x = shape_jitter(x, ga, shapes)
            if blur > 0:
                x = blur_jitter(x, ga, blur)
            x = augment(x, ga)
            y = y_all[idx].to(dev)
            logits = model(x)
            loss = F.cross_entropy(logits, y, label_smoothing=0.02)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.detach() * len(idx)
            correct += (logits.argmax(1) == y).sum()
            n += len(idx)
        log(f"reader epoch {ep + 1}/{epochs} loss {float(tot) / n:.4f} acc {int(correct) / n:.4f} ({time.time() - t0:.0f}s)")
    return model.eval()


def export_reader(model: torch.nn.Module, size: tuple[int, int], onnx_path: str | Path, pt_path: str | Path) -> None:
    """Write ``reader.onnx`` (dynamic batch) and ``reader.pt`` (state dict + architecture)."""
    model = model.eval().cpu()
    width, channels = model.width, model.in_channels
    dummy = torch.zeros(4, channels, *size)
    torch.onnx.export(model, (dummy,), str(onnx_path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    torch.save({"arch": {"num_classes": UNREADABLE_CLASS + 1, "width": width, "in_channels": channels},
                "state_dict": model.state_dict()}, str(pt_path))


def load_reader(pt_path: str | Path) -> torch.nn.Module:
    """A ``reader.pt`` written by :func:`export_reader`, as a torch module."""
    ckpt = torch.load(str(pt_path), map_location="cpu", weights_only=True)
    model = build_reader(**ckpt["arch"])
    model.load_state_dict(ckpt["state_dict"])
    return model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Train the card index reader on a crops .npz (crops, labels).")
    ap.add_argument("data")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--width", type=int, default=16, help="channels of the first layer")
    ap.add_argument("--out", default="out/train")
    args = ap.parse_args(argv)
    d = np.load(args.data)
    model = train_reader(d["crops"], d["labels"], args.epochs, width=args.width)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    export_reader(model, d["crops"].shape[1:3], out / "reader.onnx", out / "reader.pt")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
