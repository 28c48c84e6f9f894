"""The sketch generator, judged by the project's own gate and renderer.

Every sketch of 200 seeds for each kind of subject must pass the static gate (as plain code and
as a model reply), call only allowed methods, be the same for a seed and different across seeds;
a few must also render in real Chromium and pass the whole gate.
"""

import asyncio
import difflib
import math
import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace

import pytest

from tests.conftest import fresh_seed
from watercolour_demo.corpus import Sketches
from watercolour_env.reply import extract_sketch
from watercolour_harness.sketchgen import KINDS, PALETTES, TITLE, as_reply, corpus, generate_sketch, subject_kind
from watercolour_harness.sketchgen.looks import EVERY_LOOK, GLAZES, WASHES, ZOOMS, Look, look_of
from watercolour_shared.length import length_score
from watercolour_shared.paint import BLANK_BELOW

# One subject per kind: hibiscus, the generic-flower fallback, leaves, stems with buds.
SUBJECTS = ("a peach hibiscus", "a tulip", "a sprig of leaves", "stems with buds")
SEEDS = 200
SHAPE = re.compile(r"brush\.beginShape\([^)]*\);(.*?)brush\.endShape", re.S)
VERTEX = re.compile(r"brush\.vertex\((-?\d+), (-?\d+)\)")
SKELETON_CALLS = {"setup", "draw", "createCanvas", "angleMode", "noLoop", "translate", "scale", "background"}


@pytest.fixture(scope="module")
def sketches() -> dict[str, list[str]]:
    return {subject: list(corpus(subject, SEEDS)) for subject in SUBJECTS}


def test_every_sketch_passes_the_static_gate_as_code_and_as_a_reply(services, sketches):
    failed, gated = [], 0
    for subject, codes in sketches.items():
        for seed, code in enumerate(codes):
            # Every sketch as plain code; every tenth also inside a model reply (the wrapper is the same for all).
            for text in (code, as_reply(code, subject, seed))[: 2 if seed % 10 == 0 else 1]:
                _, violations = services.pipeline.gate(text)
                gated += 1
                if violations:
                    failed.append((subject, seed, [v.code.value for v in violations]))
    assert failed == [], f"{len(failed)} of {gated} failed, first: {failed[:3]}"


def test_only_allowed_methods_and_the_skeleton_are_called(services, sketches):
    everything = "\n".join(code for codes in sketches.values() for code in codes)
    assert set(re.findall(r"\bbrush\.(\w+)\(", everything)) <= services.rules.allowed_methods  # any of them, nothing else
    bare = set(re.findall(r"(?<![.\w])([A-Za-z_]\w*)\(", everything))
    assert bare == SKELETON_CALLS


def test_no_outline_is_flat_or_pushed_off_the_sheet(sketches):
    """p5.brush's bleed smears a flat outline (say, a vein whose base lies along it) across the sheet;
    an outline clamped to the edge is squashed. Only stems reach the bottom edge, where they grow from."""
    for subject, codes in sketches.items():
        for seed, code in enumerate(codes):
            for body in SHAPE.findall(code):
                points = [(int(x), int(y)) for x, y in VERTEX.findall(body)]
                assert _mean_width(points) >= 1.5, (subject, seed, points)
                assert all(0 < x < 600 and 0 < y <= 600 for x, y in points), (subject, seed, points)


def _mean_width(points: list[tuple[int, int]]) -> float:
    area = abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True))) / 2
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return area / math.hypot(max(xs) - min(xs), max(ys) - min(ys))


def test_a_look_is_its_lines_at_the_top_and_changes_nothing_else():
    plain = generate_sketch("a peach hibiscus", 9, look=Look(1, 1, 1)).splitlines()
    near = generate_sketch("a peach hibiscus", 9, look=Look(2, 0.7, 0.4)).splitlines()
    changed = [line for line in difflib.ndiff(plain, near) if line[:1] in "+-"]
    assert changed == [
        "-   const wash = 1, glaze = 1;  // pigment: first washes, layers over them",
        "+   const wash = 0.7, glaze = 0.4;  // pigment: first washes, layers over them",
        "-   translate(0, 0); scale(1);  // seen whole",
        "+   translate(-300, -300); scale(2);  // seen nearer",
    ]
    assert look_of(as_reply("\n".join(near), "a peach hibiscus")) == Look(2, 0.7, 0.4)
    assert look_of("I cannot paint that.") is None


def test_every_fill_carries_the_looks_factor_and_first_washes_come_first(sketches):
    for codes in sketches.values():
        for code in codes[:20]:
            fills = re.findall(r"brush\.fill\('#[0-9a-f]{6}', \d+ \* (\w+)\);", code)
            assert len(fills) == code.count("brush.fill(") and set(fills) <= {"wash", "glaze"}
            assert fills[0] == "wash" and "glaze" in fills  # a first, pale layer, then glazes over it


