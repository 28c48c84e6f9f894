"""The reward of an episode with revisions (docs/revisions.md): the last painting's, plus alpha x (last - first);
None when our infrastructure lost any painting; a gate failure a real 0. And the environment's rubric that keeps it."""

from __future__ import annotations

import pytest

from watercolour_env.revisions import RevisionRubric, Turn
from watercolour_shared.reward import revision_reward


@pytest.mark.parametrize(
    ("turns", "bonus", "expected"),
    [
        ([0.7], 0.0, 0.7),  # one painting is its own reward, exactly: an episode without revisions is unchanged
        ([0.7], 2.0, 0.7),
        ([0.2, 0.9, 0.5], 0.0, 0.5),  # the last painting counts, not the best
        ([0.2, 0.9, 0.5], 0.5, 0.5 + 0.5 * (0.5 - 0.2)),
        ([0.8, 0.4], 1.0, 0.4 - 0.4),  # a worse revision costs: the bonus is negative
        ([0.0, 0.6], 1.0, 1.2),  # a first painting that failed the gate is a real 0
        ([0.6, 0.0], 0.0, 0.0),  # and so is a last one
    ],
)
def test_the_last_painting_counts_with_the_improvement_bonus(turns, bonus, expected):
    assert revision_reward(turns, bonus) == pytest.approx(expected)


@pytest.mark.parametrize("turns", [[None, 0.6], [0.6, None], [0.3, None, 0.9], [None]])
@pytest.mark.parametrize("bonus", [0.0, 1.0])
def test_a_painting_our_infrastructure_lost_makes_the_episode_none_never_zero(turns, bonus):
    assert revision_reward(turns, bonus) is None


def test_an_episode_without_a_painting_has_no_reward_to_compute():
    with pytest.raises(ValueError, match="at least one painting"):
        revision_reward([])


def test_the_rubric_answers_none_until_the_last_turn_then_the_episodes_reward():
    rubric = RevisionRubric()
    rubric.begin(bonus=0.5)
    assert rubric(None, Turn(total=0.2, done=False)) is None  # no reward mid-episode, not 0
    assert rubric(None, Turn(total=0.0, done=False)) is None
    assert rubric(None, Turn(total=0.6, done=True)) == pytest.approx(0.6 + 0.5 * 0.4)
    assert rubric.first_total == 0.2
    assert rubric.compute_step_rewards() == [None, None, pytest.approx(0.8)]
    rubric.begin(bonus=0.0)  # a new episode forgets the last one's paintings
    assert rubric.first_total is None
    assert rubric(None, Turn(total=None, done=False)) is None
    assert rubric(None, Turn(total=0.9, done=True)) is None
