"""The critique a revising painter reads between its paintings (docs/revisions.md).

It speaks only of what the painting and the gate show: how much of the sheet is painted and where, how strong
the washes are, the layering and the contrast, the palette, and what failed at the gate and why. It never sees the
reward, its terms, the judge, its references or their grades: its one input is the render result, so it cannot
name them.

A pure function of the render result (its PNG, verdict, violations, errors and warnings), computed on each turn
from that result and never stored: the render cache holds the result, so a cached render gives the same critique,
word for word, and a change to this module changes every critique at once, with no cached text to go stale.
10 to 20 ms of one core: the sheet is read at 150 x 150 (a 600 px canvas box-averaged 4 x 4), with numpy.
"""

from __future__ import annotations

import base64
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from watercolour_shared.paint import on_paper, paint_mask
from watercolour_shared.render_wire import RenderResult

# This module's own digest, as the rules' digest names the gate's files: every observation of an episode with revisions
# carries it, so a run's critiques say which text made them (a run directory mixing two versions shows it).
CRITIQUE_VERSION = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
SAMPLE_SIDE = 150  # pixels a side the sheet is read at
REGIONS = (
    ("the top left", "the top", "the top right"),
    ("the left", "the centre", "the right"),
    ("the bottom left", "the bottom", "the bottom right"),
)
BARE_BELOW = 0.01  # a region with less paint than this is bare
QUOTED = 3  # at most this many violations, errors and warnings are quoted
# Hue (degrees) below which each plain colour name holds, in order round the wheel.
HUES = ((15, "red"), (40, "orange"), (70, "yellow"), (160, "green"), (200, "teal"), (255, "blue"), (290, "purple"))
HUES += ((345, "pink"), (361, "red"))


@dataclass(frozen=True)
class Sheet:
    """What the pixels show, every share in 0..1."""

    coverage: float  # of the whole sheet
    regions: tuple[tuple[float, ...], ...]  # paint per third x third
    darkness: float  # mean of the painted pixels, 0 paper white .. 1 black
    values: tuple[float, float, float]  # painted pixels that are light, middle, dark
    darkest: float  # the darkness the darkest tenth of the paint reaches
    palette: tuple[tuple[str, float], ...]  # named colours and their share of the paint, largest first
    ground: str | None  # the paper's colour when it is not white


def critique(result: RenderResult) -> str:
    """The critique of one painting: plain sentences, deterministic, from the render result alone."""
    if result.status == "unavailable":
        return "The painting could not be made: the environment failed, not the sketch. Nothing here is about your sketch."
    lines: list[str] = []
    if result.status == "failed":
        broken = "; ".join(_located(violation.message, violation.line) for violation in result.violations[:QUOTED])
        more = len(result.violations) - QUOTED
        cut = f" (and {more} more)" if more > 0 else ""
        lines.append(f"The sketch did not pass the gate: {broken or 'it did not render'}{cut}.")
    else:
        lines.append("The sketch passed the gate.")
    if result.errors:
        lines.append("It threw: " + "; ".join(result.errors[:QUOTED]) + ".")
    if result.warnings:
        lines.append("Note: " + "; ".join(result.warnings[:QUOTED]) + ".")
    if result.png_base64:
        lines.extend(describe(measure(base64.b64decode(result.png_base64))))
    elif result.status == "failed":
        lines.append("Nothing was painted: the sketch never reached the sheet.")
    return " ".join(lines)


