"""Static gate benchmark: prints one JSON document and writes it under bench/results/.

Times the whole static gate (reply extraction and `analyse`) on inputs of the
largest allowed size (settings.max_code_chars), built to stress it: deep
nesting of every kind, a long flat sketch, many subscripts, generated
sketches end to end, and unparseable text. Each input is a complete sketch around its filler, so a passing verdict
means the gate read all of it. Best of `--repeat` runs.

    python bench/gate_bench.py [--repeat N] [--chars N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from datetime import datetime, timezone
from pathlib import Path

from watercolour_demo.sketchgen import generate_sketch
from watercolour_env.gate.rules import load_rules
from watercolour_env.gate.static import NODE_BUDGET, analyse
from watercolour_env.reply import extract_sketch
from watercolour_env.settings import EnvSettings

BENCH_DIR = Path(__file__).resolve().parent
HEAD = "function setup() {\n  createCanvas(600, 600, WEBGL);\n  noLoop();\n}\nfunction draw() {\n  brush.circle(300, 300, 80);\n"
TAIL = "\n}\n"


def nested(open_: str, middle: str, close: str, room: int) -> str:
    depth = (room - len(middle)) // (len(open_) + len(close))
    return open_ * depth + middle + close * depth


def repeated(unit: str, room: int) -> str:
    return unit * (room // len(unit))


def inputs(chars: int) -> dict[str, str]:
    room = chars - len(HEAD) - len(TAIL) - 20
    noise = random.Random(0)
    bodies = {
        "nested_parens": "x = " + nested("(", "1", ")", room) + ";",
        "nested_arrays": "x = " + nested("[", "1", "]", room) + ";",
        "nested_objects": "x = " + nested("{a:", "1", "}", room) + ";",
        "nested_blocks": nested("{", "", "}", room),
        "nested_calls": "x = " + nested("f(", "1", ")", room) + ";",
        "nested_arrows": "x = " + nested("(a) => ", "a", "", room) + ";",
        "nested_functions": nested("function g(a) {", "", "}", room),
        "nested_lets": nested("{ let fill = 1; ", "fill(1);", "}", room),
        "nested_subscripts": "x = " + nested("a[", "0", "]", room) + ";",
        "subscript_chain": "x = a" + repeated("[0]", room) + ";",
        "subscripts_flat": repeated("x[i][j] = y['k'] + z[i + 1];\n", room),
        "member_chain": "x = a" + repeated(".b", room) + ";",
        "flat_sketch": repeated("brush.fill('#e07a5f', 120);\nbrush.circle(300, 300, 80, 0.2);\n", room),
        "strings": repeated("s = 'a' + \"b\\x41\" + `c${d}e`;\n", room),
        "comments_and_decrements": repeated("/* note */ i-->0; // <!-- not code -->\n", room),
        "generated_sketches": repeated(generate_sketch("a peach hibiscus", 1), room),
        "garbage": "".join(noise.choice("(){}[];,.+-*/=<>!?:'\"abc 123\n") for _ in range(room)),
    }
    return {name: HEAD + body + TAIL for name, body in bodies.items()}


def measure(code: str, repeat: int) -> dict:
    rules = load_rules()
    times, violations = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        sketch = extract_sketch(code)
        violations = [sketch.violation] if sketch.violation else analyse(sketch.code, rules)
        times.append(time.perf_counter() - started)
    return {
        "chars": len(code),
        "seconds": round(min(times), 3),
        "verdict": sorted({v.code.value for v in violations}) or "passed",
    }


def main(args) -> dict:
    return {
        "benchmark": "gate",
        "when": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load_average": os.getloadavg()},
        "node_budget": NODE_BUDGET,
        "repeat": args.repeat,
        "inputs": {name: measure(code, args.repeat) for name, code in inputs(args.chars).items()},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per input; the best counts")
    parser.add_argument("--chars", type=int, default=EnvSettings().max_code_chars, help="size of every input")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results")
    arguments = parser.parse_args()
    result = main(arguments)
    arguments.out.mkdir(parents=True, exist_ok=True)
    path = arguments.out / f"gate-{result['when'][:10]}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
