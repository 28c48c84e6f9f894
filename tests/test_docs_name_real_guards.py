"""The docs name the tests that guard each claim (docs/map.md's "Guard:" lines, sandbox.md's tables): every
`tests/FILE.py::test_name` they name must exist (a name cut short with `...` is a prefix), and the map's claims
checked here must still be true of the code. The map once said the demo's warm-start key did not hash the prompt,
for months after 0df8c9f made it do so."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
REFERENCE = re.compile(r"(tests/[\w/]+\.py)::(\w+)(\.\.\.)?")


def references() -> list[tuple[str, str, bool]]:
    return sorted({match.groups() for doc in DOCS for match in REFERENCE.finditer(doc.read_text(encoding="utf-8"))})


@pytest.mark.parametrize(("path", "name", "cut"), references(), ids=lambda value: str(value))
def test_every_test_a_doc_names_exists(path, name, cut):
    source = ROOT / path
    assert source.is_file(), f"{path} does not exist"
    defined = re.findall(r"^(?:async )?def (test\w*)|^class (Test\w*)", source.read_text(encoding="utf-8"), re.MULTILINE)
    names = {a or b for a, b in defined}
    assert any(found.startswith(name) for found in names) if cut else name in names, f"{path} has no {name}"


def test_the_map_says_the_warm_start_key_hashes_the_prompts():
    """tests/demo/test_warm_start_key.py::test_a_change_to_the_prompts_is_a_new_key proves the code; this, the map."""
    text = " ".join((ROOT / "docs" / "map.md").read_text(encoding="utf-8").split())
    said = [sentence for sentence in re.split(r"(?<=[.:])\s", text) if "warm_start.py" in sentence]
    assert said and not [s for s in said if re.search(r"\bnot hash|\bby hand\b", s)], said
    assert "test_a_change_to_the_prompts_is_a_new_key" in text
