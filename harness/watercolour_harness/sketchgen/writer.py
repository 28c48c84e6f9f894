"""Writes the sketch text: the project's skeleton, then one block of brush calls per wash.

Only the allowed methods are ever written. Fill, bleed and texture are written when they
change, as a person would, so a run of same-coloured washes shares one brush.fill line.
Thin shapes (stems, midribs, a stamen) take a light texture: p5.brush's textured fill scatters
a long thin outline into a row of diamond-shaped smears.
Every opacity is written times the look's `wash` (a first, pale layer) or `glaze` (every layer over it), both
declared once at the top (looks.py).
Coordinates are whole pixels and parameters two decimals: compact text for a small model.
"""

from __future__ import annotations

from watercolour_harness.sketchgen.looks import Look
from watercolour_harness.sketchgen.shapes import Point

CANVAS = 600
VERTICES_PER_LINE = 6
THIN_TEXTURE = (0.2, 0.3)
PLAIN = Look()


def num(value: float) -> str:
    """A parameter with at most two decimals and no trailing zeros: 0.5, 0.35, 1."""
    return f"{value:.2f}".rstrip("0").rstrip(".")


def counted(count: tuple[int, int] | None) -> str:
    """`  // 3 of 7` after the third of seven like shapes. A small policy that must count its petals loses count
    and paints them until it runs out of tokens; with the count written, the next shape's is a copy plus one."""
    return "" if count is None else f"  // {count[0]} of {count[1]}"


def _px(value: float) -> int:
    return round(min(max(value, 0), CANVAS))


class SketchWriter:
    def __init__(self, title: str, paper: str, texture: tuple[float, float], look: Look = PLAIN):
        self.texture = self._texture = (round(texture[0], 2), round(texture[1], 2))
        self.lines = [
            f"// {title}",
            "function setup() {",
            "  createCanvas(600, 600, WEBGL);",
            "  brush.scaleBrushes(1.5);",
            "  angleMode(DEGREES);",
            "  noLoop();",
            "}",
            "",
            "function draw() {",
            "  translate(-width / 2, -height / 2);",
            f"  const wash = {num(look.wash)}, glaze = {num(look.glaze)};  // pigment: first washes, layers over them",
            *_zoom_lines(look.zoom),
            f"  background('{paper}');",
            "  brush.noStroke();",
            f"  brush.fillTexture({num(self.texture[0])}, {num(self.texture[1])});",
        ]
        self._fill: tuple[str, int, str] | None = None
        self._bleed: float | None = None

    def section(self, text: str) -> None:
        self.lines += ["", f"  // {text}"]

    def _brush(self, colour: str, alpha: float, bleed: float | None, texture: tuple[float, float], layer: str) -> None:
        """Writes the settings that change; a bleed of None keeps the current one. `layer`: the look's factor
        on the opacity, "wash" or "glaze"."""
        fill = (colour, round(alpha), layer)
        bleed = self._bleed if bleed is None else round(bleed, 2)
        settings = []
        if fill != self._fill:
            settings.append(f"brush.fill('{colour}', {fill[1]} * {layer});")
        if bleed != self._bleed:
            settings.append(f"brush.fillBleed({num(bleed)});")
        if texture != self._texture:
            settings.append(f"brush.fillTexture({num(texture[0])}, {num(texture[1])});")
        if settings:
            self.lines.append("  " + " ".join(settings))
        self._fill, self._bleed, self._texture = fill, bleed, texture

    def wash(
        self,
        points: list[Point],
        colour: str,
        alpha: float,
        bleed: float,
        curvature: float,
        thin: bool = False,
        first: bool = False,
        count: tuple[int, int] | None = None,
    ) -> None:
        """One translucent closed shape through `points`; `first`: a first, pale layer, not a glaze over one;
        `count`: (k, n) for the k-th of n like shapes, written beside it (see `counted`)."""
        self._brush(colour, alpha, bleed, THIN_TEXTURE if thin else self.texture, "wash" if first else "glaze")
        self.lines.append(f"  brush.beginShape({num(curvature)});{counted(count)}")
        calls = [f"brush.vertex({_px(x)}, {_px(y)});" for x, y in points]
        for i in range(0, len(calls), VERTICES_PER_LINE):
            self.lines.append("  " + " ".join(calls[i : i + VERTICES_PER_LINE]))
        self.lines.append("  brush.endShape(CLOSE);")

    def dot(
        self, x: float, y: float, r: float, colour: str, alpha: float, scribble: float, count: tuple[int, int] | None = None
    ) -> None:
        """A small round wash: pollen, stamen tips, the dark centre of an eye."""
        self._brush(colour, alpha, None, self._texture, "glaze")
        self.lines.append(f"  brush.circle({_px(x)}, {_px(y)}, {max(1, round(r))}, {num(scribble)});{counted(count)}")

    def text(self) -> str:
        return "\n".join([*self.lines, "", "  brush.noFill();", "}", ""])


def _zoom_lines(zoom: float) -> list[str]:
    """p5 transforms reach p5.brush's shapes: this enlarges everything drawn after it about the sheet's middle.
    Written at every zoom, 1 too: were zoom 1 no line, its sketches would go on to the `background` line, which
    each paper spells differently, so the choice of zoom 1 would be spread over many next lines, each one less
    likely than the single zoom-2 line. Sampling below temperature 1 sharpens every such share: a warm start
    that learned zoom 1 and 2 evenly painted close-ups in 75-88% of its first rollouts at GRPO's temperature 0.7."""
    shift = round(CANVAS / 2 * (1 - zoom))
    seen = "whole" if zoom == 1 else "nearer"
    return [f"  translate({shift}, {shift}); scale({num(zoom)});  // seen {seen}"]
