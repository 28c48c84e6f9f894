"""The order eval paints in (studio/watercolour_studio/eval/schedule.py): replies one at a time in a fixed
order, the environment given the next subject while it draws one, never more than SUBJECTS_IN_FLIGHT, and a
failure that stops the rest. The environment here is a recorder in place of `render_subject`; eval against a
real one is tests/studio/test_eval.py."""

from __future__ import annotations

import asyncio

import pytest

from watercolour_studio.eval import schedule
from watercolour_studio.eval.schedule import SUBJECTS_IN_FLIGHT, paint_all

SUBJECTS = ("a blue iris", "a pear", "a lighthouse", "a fox")
SAMPLES = 2


class RecordingPolicy:
    """Writes a reply naming itself; records every write and whether another write was under way."""

    def __init__(self, label: str, log: list, writing: list[int]):
        self.label, self.log, self.writing = label, log, writing

    async def write(self, subject: str, sample: int, seed: int) -> str | None:
        self.writing[0] += 1
        self.log.append((self.label, subject, sample, self.writing[0]))
        await asyncio.sleep(0.01)
        self.writing[0] -= 1
        return f"{self.label}:{subject}:{sample}"


class RecordingEnvironment:
    """Stands in for render_subject: how many subjects were out at once, and what each got."""

    def __init__(self, fail_on: str | None = None):
        self.out = self.most_out = 0
        self.fail_on = fail_on
        self.finished: list[str] = []

    async def render_subject(self, env, written, subject, subject_index, seed, out, label):
        self.out += 1
        self.most_out = max(self.most_out, self.out)
        try:
            await asyncio.sleep(0.05)
            if subject == self.fail_on:
                raise RuntimeError("the environment broke")
            self.finished.append(f"{label}:{subject}")
            return list(written)
        finally:
            self.out -= 1


def paint(monkeypatch, tmp_path, environment: RecordingEnvironment):
    log, writing = [], [0]
    monkeypatch.setattr(schedule, "render_subject", environment.render_subject)
    policies = {label: RecordingPolicy(label, log, writing) for label in ("A", "B")}
    done = asyncio.run(paint_all(None, policies, SUBJECTS, SAMPLES, 7, tmp_path, lambda n: None))
    return done, log


def test_replies_are_written_one_at_a_time_in_order_while_the_environment_renders(monkeypatch, tmp_path):
    environment = RecordingEnvironment()
    (paintings, seconds, _turns), log = paint(monkeypatch, tmp_path, environment)

    assert [entry[:3] for entry in log] == [
        (label, subject, sample) for label in ("A", "B") for subject in SUBJECTS for sample in range(SAMPLES)
    ]
    assert {entry[3] for entry in log} == {1}, "two replies were written at once"
    assert environment.most_out == SUBJECTS_IN_FLIGHT
    for label in ("A", "B"):
        assert paintings[label] == [[f"{label}:{s}:{k}" for k in range(SAMPLES)] for s in SUBJECTS]
    assert set(seconds) == {"write A", "write B", "render and score", "paint, writing and rendering overlapped"}
    # Eight subjects of 50 ms, two at a time, beside the writing: the environment's clock is about 200 ms.
    assert 0.15 <= seconds["render and score"] <= seconds["paint, writing and rendering overlapped"]


def test_a_failure_stops_every_other_subject(monkeypatch, tmp_path):
    environment = RecordingEnvironment(fail_on=SUBJECTS[1])
    with pytest.raises(RuntimeError, match="the environment broke"):
        paint(monkeypatch, tmp_path, environment)
    assert len(environment.finished) < 2 * len(SUBJECTS) - 1
    assert environment.out == 0
