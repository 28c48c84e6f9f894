"""The slope behind "the reward trends up", against numpy's own least squares."""

import numpy as np
import pytest

from watercolour_studio.checks.trend import linear_trend, t_975


def test_slope_and_interval_match_numpy():
    rng = np.random.default_rng(3)
    steps = np.arange(1, 13, dtype=float)
    rewards = 0.2 + 0.03 * steps + rng.normal(0, 0.05, steps.size)
    (slope, _), covariance = np.polyfit(steps, rewards, 1, cov="unscaled")
    residual = rewards - np.polyval([slope, _], steps)
    stderr = np.sqrt(covariance[0, 0] * (residual @ residual) / (steps.size - 2))
    trend = linear_trend(list(steps), list(rewards))
    assert trend.slope == pytest.approx(slope)
    assert trend.stderr == pytest.approx(stderr)
    assert trend.low == pytest.approx(slope - 2.228 * stderr)  # t(0.975, 10 df)
    assert trend.low > 0 and trend.points == 12


def test_noise_without_a_trend_has_an_interval_across_zero():
    rewards = [0.41, 0.52, 0.38, 0.55, 0.40, 0.49, 0.44, 0.37]
    trend = linear_trend([float(step) for step in range(1, 9)], rewards)
    assert trend.low < 0 < trend.high


def test_two_points_give_no_slope():
    assert linear_trend([1.0, 2.0], [0.1, 0.9]) is None


@pytest.mark.parametrize(("df", "expected"), [(1, 12.706), (4, 2.776), (11, 2.228), (29, 2.060), (500, 1.960)])
def test_t_quantiles_err_on_the_wide_side(df, expected):
    assert t_975(df) == expected


def test_a_slope_within_groups_matches_numpy_with_one_intercept_per_group():
    rng = np.random.default_rng(5)
    steps = np.arange(1, 13, dtype=float)
    groups = ["fern" if step % 3 else "fox" for step in steps]
    levels = np.array([0.8 if group == "fern" else 0.2 for group in groups])
    rewards = levels + 0.02 * steps + rng.normal(0, 0.03, steps.size)
    design = np.column_stack([steps, [g == "fern" for g in groups], [g == "fox" for g in groups]]).astype(float)
    coefficients, residual, *_ = np.linalg.lstsq(design, rewards, rcond=None)
    df = steps.size - 3
    stderr = np.sqrt(residual[0] / df * np.linalg.inv(design.T @ design)[0, 0])
    trend = linear_trend(list(steps), list(rewards), groups)
    assert trend.slope == pytest.approx(coefficients[0])
    assert trend.stderr == pytest.approx(stderr)
    assert trend.low == pytest.approx(coefficients[0] - t_975(df) * stderr)
    assert trend.points == 12


def test_a_group_of_one_point_is_left_out():
    with_one = linear_trend([1.0, 2.0, 3.0, 4.0, 5.0], [0.1, 0.2, 0.35, 0.4, 9.0], ["a", "a", "a", "a", "b"])
    without = linear_trend([1.0, 2.0, 3.0, 4.0], [0.1, 0.2, 0.35, 0.4])
    assert with_one == without
