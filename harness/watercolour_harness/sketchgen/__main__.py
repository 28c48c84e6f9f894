"""Write a folder of generated sketches.

    python -m watercolour_harness.sketchgen --subject hibiscus --count 20 --out DIR [--seed 0]
        [--palette violet] [--composition pair] [--detail 1.0] [--no-paper-wash] [--reply]

Files are SUBJECT-SEED.js (or .md with --reply: the sketch as a model's answer). Prints one
summary line: how many were written and their length in characters and in length-term score.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path

from watercolour_harness.sketchgen.generate import generate_sketch
from watercolour_harness.sketchgen.reply import as_reply
from watercolour_shared.length import length_score
from watercolour_shared.subjects import DEFAULT_SUBJECT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m watercolour_harness.sketchgen", description=__doc__.split("\n")[0])
    parser.add_argument("--subject", default=DEFAULT_SUBJECT)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--out", type=Path, required=True, help="folder to write into (created if missing)")
    parser.add_argument("--seed", type=int, default=0, help="the first seed; sketch i uses seed + i")
    parser.add_argument("--palette")
    parser.add_argument("--composition")
    parser.add_argument("--detail", type=float, default=1.0, help="scales every outline's vertices, and the length")
    parser.add_argument("--no-paper-wash", action="store_true", help="leave out the ground wash")
    parser.add_argument("--reply", action="store_true", help="write each sketch as a model reply (.md)")
    args = parser.parse_args(argv)

    args.out.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "-", args.subject.lower()).strip("-") or "sketch"
    knobs = {"palette": args.palette, "composition": args.composition, "detail": args.detail}
    knobs["paper_wash"] = not args.no_paper_wash
    lengths, scores = [], []
    for seed in range(args.seed, args.seed + args.count):
        try:
            code = generate_sketch(args.subject, seed, **knobs)
        except ValueError as error:
            parser.error(str(error))
        text, suffix = (as_reply(code, args.subject, seed), ".md") if args.reply else (code, ".js")
        (args.out / f"{slug}-{seed:05d}{suffix}").write_text(text)
        lengths.append(len(code))
        scores.append(length_score(code))
    if lengths:
        print(
            f"wrote {len(lengths)} sketches to {args.out}: {min(lengths)}-{max(lengths)} characters "
            f"(median {statistics.median(lengths):.0f}), mean length score {statistics.mean(scores):.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
