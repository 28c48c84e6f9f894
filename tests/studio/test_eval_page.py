"""The eval page as a reader sees it: an Evaluation with real paintings on disk, written to index.html and opened
from file:// in Debian's Chromium (the `page` fixture, which also fails the test if the page throws)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from watercolour_shared.judge.verdict import Verdict
from watercolour_shared.run_dir.evaluation import (
    Evaluation,
    HeadToHead,
    Interval,
    Match,
    Painting,
    PolicySummary,
    SubjectRow,
    SubjectSetInfo,
)
from watercolour_studio.eval.page import write_page

SUBJECTS = ["a blue iris", "a pear & its <shadow>", "a lighthouse on a cliff"]
SAMPLES = 2
HOSTILE = 'B\'s wash is softer <script>alert(1)</script> <img src=x onerror="window.injected=1"> & bleeds'
SHA = "0123456789abcdef" * 4


def painting(out: Path, label: str, subject: int, sample: int, failed: bool = False) -> Painting:
    folder = Path("paintings") / label / f"{subject:02d}-subject"
    (out / folder).mkdir(parents=True, exist_ok=True)
    js = folder / f"sample-{sample}.js"
    (out / js).write_text("brush.rect(0, 0, 10, 10);\n")
    if failed:
        return Painting(sample=sample, seed=sample, status="failed", js=str(js), violations=["E_NO_BRUSH", "<b>bold</b>"])
    png = folder / f"sample-{sample}.png"
    colour = (40 * subject, 120 if label == "A" else 200, 60 * sample)
    Image.new("RGB", (24, 24), colour).save(out / png)
    return Painting(
        sample=sample,
        seed=sample,
        status="passed",
        png=str(png),
        js=str(js),
        reward={"gate": 1.0, "length": 0.9, "judge": 0.5, "hps": 0.3},
        hps_scorer="heuristic",
    )


def summary(label: str, source: str) -> PolicySummary:
    def interval(mean: float | None) -> Interval:
        return Interval(mean=mean, low=None if mean is None else mean * 0.8, high=None if mean is None else mean, n=3)

    return PolicySummary(
        label=label,
        source=source,
        paintings=SAMPLES * len(SUBJECTS),
        unavailable=0,
        gate_pass_rate=interval(0.83 if label == "A" else 1.0),
        violations={"E_NO_BRUSH": 1} if label == "A" else {},
        length_chars=interval(412.0),
        length_term=interval(0.9),
        hps=interval(0.3),
        hps_scorer="heuristic",
        judge=interval(0.5),
        diversity=interval(0.2),
        distinct_code=interval(None),
    )


def evaluation(out: Path) -> Evaluation:
    rows = []
    for index, subject in enumerate(SUBJECTS):
        a = [painting(out, "A", index, sample, failed=(index, sample) == (0, 1)) for sample in range(SAMPLES)]
        b = [painting(out, "B", index, sample) for sample in range(SAMPLES)]
        matches = [
            Match(
                sample=sample,
                outcome="win",
                why="B won in both orders",
                a_first=Verdict(winner="B", reason=HOSTILE if (index, sample) == (1, 0) else "B is calmer"),
                b_first=Verdict(winner="A", reason="the first one glows"),
            )
            for sample in range(SAMPLES)
        ]
        rows.append(SubjectRow(subject=subject, a=a, b=b, matches=matches, diversity={"A": 0.2, "B": 0.25}))
    return Evaluation(
        created="2025-01-01T00:00:00+00:00",
        subjects=SubjectSetInfo(name="held-out", sha256=SHA, count=len(SUBJECTS)),
        samples=SAMPLES,
        seed=7,
        judge="offline-judge",
        training_judge="offline-judge",
        same_judge=True,
        policies={"A": summary("A", "runs/base <start>"), "B": summary("B", "runs/trained/weights")},
        head_to_head=HeadToHead(
            win_rate=Interval(mean=0.625, low=0.5, high=0.75, n=3),
            wins=6,
            losses=0,
            ties=0,
            left_out=0,
            tie_share=0.0,
            better=False,
        ),  # fmt: skip
        diversity_ratio=1.25,
        warnings=["B was trained by offline-judge, the judge of this head-to-head: pass --judge a held-out one"],
        rows=rows,
    )


async def test_the_page_shows_the_numbers_every_painting_and_hostile_reasons_as_text(tmp_path, page):
    out = tmp_path / "eval"
    out.mkdir()
    path = write_page(out, evaluation(out))
    assert path == out / "index.html"
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    await page.goto(path.as_uri())
    await page.wait_for_load_state("load")

    assert await page.inner_text(".win-rate") == "62%"
    assert await page.inner_text(".win-rate-interval") == "[50%, 75%]"
    assert await page.get_attribute(".better", "data-better") == "false"
    assert await page.inner_text(".subject-sha") == SHA[:12]
    assert await page.get_attribute(".same-judge", "data-same-judge") == "true"
    assert "offline-judge" in await page.inner_text(".warnings") and await page.locator(".warning").is_visible()

    sections = page.locator("section.subject")
    assert await sections.count() == len(SUBJECTS)
    assert await sections.nth(1).locator(".subject-name").inner_text() == SUBJECTS[1]  # escaped, shown as written
    widths = await page.eval_on_selector_all("img", "images => images.map(image => image.naturalWidth)")
    assert len(widths) == 2 * SAMPLES * len(SUBJECTS) - 1 and all(width == 24 for width in widths), widths

    failed = sections.nth(0).locator('.side[data-policy="A"] figure[data-status="failed"]')
    assert await failed.count() == 1 and await failed.locator("img").count() == 0
    assert await failed.locator(".missing .status").inner_text() == "failed"
    assert await failed.locator(".violation").all_inner_texts() == ["E_NO_BRUSH", "<b>bold</b>"]

    assert await page.locator('li.match[data-outcome="win"]').count() == SAMPLES * len(SUBJECTS)
    hostile = sections.nth(1).locator('li.match[data-sample="0"] .verdict[data-order="a_first"]')
    assert await hostile.locator(".reason").inner_text() == HOSTILE
    assert await hostile.get_attribute("data-winner") == "B"
    assert await sections.nth(1).locator('.verdict[data-order="b_first"]').first.get_attribute("data-winner") == "B"
    assert await page.locator("script").count() == 0 and await page.locator('img[src="x"], b').count() == 0
    assert await page.evaluate("window.injected") is None and not dialogs

    hps = page.locator('tr[data-metric="hps"]')
    assert "heuristic" in await hps.locator("th").inner_text()
    assert "heuristic" in await hps.locator('td[data-policy="B"]').inner_text()
    assert await page.locator('tr[data-metric="gate_pass_rate"] td[data-policy="A"]').inner_text() == "83% [66%, 83%]"
    assert await page.locator('tr[data-metric="distinct_code"] td[data-policy="B"]').inner_text() == "—"
    assert await page.locator('th[data-policy="A"] .source').inner_text() == "runs/base <start>"
