"""How varied a policy's paintings are, measured cheaply on the CPU (docs/evaluation.md, "Diversity").

A painting's embedding is two parts, each with its own distance in [0, 1], and `distance` is their mean
so neither dominates. Both are measured on a 64x64 copy of the PNG, in CIELAB (D65), against the
painting's paper: its median colour (the paper, or a wash over most of it).

- colour: an 8x8 grid of cells, each with its ink coverage (the share of it that differs from the paper,
  ramping from INK_FROM to INK_FROM + INK_RAMP in CIE76 colour difference) and its ink's mean hue (the
  a*b* direction, shrunk toward grey below HUE_CHROMA chroma) weighted by that coverage: which colour
  is where. Two grids differ by the sum of their cells' differences over the cells either one painted,
  so a small flower on a big sheet weighs as much as a large one; the depth of a wash does not count,
  since the brush's seed alone changes it.
- edges: the edges of the ink (the gradient of its coverage) as a histogram, half by orientation (8 bins
  over 0-180 degrees) and half by place (a 4x4 grid of regions): where the outlines are and which way
  they run, not the grain of the brush. Two histograms differ by half their L1 distance.

All of it is numpy and PIL: about 10 ms a painting, PNG decoding included, no model, no GPU, no download, and deterministic (the
same bytes always give the same vector), so `watercolour check-run` and `watercolour eval` can afford
it on every painting of a run.

What it catches: collapse of the one-flower kind, where a policy answers every sample with the same
composition and palette and only the brush's bleed and grain change with the seed: such paintings sit
well below the distance of any two different paintings (tests/studio/test_diversity.py measures both).
What it does not catch: the same idea under another layout (the same flower moved or mirrored reads as
different), sameness below the grid (brush kind, fine texture, motifs smaller than one 75-pixel cell),
a recolour of one small element (it stays close to the original), changes of lightness alone, and
whether the variety is any good: a policy scribbling at random varies a great deal.
"""

from __future__ import annotations

import io
import itertools
import re

import numpy as np
from PIL import Image

COLLAPSE_SHARE = 0.7
"""A policy whose spread falls below this share of its starting point's is warned about as collapsing.

On real renders (tests/studio/test_diversity.py) near-copies sit 0.13 apart on average (0.005 to 0.21)
and different paintings 0.39 (0.26 to 0.48): a group collapsed into one painting keeps about a third of
its spread (0.13 / 0.39). A spread at 70% means about half of a group's pairs have become near-copies
(0.7 x 0.39 = 0.27 = 0.45 x 0.13 + 0.55 x 0.39): late enough not to warn about the wobble of a spread
measured on a few groups of four to eight paintings, early enough to warn well before the whole policy
paints one picture."""

SIDE = 64  # the painting is shrunk to SIDE x SIDE before anything is measured
COLOUR_GRID = 8
EDGE_GRID = 4
ORIENTATIONS = 8  # bins over 0-180 degrees
INK_FROM, INK_RAMP = 1.0, 4.0  # CIE76 difference from the paper where ink starts, and over which it ramps to full
HUE_CHROMA = 5.0  # ink less chromatic than this has a shorter hue vector: grey ink has no hue
COLOUR_SIZE = COLOUR_GRID * COLOUR_GRID * 3
BRUSH_CALL = re.compile(r"\bbrush\s*\.\s*([A-Za-z_$][\w$]*)\s*\(")
# A block comment left open runs to the end, as it would in JavaScript: matched once, never from each later `/*`
# (which scanned to the end from every one of them: 180,000 characters of `/*` took a minute).
COMMENT = re.compile(r"//[^\n]*|/\*.*?(?:\*/|\Z)", re.DOTALL)