def test_the_warm_start_draws_every_level_of_every_quality(sketches):
    looks = [look_of(code) for codes in sketches.values() for code in codes]
    for name, levels in (("zoom", ZOOMS), ("wash", WASHES), ("glaze", GLAZES)):
        drawn = Counter(getattr(look, name) for look in looks)
        assert set(drawn) == set(levels) and min(drawn.values()) > len(looks) / len(levels) / 2, (name, drawn)


def test_each_quality_is_chosen_in_one_line_spelled_one_way_per_level(sketches):
    """A level spelled in many ways (zoom 1 once wrote no line, so its sketches went on to one of many
    `background` lines) is a share split over many next lines, and sampling below temperature 1 sharpens each
    part away: the warm start then painted close-ups in 75-88% of its first rollouts."""
    heads = Counter()
    for codes in sketches.values():
        for code in codes:
            lines = code.splitlines()
            start = lines.index("function draw() {")
            heads.update([tuple(lines[start + 2 : start + 4])])
    assert len(heads) == len(EVERY_LOOK), heads


async def test_the_rewards_tell_each_quality_apart(services):
    """Each quality's top level paints more of the sheet than its bottom one, the others held: the demo's judge
    and scorer read how much is painted (their optimum is a third of the sheet and more), so they tell them apart."""
    middle = Look(1, 1, 0.7)
    for name, (low, high) in (("zoom", ZOOMS), ("wash", WASHES), ("glaze", GLAZES)):
        codes = [
            generate_sketch("a peach hibiscus", 9, detail=0.3, paper_wash=False, look=replace(middle, **{name: level}))
            for level in (low, high)
        ]
        # One render seed for both: the brushes' texture alone moved a glaze level's coverage by a quarter between
        # seeds, more than the level does. One after the other: a zoomed sketch beside another render on 2 cores
        # nears the deadline.
        seed = fresh_seed()
        faint, strong = [await services.pipeline.run(code, seed) for code in codes]
        assert faint.passed and strong.passed
        assert strong.paint_fraction > 1.1 * faint.paint_fraction, (name, faint.paint_fraction, strong.paint_fraction)


def test_without_the_paper_wash_only_the_wash_is_left_out():
    seed = next(seed for seed in range(50) if "// Paper" in generate_sketch("a peach hibiscus", seed))
    washed = generate_sketch("a peach hibiscus", seed).splitlines()
    bare = generate_sketch("a peach hibiscus", seed, paper_wash=False).splitlines()
    start = washed.index("  // Paper: one soft wash for the subject to sit on.") - 1  # and the blank line before it
    end = next(i for i in range(start, len(washed)) if "endShape" in washed[i]) + 1

    def shapes(lines: list[str]) -> list[str]:  # brush settings are written when they change, so they may move
        return [line for line in lines if not line.startswith("  brush.fill")]

    assert shapes(bare) == shapes(washed[:start] + washed[end:])


def test_a_seed_always_gives_the_same_sketch():
    for subject in SUBJECTS:
        assert generate_sketch(subject, 17) == generate_sketch(subject, 17)
        assert generate_sketch(subject, 17, detail=1.3) == generate_sketch(subject, 17, detail=1.3)


def test_seeds_vary_layout_palette_paper_and_shapes(sketches):
    for subject, codes in sketches.items():
        assert len(set(codes)) == SEEDS
        headers = [TITLE.search(code) for code in codes]
        layouts = Counter(h["layout"] for h in headers)
        assert set(layouts) == set(KINDS[subject_kind(subject)].layouts) and min(layouts.values()) >= SEEDS / len(layouts) / 2
        palettes = {h["palette"] for h in headers}
        assert palettes == ({"peach"} if "peach" in subject else set(PALETTES))  # a colour word fixes the palette
        papers = {re.search(r"background\('(#\w+)'\)", code)[1] for code in codes}
        assert papers == {paper for name in palettes for paper in PALETTES[name].papers}
        # Neighbouring seeds share almost no outline: the variety is in the shapes, not only the colours.
        vertices = [set(re.findall(r"brush\.vertex\(\d+, \d+\);", code)) for code in codes]
        overlap = max(len(a & b) / len(a | b) for a, b in zip(vertices, vertices[1:], strict=False))
        assert overlap < 0.2


def test_a_colour_word_picks_the_palette_and_other_subjects_fall_back_to_a_flower():
    code = generate_sketch("a violet poppy", 3)
    assert TITLE.search(code)["palette"] == "violet" and PALETTES["violet"].petal[0] in code
    assert [subject_kind(s) for s in ("Hibiscus!", "a poppy", "fern leaves", "tall stems", "")] == [
        "hibiscus",
        "flower",
        "leaves",
        "stems",
        "flower",
    ]


def test_default_length_earns_the_length_term_and_detail_scales_it(sketches):
    scores = [length_score(code) for codes in sketches.values() for code in codes]
    assert min(scores) > 0.75 and sum(score >= 0.9 for score in scores) / len(scores) > 0.85
    lengths = [sum(len(generate_sketch(s, seed, detail=d)) for s in SUBJECTS for seed in range(20)) for d in (0.5, 1.0, 1.5)]
    assert lengths[0] < 0.85 * lengths[1] and lengths[2] > 1.15 * lengths[1]


