"""Means with 95% intervals from a bootstrap over subjects.

A policy's samples of one subject share its difficulty, so they are not independent draws: resampling
whole subjects (not paintings) keeps that, and the interval widens when subjects disagree. The same holds
for the head-to-head under all pairs, where each painting is in S of its subject's S x S comparisons: those
are correlated, and resampling whole subjects keeps them together, so more comparisons narrow the interval
only as far as they make each subject's mean surer, never by counting a painting S times as independent.
The bootstrap's own seed is fixed, so the same measurements always give the same interval.
"""

from __future__ import annotations

import numpy as np

from watercolour_shared.run_dir.evaluation import Interval

RESAMPLES = 2000
BOOTSTRAP_SEED = 0


def subject_interval(values_by_subject: list[list[float]]) -> Interval:
    """The mean over every value, and the 2.5th and 97.5th percentiles of the mean over resampled subjects."""
    groups = [np.asarray(values, dtype=np.float64) for values in values_by_subject if values]
    count = sum(len(group) for group in groups)
    if not count:
        return Interval(mean=None, low=None, high=None, n=0)
    sums = np.array([group.sum() for group in groups])
    sizes = np.array([len(group) for group in groups])
    mean = float(sums.sum() / sizes.sum())
    if len(groups) < 2:
        return Interval(mean=mean, low=None, high=None, n=count)
    picks = np.random.default_rng(BOOTSTRAP_SEED).integers(0, len(groups), size=(RESAMPLES, len(groups)))
    means = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(mean=mean, low=float(low), high=float(high), n=count)