def measure(png: bytes) -> Sheet:
    with Image.open(io.BytesIO(on_paper(png))) as image:
        rgb_image = image.convert("RGB")
    factor = max(1, min(rgb_image.size) // SAMPLE_SIDE)
    rgb = np.asarray(rgb_image.reduce(factor) if factor > 1 else rgb_image, dtype=np.int32)
    mask = paint_mask(rgb)
    luminance = (rgb @ np.array([299, 587, 114])) / (1000 * 255)  # Rec. 601, 0..1
    dark = 1.0 - luminance
    rows, cols = np.array_split(np.arange(rgb.shape[0]), 3), np.array_split(np.arange(rgb.shape[1]), 3)
    regions = tuple(tuple(float(mask[np.ix_(r, c)].mean()) for c in cols) for r in rows)
    painted = dark[mask]
    if painted.size == 0:
        return Sheet(0.0, regions, 0.0, (0.0, 0.0, 0.0), 0.0, (), _ground(rgb, mask))
    values = (
        float((painted < 0.25).mean()),
        float(((painted >= 0.25) & (painted < 0.5)).mean()),
        float((painted >= 0.5).mean()),
    )
    return Sheet(
        coverage=float(mask.mean()),
        regions=regions,
        darkness=float(painted.mean()),
        values=values,
        darkest=float(np.percentile(painted, 90)),
        palette=_palette(rgb[mask]),
        ground=_ground(rgb, mask),
    )


def describe(sheet: Sheet) -> list[str]:
    lines = []
    if sheet.ground:
        lines.append(f"The ground is {sheet.ground}, not white paper.")
    lines.append(f"Paint covers {_percent(sheet.coverage)} of the sheet.")
    if sheet.coverage == 0:
        return lines
    cells = [(share, REGIONS[r][c]) for r, row in enumerate(sheet.regions) for c, share in enumerate(row)]
    heaviest = max(share for share, _ in cells)
    held = [name for share, name in sorted(cells, key=lambda cell: -cell[0]) if share >= heaviest / 2][:3]
    bare = [name for share, name in cells if share < BARE_BELOW]
    lines.append(f"Most of it lies in {_listed(held)}.")
    lines.append(f"Left bare: {_listed(bare)}." if bare else "No third of the sheet is left bare.")
    lines.append(f"The washes are {_strength(sheet.darkness)}: the paint averages {_percent(sheet.darkness)} darkness.")
    light, middle, dark = sheet.values
    lines.append(f"Values: {_percent(light)} light, {_percent(middle)} middle, {_percent(dark)} dark.")
    if max(sheet.values) >= 0.9:
        lines.append("Almost all the paint is one value: a single flat layer, no glazes building depth.")
    elif light >= 0.1 and dark >= 0.1:
        lines.append("Light washes and darker glazes both show: the layers build depth.")
    else:
        lines.append("Two values carry the painting: some layering, little range.")
    lines.append(f"Contrast is {_contrast(sheet.darkest)}: the darkest tenth of the paint reaches {_percent(sheet.darkest)}.")
    if sheet.palette:
        colours = [f"{name} ({_percent(share)})" for name, share in sheet.palette]
        lines.append(f"Palette: mostly {colours[0]}" + (f", with {_listed(colours[1:])}." if colours[1:] else "."))
    return lines


def _palette(pixels: np.ndarray, shown: int = 3, least: float = 0.05) -> tuple[tuple[str, float], ...]:
    """The few colours that hold the most paint, named simply."""
    names = _colour_names(pixels)
    found, counts = np.unique(names, return_counts=True)
    shares = sorted(zip(found.tolist(), (counts / counts.sum()).tolist(), strict=True), key=lambda item: (-item[1], item[0]))
    return tuple((name, share) for name, share in shares[:shown] if share >= least)


def _colour_names(pixels: np.ndarray) -> np.ndarray:
    """One plain colour name per RGB pixel (N x 3, 0..255), from its hue, saturation and value."""
    rgb = pixels.astype(np.float64) / 255
    high, low = rgb.max(axis=1), rgb.min(axis=1)
    chroma = high - low
    saturation = chroma / np.where(high > 0, high, 1)
    r, g, b = rgb.T
    safe = np.where(chroma > 0, chroma, 1)
    hue = (
        np.select(
            [high == r, high == g],
            [((g - b) / safe) % 6, (b - r) / safe + 2],
            (r - g) / safe + 4,
        )
        * 60
    )
    named = np.full(len(rgb), "red", dtype=object)
    for upper, name in reversed(HUES):
        named[hue < upper] = name
    brownish = (hue >= 10) & (hue < 50) & (high < 0.6)
    named[brownish] = "brown"
    # A pale wash has little saturation but a clear hue: only a pixel with almost no chroma is a neutral.
    grey = (chroma < 0.06) | ((saturation < 0.1) & (high < 0.85))
    named[grey] = np.where(high[grey] < 0.25, "black", np.where(high[grey] > 0.85, "white", "grey"))
    named[(~grey) & (high < 0.2)] = "black"
    return named.astype(str)


def _ground(rgb: np.ndarray, mask: np.ndarray) -> str | None:
    """The paper's colour when it is not white (a sketch that lays a background), else None."""
    paper = rgb[~mask]
    if paper.size == 0:
        return None
    name = str(_colour_names(np.median(paper, axis=0).reshape(1, 3))[0])
    return None if name == "white" else name


def _located(message: str, line: int | None) -> str:
    return f"{message} (line {line})" if line is not None else message


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _strength(darkness: float) -> str:
    for upper, word in ((0.15, "very pale"), (0.3, "pale"), (0.5, "of middle strength"), (0.7, "strong")):
        if darkness < upper:
            return word
    return "very dark"


def _contrast(darkest: float) -> str:
    return "low" if darkest < 0.3 else "moderate" if darkest < 0.6 else "high"
