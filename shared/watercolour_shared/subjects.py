"""What the policy is asked to paint: the training default, and the held-out sets `watercolour eval` paints.

A subject set is a text file, one subject per line (# starts a comment). It is named by its file and
identified by the hash of its subjects, so an eval's numbers always say which set they were measured on.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

# What a run paints when nobody says: the recipe's subject.
DEFAULT_SUBJECT = "a peach hibiscus"
# A subject is a few words; it is echoed in every prompt and observation, and the wire refuses a longer one.
MAX_SUBJECT_CHARS = 200
# The held-out set `watercolour eval` uses by default (24 subjects, none trained on).
EVAL_SUBJECTS_FILE = Path(__file__).parent / "data" / "eval-subjects-v1.txt"
# `make demo`'s smaller held-out set: every third subject of the default one (its header says why).
DEMO_EVAL_SUBJECTS_FILE = Path(__file__).parent / "data" / "eval-subjects-demo-v1.txt"


class SubjectsError(ValueError):
    """A subject set that cannot measure held-out painting: empty, repeated or trained-on subjects."""


@dataclass(frozen=True)
class SubjectSet:
    name: str
    subjects: tuple[str, ...]

    @property
    def sha256(self) -> str:
        return hashlib.sha256("\n".join(self.subjects).encode()).hexdigest()

    def shared_with(self, others: list[str]) -> list[str]:
        """This set's subjects that `others` names too, whatever their case and spacing."""
        known = {normal_subject(subject) for subject in others}
        return [subject for subject in self.subjects if normal_subject(subject) in known]

    def held_out_from(self, trained: list[str]) -> SubjectSet:
        """This set, or SubjectsError naming every subject it shares with `trained`."""
        if shared := self.shared_with(trained):
            raise SubjectsError(f"{self.name}: trained-on subjects are not held out: {', '.join(shared)}")
        return self


def load_subjects(path: Path = EVAL_SUBJECTS_FILE) -> SubjectSet:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise SubjectsError(f"cannot read subjects from {path}: {error}") from None
    subjects = tuple(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#"))
    if not subjects:
        raise SubjectsError(f"{path}: no subjects")
    if long := too_long(subjects):
        raise SubjectsError(f"{path}: {long}")
    seen: set[str] = set()
    repeated = [subject for subject in subjects if normal_subject(subject) in seen or seen.add(normal_subject(subject))]
    if repeated:
        raise SubjectsError(f"{path}: subjects repeated: {', '.join(repeated)}")
    return SubjectSet(Path(path).stem, subjects)


def too_long(subjects) -> str | None:
    """Why some of `subjects` cannot be painted (longer than the wire takes), or None."""
    long = [subject[:40] + "..." for subject in subjects if len(subject) > MAX_SUBJECT_CHARS]
    return f"subjects over {MAX_SUBJECT_CHARS} characters: {', '.join(long)}" if long else None


def normal_subject(subject: str) -> str:
    """The form two spellings of one subject share: lower case, single spaces."""
    return " ".join(subject.lower().split())
