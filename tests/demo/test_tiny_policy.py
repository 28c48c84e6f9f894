"""The tiny policy's whole-line tokenizer, trained on generated sketches."""

import re

import pytest

from watercolour_harness.sketchgen import corpus
from watercolour_harness.tiny_policy import build_tokenizer

SUBJECTS = ("a peach hibiscus", "a violet anemone")


@pytest.fixture(scope="module")
def sketches() -> list[str]:
    return [sketch for subject in SUBJECTS for sketch in corpus(subject, 40)]


@pytest.fixture(scope="module")
def tokenizer(sketches):
    return build_tokenizer(sketches, vocab_size=4096, whole_lines=True)  # the warm start's


def _pieces(tokenizer, text: str) -> list[str]:
    return [tokenizer.decode([token]) for token in tokenizer(text, add_special_tokens=False)["input_ids"]]


def test_no_token_runs_across_a_line_end_or_a_quoted_strings_edge(tokenizer, sketches):
    for sketch in sketches[::10]:
        spans = tokenizer(sketch, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        strings = [match.span() for match in re.finditer(r"'[^'\n]*'", sketch)]
        assert strings
        for start, end in spans:
            assert "\n" not in sketch[start : end - 1], sketch[start:end]
            for first, last in strings:
                inside, apart = first <= start and end <= last, end <= first or last <= start
                assert inside or apart, sketch[start:end]


def test_a_colour_seen_in_training_is_one_token_and_a_whole_line_can_be_one(tokenizer):
    assert _pieces(tokenizer, "'#b99fe0'") == ["'#b99fe0'"]
    assert _pieces(tokenizer, "  brush.endShape(CLOSE);\n") == ["  brush.endShape(CLOSE);\n"]


def test_the_tokenizer_gives_back_exactly_the_text(tokenizer, sketches):
    ids = tokenizer(sketches[0], add_special_tokens=False)["input_ids"]
    assert tokenizer.decode(ids) == sketches[0]
