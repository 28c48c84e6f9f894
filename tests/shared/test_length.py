import pytest

from watercolour_shared.length import length_score


@pytest.mark.parametrize(
    ("tokens", "expected"),
    [(0, 0.0), (149, 0.0), (150, 0.0), (1575, 0.5), (3000, 1.0), (4500, 1.0), (6000, 1.0), (6001, 0.0)],
)
def test_length_term_follows_the_recipe(tokens, expected):
    assert length_score("x" * (tokens * 4)) == pytest.approx(expected)