def test_knobs_choose_and_bad_knobs_are_refused():
    code = generate_sketch("hibiscus", 5, palette="lemon", composition="pair")
    assert TITLE.search(code).group("layout", "palette") == ("pair", "lemon")
    for knobs in ({"palette": "beige"}, {"composition": "sprig"}, {"detail": 0}):
        with pytest.raises(ValueError):
            generate_sketch("hibiscus", 5, **knobs)


def test_a_hostile_subject_stays_inside_its_comment(services):
    code = generate_sketch("rose\nfetch('https://x.test'); /* `${eval}`", 1)
    assert code.splitlines()[0].startswith("// Rose fetch") and "\nfetch" not in code
    assert services.pipeline.gate(code)[1] == []


def test_the_reply_gives_back_exactly_the_sketch():
    code = generate_sketch("a coral hibiscus", 9)
    extracted = extract_sketch(as_reply(code, "a coral hibiscus", 9))
    assert extracted.code == code.rstrip("\n") and extracted.violation is None


def test_the_command_line_writes_the_generated_sketches(tmp_path):
    command = [sys.executable, "-m", "watercolour_harness.sketchgen", "--subject", "hibiscus", "--count", "3", "--seed", "40"]
    done = subprocess.run([*command, "--out", str(tmp_path)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hibiscus-00040.js", "hibiscus-00041.js", "hibiscus-00042.js"]
    assert (tmp_path / "hibiscus-00041.js").read_text() == generate_sketch("hibiscus", 41)
    refused = subprocess.run([*command, "--out", str(tmp_path), "--palette", "beige"], capture_output=True, text=True)
    assert refused.returncode == 2 and "unknown palette" in refused.stderr


async def test_sketches_render_in_chromium_and_pass_the_whole_gate(services):
    picks = [("a peach hibiscus", 0), ("a violet flower", 1), ("a sprig of leaves", 2), ("stems with buds", 3)]
    codes = [generate_sketch(subject, seed) for subject, seed in picks]
    results = await asyncio.gather(*(services.pipeline.run(code, fresh_seed()) for code in codes))
    for (subject, _), result in zip(picks, results, strict=True):
        assert result.passed and result.violations == [] and result.errors == [], (subject, result.violations, result.errors)
        # Clearly painted, not just over the blank line: the sparsest of 96 generated sketches painted 1.2% of
        # the sheet, and this pick of stems paints 2.0-3.0% over render seeds.
        assert result.paint_fraction > 2 * BLANK_BELOW, subject


def test_the_corpus_in_one_look_paints_the_same_scenes_in_that_look():
    sketches = Sketches(("a peach hibiscus", "a violet anemone"), "single", 0.3, False)
    drawn = sketches.replies(4, 11)
    close = Look(2, 1.3, 1)
    chosen = sketches.replies(4, 11, look=close)
    assert [look_of(reply) for _, reply in chosen] == [close] * 4
    assert len({look_of(reply) for _, reply in drawn}) > 1, "the seeds' own looks differ"
    for (subject, own), (same_subject, in_look) in zip(drawn, chosen, strict=True):
        assert subject == same_subject
        changed = [line for line in difflib.ndiff(own.splitlines(), in_look.splitlines()) if line[:1] in "+-"]
        assert all("const wash" in line or "scale(" in line for line in changed)


def test_the_warm_starts_replies_name_the_kind_they_paint_never_the_words_asked():
    subject = "a lantern by a window"
    asked, named = generate_sketch(subject, 4).splitlines(), generate_sketch(subject, 4, title="a flower").splitlines()
    assert [line for line in difflib.ndiff(asked, named) if line[:1] in "+-"] == [
        f"- {asked[0]}",
        f"+ {named[0]}",
    ] and named[0].startswith("// A flower in loose watercolour: ")
    (_, reply), (_, hibiscus) = Sketches((subject, "a peach hibiscus"), "single", 0.3, False).replies(2, 0)
    assert "lantern" not in reply and "// A flower in" in reply and "// A hibiscus in" in hibiscus


def test_every_run_of_like_shapes_in_a_bloom_is_counted_one_to_its_length(sketches):
    """A small policy that must count its petals loses count and paints them until it runs out of tokens:
    each shape of a run writes `// k of n`, so the next shape's count is the last one's plus one."""
    runs = 0
    for codes in sketches.values():
        for code in codes:
            counts = [tuple(map(int, found)) for found in re.findall(r"// (\d+) of (\d+)$", code, re.M)]
            while counts:
                length = counts[0][1]
                assert counts[:length] == [(k, length) for k in range(1, length + 1)], counts[:length]
                counts, runs = counts[length:], runs + 1
    assert runs >= SEEDS * 4  # every bloom counts its petals in three layers and its dots