def embed(png: bytes) -> np.ndarray:
    """The painting's vector: the COLOUR_GRID x COLOUR_GRID cells' (coverage, a* hue, b* hue), row by row,
    then the edge histogram (ORIENTATIONS bins summing to 0.5, then EDGE_GRID x EDGE_GRID summing to 0.5;
    all 0 for a painting without edges)."""
    with Image.open(io.BytesIO(png)) as image:
        small = image.convert("RGB").resize((SIDE, SIDE), Image.Resampling.BOX)
    lab = _lab(np.asarray(small, dtype=np.float64) / 255.0)
    paper = np.median(lab.reshape(-1, 3), axis=0)
    ink = np.clip((np.linalg.norm(lab - paper, axis=-1) - INK_FROM) / INK_RAMP, 0.0, 1.0)
    ab = lab[..., 1:]
    hue = ab / np.maximum(np.linalg.norm(ab, axis=-1, keepdims=True), HUE_CHROMA)
    cell = SIDE // COLOUR_GRID
    cells = np.concatenate([ink[..., None], hue * ink[..., None]], axis=-1)
    colour = cells.reshape(COLOUR_GRID, cell, COLOUR_GRID, cell, 3).mean(axis=(1, 3))
    return np.concatenate([colour.ravel(), _edges(ink)])


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """0 for the same painting; the mean of the colour grids' difference and the edge histograms' (each 0 to 1)."""
    grid_a, grid_b = a[:COLOUR_SIZE].reshape(-1, 3), b[:COLOUR_SIZE].reshape(-1, 3)
    painted = 3 * float(np.maximum(grid_a[:, 0], grid_b[:, 0]).sum())
    colour = min(float(np.abs(grid_a - grid_b).sum()) / painted, 1.0) if painted > 0 else 0.0
    edges = 0.5 * float(np.abs(a[COLOUR_SIZE:] - b[COLOUR_SIZE:]).sum())
    return (colour + edges) / 2


def spread(pngs: list[bytes]) -> float | None:
    """The mean distance over every pair of paintings; None for fewer than two."""
    if len(pngs) < 2:
        return None
    vectors = [embed(png) for png in pngs]
    return float(np.mean([distance(a, b) for a, b in itertools.combinations(vectors, 2)]))


def brush_sequence(code: str) -> list[str]:
    """The `brush.METHOD(` calls in the order they are written, comments left out (strings are not parsed:
    a call spelled inside a string counts). A call in a loop or a helper counts once, where it is written.
    Linear in the code's length, whatever it holds: the code is the model's, and may be anything."""
    return BRUSH_CALL.findall(COMMENT.sub(" ", code))


def distinct_share(sequences: list[list[str]]) -> float | None:
    """The share of samples whose brush-call sequence no other sample has; None for fewer than two.

    1.0: every sample wrote its own sequence; 0.0: every sequence is shared with another sample (four
    samples as two pairs of twins score 0, as four copies do)."""
    if len(sequences) < 2:
        return None
    counts: dict[tuple[str, ...], int] = {}
    for sequence in sequences:
        counts[tuple(sequence)] = counts.get(tuple(sequence), 0) + 1
    return sum(counts[tuple(sequence)] == 1 for sequence in sequences) / len(sequences)


def _lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB in 0-1 to CIELAB (D65)."""
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = linear @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def _edges(ink: np.ndarray) -> np.ndarray:
    """The ink's outline energy by orientation, then by region, each as half of the whole."""
    gy, gx = np.gradient(ink)
    magnitude = np.hypot(gx, gy)
    angle = np.mod(np.arctan2(gy, gx), np.pi)  # an edge and its reverse run the same way
    bins = (angle / np.pi * ORIENTATIONS + 0.5).astype(int) % ORIENTATIONS
    by_angle = np.bincount(bins.ravel(), weights=magnitude.ravel(), minlength=ORIENTATIONS)
    cell = SIDE // EDGE_GRID
    by_place = magnitude.reshape(EDGE_GRID, cell, EDGE_GRID, cell).sum(axis=(1, 3)).ravel()
    total = float(magnitude.sum())
    if total == 0:
        return np.zeros(ORIENTATIONS + EDGE_GRID * EDGE_GRID)
    return np.concatenate([by_angle, by_place]) / (2 * total)
