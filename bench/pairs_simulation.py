"""A simulation, not a measurement: matched against all pairs where the true win rate is known, for the interval's
width and its coverage (how often the 95% interval holds the truth), which one real evaluation cannot give.

Each subject has B's advantage on it, drawn around a mean (subjects differ); each painting a quality around its
policy's level on that subject; the judge, in each order, prefers the painting whose quality plus its own noise is
higher, leaning towards the one shown first. Both orders for B is a win, for A a loss, split a tie, as eval scores
them. Matched pairs are the diagonal of the same S x S verdicts. Both intervals are eval's own (`subject_interval`,
a bootstrap over subjects), so a coverage near 95% under all pairs says resampling subjects keeps the correlated
pairs honest.
"""

from __future__ import annotations

import numpy as np

from watercolour_studio.eval.stats import subject_interval

PAINTING_SD = 1.0  # paintings of one policy and subject differ by this much
SUBJECT_SD = 0.5  # B's advantage varies by this much from subject to subject
JUDGE_SD = 0.5  # the judge's noise on each verdict
POSITION_BIAS = 0.3  # how much the judge favours the painting shown first
TRUTH_DRAWS = 1_000_000


def scores(rng: np.random.Generator, effect: float, shape: tuple[int, ...], samples: int) -> np.ndarray:
    """B's score (1, 0.5, 0) for every A sample (axis -2) against every B sample (axis -1) of each subject."""
    advantage = rng.normal(effect, SUBJECT_SD, (*shape, 1, 1))
    a = rng.normal(0.0, PAINTING_SD, (*shape, samples, 1))
    b = advantage + rng.normal(0.0, PAINTING_SD, (*shape, 1, samples))
    gap = b - a
    b_second = gap - POSITION_BIAS + rng.normal(0.0, JUDGE_SD, gap.shape) > 0  # A shown first
    b_first = gap + POSITION_BIAS + rng.normal(0.0, JUDGE_SD, gap.shape) > 0
    return (b_second.astype(float) + b_first) / 2


def coverage(effect: float, subjects: int, samples: int, repeats: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    truth = float(scores(rng, effect, (TRUTH_DRAWS,), 1).mean())
    drawn = scores(rng, effect, (repeats, subjects), samples)
    paired = {"matched": np.diagonal(drawn, axis1=-2, axis2=-1), "all": drawn.reshape(repeats, subjects, -1)}
    found = {}
    for pairs, values in paired.items():
        intervals = [subject_interval(rep.tolist()) for rep in values]
        found[pairs] = {
            "mean_width": round(float(np.mean([i.high - i.low for i in intervals])), 4),
            "coverage": round(float(np.mean([i.low <= truth <= i.high for i in intervals])), 3),
            "estimate_sd": round(float(np.std([i.mean for i in intervals])), 4),
        }
    return {"effect": effect, "true_win_rate": round(truth, 4), **found}


def simulate(subjects: int, samples: int, repeats: int = 2000, seed: int = 0) -> dict:
    model = {"painting_sd": PAINTING_SD, "subject_sd": SUBJECT_SD, "judge_sd": JUDGE_SD, "position_bias": POSITION_BIAS}
    runs = [coverage(effect, subjects, samples, repeats, seed) for effect in (0.0, 0.8)]
    return {"kind": "simulation", "subjects": subjects, "samples": samples, "repeats": repeats, "model": model, "runs": runs}
