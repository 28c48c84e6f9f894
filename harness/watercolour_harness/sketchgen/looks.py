"""How a sketch is painted, apart from what it paints: three qualities a person sees at a glance and the
demo's rewards tell apart, each decided by one line at the top of `draw()`.

- zoom: how much of the sheet is painted (the scene seen nearer, `translate(...); scale(Z);`);
- wash: how much pigment the first, pale layer holds (the petals' and leaves' first washes): faint, barely
  there shapes or clear ones;
- glaze: how much pigment every layer over it holds (glazes, shading, the eye, stamens): a light, airy
  painting or a deep, contrasty one.

The wash and glaze factors are one `const` line that every fill's opacity multiplies, and the zoom is one
transform line: a small policy copies a line far more surely than it rescales every number of a sketch, so
each quality is a choice it can make in its first lines, and GRPO can learn which one the reward pays for.
`look_of` reads the choices back from a reply.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from random import Random

# The levels the generator draws from: two apiece, far apart, so that each quality is one clear choice whose
# gap in reward pays for itself over a GRPO step's noise (with three levels, the demo's 15 steps moved the mean
# zoom by a tenth). Paler than 0.7 a first wash is too faint to count as paint; above 1 the darkest glazes
# would pass full opacity.
ZOOMS = (1.0, 2.0)
WASHES = (0.7, 1.3)
GLAZES = (0.4, 1.0)
QUALITIES = ("zoom", "wash", "glaze")


@dataclass(frozen=True)
class Look:
    zoom: float = 1.0
    wash: float = 1.0
    glaze: float = 1.0

    @classmethod
    def drawn(cls, rng: Random) -> Look:
        """Each quality drawn on its own, uniformly from its levels: every combination is as likely."""
        return cls(rng.choice(ZOOMS), rng.choice(WASHES), rng.choice(GLAZES))


EVERY_LOOK = tuple(Look(*levels) for levels in itertools.product(ZOOMS, WASHES, GLAZES))

LOOK_LINE = re.compile(r"^\s*const wash = (?P<wash>\d+(?:\.\d+)?), glaze = (?P<glaze>\d+(?:\.\d+)?);", re.MULTILINE)
ZOOM_LINE = re.compile(r"^\s*translate\(-?\d+, -?\d+\); scale\((?P<zoom>\d+(?:\.\d+)?)\);", re.MULTILINE)


def look_of(reply: str) -> Look | None:
    """The look a reply chose, read from its lines; None when it never wrote the look line."""
    found = LOOK_LINE.search(reply)
    if found is None:
        return None
    zoom = ZOOM_LINE.search(reply)
    return Look(float(zoom["zoom"]) if zoom else 1.0, float(found["wash"]), float(found["glaze"]))
