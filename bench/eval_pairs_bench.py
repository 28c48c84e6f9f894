"""Eval pairs benchmark: how B's win-rate interval with `--pairs all` compares with `--pairs matched`'s,
on real renders of the same paintings (docs/evaluation.md, "Pairs"). Prints one JSON document and writes it under
bench/results/.

Two policies that differ, served as OpenAI-compatible endpoints (bench/eval_bench.py's): A answers with the demo
generator's sketches in the look each seed draws (the mix the demo's warm start learns from), B with the generator's
sketches of other seeds in one look, zoomed in with full glazes over a pale first wash, which won 62% against the even
mix in bench/results/looks-2026-12-05.json. Each seed is one evaluation at the demo's closing size (its 8 held-out
subjects x 3 samples) through the demo's stack, judged by the offline judge twice into one folder: matched pairs, then
all pairs. The second must reuse the first's paintings: no reply asked for again (the folder has them), every render
and score from the environment's Redis cache, and the matched comparisons again as all pairs' diagonal; each is
checked and reported.

Matched pairs pair B's sample k with A's sample k, but any pairing of a subject's samples would do as well: the
samples are exchangeable. `matched_over_random_pairings` scores the same verdicts under random pairings of B's samples
(a matched evaluation each, taken from the all-pairs verdicts) to show how much of a matched result is the luck of
the pairing, which all pairs, their average, removes. One evaluation gives an interval, not how often such intervals
hold the truth: `simulation` (bench/pairs_simulation.py, labelled so) draws this size, and eval's default one, from a
model where the true win rate is known, for both modes' mean width and coverage.

    python bench/eval_pairs_bench.py [--seeds 1,2,3,4,5] [--samples 3] [--subjects FILE]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import numpy as np
from eval_bench import sketch_server, timed_eval
from pairs_simulation import simulate

from watercolour_harness import record
from watercolour_harness.sketchgen.looks import Look
from watercolour_harness.stack import LocalStack
from watercolour_shared.run_dir.evaluation import replies_file
from watercolour_shared.subjects import DEMO_EVAL_SUBJECTS_FILE, EVAL_SUBJECTS_FILE, load_subjects
from watercolour_studio.eval.head_to_head import SCORES
from watercolour_studio.eval.stats import subject_interval

B_LOOK = Look(zoom=2.0, wash=0.7, glaze=1.0)
B_SEEDS_FROM = 7919  # B paints other seeds than A: other compositions and palettes


def paintings(out: Path, evaluation: dict) -> dict[str, bytes]:
    return {p["png"]: (out / p["png"]).read_bytes() for row in evaluation["rows"] for p in row["a"] + row["b"] if p["png"]}


def diagonal(evaluation: dict) -> list[dict]:
    return [m for row in evaluation["rows"] for m in row["matches"] if m["sample"] == m["b_sample"]]


def measured(evaluation: dict, seconds: float) -> dict:
    match = evaluation["head_to_head"]
    rate = match["win_rate"]
    width = None if rate["low"] is None else round(rate["high"] - rate["low"], 4)
    counts = {name: match[name] for name in ("wins", "losses", "ties", "left_out")}
    return {"win_rate": rate, "width": width, **counts, "judge_calls": 2 * rate["n"], "s": round(seconds, 1)}


def over_pairings(crossed: dict, samples: int, draws: int = 1000) -> dict:
    """Matched evaluations of the same verdicts under `draws` random pairings of B's samples with A's, per subject."""
    rng = np.random.default_rng(0)
    grids = [{(m["sample"], m["b_sample"]): SCORES.get(m["outcome"]) for m in row["matches"]} for row in crossed["rows"]]
    found = []
    for _ in range(draws):
        picked = [[grid[(k, j)] for k, j in enumerate(rng.permutation(samples))] for grid in grids]
        found.append(subject_interval([[v for v in values if v is not None] for values in picked]))
    widths = [i.high - i.low for i in found if i.low is not None]
    return {
        "draws": draws,
        "win_rate_mean_sd": round(float(np.std([i.mean for i in found])), 4),
        "width_mean": round(float(np.mean(widths)), 4),
        "width_range": [round(min(widths), 4), round(max(widths), 4)],
    }


def one_seed(env_url: str, policies: tuple[str, str], out: Path, seed: int, samples: int, subjects: Path) -> dict:
    asked = (env_url, *policies, out, seed, samples, subjects)
    matched_s, matched = timed_eval(*asked, "--pairs", "matched")
    if matched["head_to_head"]["left_out"]:  # the stack failed, not a policy: no width to compare
        raise RuntimeError(f"seed {seed}: comparisons left out: {matched['warnings']}")
    replies = {label: replies_file(out, label).read_bytes() for label in ("A", "B")}
    all_s, crossed = timed_eval(*asked, "--pairs", "all")
    reused = {
        "replies": all(replies_file(out, label).read_bytes() == text for label, text in replies.items())
        and crossed["seconds"]["write A"] == crossed["seconds"]["write B"] == 0,
        "paintings": paintings(out, crossed) == paintings(out, matched),
        "matched_comparisons": diagonal(crossed) == diagonal(matched),
    }
    both = {"matched": measured(matched, matched_s), "all": measured(crossed, all_s)}
    ratio = both["all"]["width"] / both["matched"]["width"] if both["matched"]["width"] else None
    rendering = {
        pairs: evaluation["seconds"]["render and score"] for pairs, evaluation in (("matched", matched), ("all", crossed))
    }
    return {
        "seed": seed,
        **both,
        "width_all_over_matched": ratio and round(ratio, 3),
        "reused": reused,
        "render_and_score_s": rendering,
        "matched_over_random_pairings": over_pairings(crossed, samples),
    }


def main(seeds: list[int], samples: int, subjects: Path) -> dict:
    servers = [sketch_server(0), sketch_server(B_SEEDS_FROM, B_LOOK)]
    a, b = (f"{server.url}/v1#scripted" for server in servers)
    with tempfile.TemporaryDirectory(prefix="eval-pairs-") as scratch, LocalStack(Path(scratch) / "logs") as stack:
        runs = [one_seed(stack.env_url, (a, b), Path(scratch) / f"seed-{seed}", seed, samples, subjects) for seed in seeds]
    for server in servers:
        server.stop()
    widths = {pairs: [run[pairs]["width"] for run in runs if run[pairs]["width"] is not None] for pairs in ("matched", "all")}
    return {
        **record.header("eval-pairs"),
        "policies": {"A": "sketchgen, each seed's own look", "B": f"sketchgen, seeds from {B_SEEDS_FROM}, look {B_LOOK}"},
        "judge": "offline-judge",
        "subjects": str(subjects.name),
        "samples": samples,
        "seeds": runs,
        "mean_width": {pairs: round(statistics.mean(values), 4) for pairs, values in widths.items() if values},
        "every_reuse_held": all(all(run["reused"].values()) for run in runs),
        # at this run's size, and at eval's default one (its held-out set, 4 samples)
        "simulation": [
            simulate(len(load_subjects(held).subjects), k) for held, k in ((subjects, samples), (EVAL_SUBJECTS_FILE, 4))
        ],
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1,2,3,4,5", help="eval seeds, one evaluation each, comma-separated")
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--subjects", type=Path, default=DEMO_EVAL_SUBJECTS_FILE)
    args = parser.parse_args()
    record.write(main([int(seed) for seed in args.seeds.split(",")], args.samples, args.subjects))
