"""Named colour palettes: paper, a pale-to-deep petal ramp, the flower's eye, and the greens.

A colour word in the subject ("a violet flower", "pink hibiscus") picks its palette; otherwise
the seed does. Greens are chosen separately, so one palette appears with several foliages.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Palette:
    name: str
    words: tuple[str, ...]  # colour words in a subject that choose this palette
    papers: tuple[str, ...]  # background colours
    ground: str  # the pale wash the subject sits on
    petal: tuple[str, str, str]  # pale wash, glaze, shaded edge
    eye: tuple[str, str, str]  # veins and column, eye, throat
    pollen: str


@dataclass(frozen=True)
class Greens:
    name: str
    light: str
    dark: str
    stem: str


PALETTES = {
    p.name: p
    for p in (
        Palette("peach", ("peach", "apricot", "orange"), ("#f6f1e7", "#f8f3ea"), "#e9dcc4",
                ("#f7a578", "#f58d62", "#e2573f"), ("#c9435f", "#a11d45", "#4a0820"), "#eea41c"),
        Palette("coral", ("coral", "salmon"), ("#f7f2e8", "#f4eee2"), "#eed8cc",
                ("#f58e7a", "#ef6f5e", "#d4443c"), ("#b8324a", "#8c1230", "#450615"), "#f2b632"),
        Palette("violet", ("violet", "purple", "lilac", "lavender"), ("#f4f2ee", "#f1efea"), "#dcd6e6",
                ("#b99fe0", "#9b7fd1", "#6b4fa8"), ("#5a3a8c", "#3a2266", "#1a0d2e"), "#f0c83c"),
        Palette("rose", ("rose", "pink"), ("#f8f2ee", "#f6f0e9"), "#ecd9dc",
                ("#f2a0b8", "#ec86a4", "#cf4f7a"), ("#a3264f", "#741235", "#3f0a1d"), "#f4c542"),
        Palette("lemon", ("lemon", "yellow", "gold", "golden"), ("#f5f3ec", "#f7f4ea"), "#e4e6cc",
                ("#f7dc6a", "#f2c94c", "#e0a526"), ("#c0702a", "#8a4516", "#4a2208"), "#b5561c"),
        Palette("indigo", ("indigo", "blue", "cornflower"), ("#f3f3ef", "#f0f1ec"), "#d8e0e8",
                ("#93b3e8", "#6f95d6", "#3f63b0"), ("#2c3f80", "#1b2756", "#0e1530"), "#f5d04a"),
        Palette("crimson", ("crimson", "red", "scarlet"), ("#f6f1e7", "#f5efe4"), "#ead6cf",
                ("#ec8585", "#dd4f4f", "#b0232f"), ("#7d1020", "#520814", "#2a040a"), "#f3c13a"),
    )
}  # fmt: skip

GREENS = (
    Greens("sage", "#8fb573", "#4f7a3a", "#4d7634"),
    Greens("spring", "#79a653", "#3f6f31", "#4f7a34"),
    Greens("olive", "#9aa55a", "#5f6b2c", "#5a6630"),
    Greens("teal", "#6fa88f", "#2f6b58", "#3c6e5a"),
)


def palette_in(subject: str) -> str | None:
    """The palette a colour word in the subject asks for, if any."""
    words = set(subject.lower().replace("-", " ").split())
    return next((p.name for p in PALETTES.values() if words & set(p.words)), None)
