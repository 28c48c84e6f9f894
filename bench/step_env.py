"""Real environments beside the trainer, for bench/grpo_step_bench.py's `--envs`: which environment scores each step.

A step's environment is `length-only` (bench/length_only_env.py's answer, in this process: no render) or a WebGL
mode of the real one (`gpu-vulkan`, `software`, ...): an environment process of its own per mode
(bench/env_process.py: the server's /evaluate on EnvServices, Chromium, the gate, the offline judge and the
heuristic scorer, a process of its own too), all started before the first step and left up for the whole run.

The trainer talks to one URL, a router in this process. For a real step it sends the group's request on to that
mode's environment with the policy's replies replaced by real sketches: a random-weight policy writes random text,
which the gate fails in milliseconds, so its replies would measure no render. The sketches are the demo's own
generator's (harness/watercolour_harness/sketchgen), of the group's subject, as model replies, a new seed for every
rollout of every step (no two alike, so the render cache never answers and every group draws 8 paintings). The
router measures each real call: its wall time, the CPU it cost (the machine's, and the environment's, the scorer's
and the trainer's processes), the environment's memory and the GPU's. The trainer still trains on its own
completions: only their rewards come from the sketches, so the training step's work is unchanged.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import psutil
import torch
from length_only_env import Handler as LengthOnlyHandler
from length_only_env import evaluate as length_only
from render_cost import _kind
from transformers import TrainerCallback

from watercolour_env.settings import CHROMIUM_GL_MODES
from watercolour_harness.processes import answered, end_process_tree, free_port, start, wait_until
from watercolour_harness.scripted_http import LoopbackServer
from watercolour_harness.sketchgen.generate import generate_sketch
from watercolour_harness.sketchgen.reply import as_reply
from watercolour_shared.render_wire import EvaluateRequest, EvaluateResponse
from watercolour_shared.reward import MIX_TERMS

BENCH_DIR = Path(__file__).resolve().parent
POOL = BENCH_DIR.parent / "services" / "env" / "watercolour_env" / "data" / "pool"
LENGTH_ONLY = "length-only"
WEBGL_MODES = CHROMIUM_GL_MODES  # the environment's own: auto and every flag set of chromium.py's GL_FLAGS
# A software mode draws on Chromium's own SwiftShader ICD: a Vulkan driver file named for the GPU would replace it
# (bench/results/webgl-h200-2026-12-02-gpu-modes.json, whose software rows drew on the GPU for that reason).
GPU_ONLY_VARIABLES = ("VK_DRIVER_FILES", "VK_ICD_FILENAMES")
SEEDS_PER_STEP = 1000


def parse_envs(text: str) -> list[str]:
    envs = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(envs) - {LENGTH_ONLY, *WEBGL_MODES})
    if unknown or not envs:
        raise ValueError(f"unknown environment(s) {unknown}: choose from {LENGTH_ONLY}, {', '.join(WEBGL_MODES)}")
    return envs


def sketch_replies(subject: str, step: int, count: int, base_seed: int) -> list[tuple[int, str]]:
    seeds = [base_seed + step * SEEDS_PER_STEP + i for i in range(count)]
    return [(seed, as_reply(generate_sketch(subject, seed), subject, seed)) for seed in seeds]


def tree_core_s(root: psutil.Process) -> Counter:
    """User + system seconds of a process and its live descendants by kind, with the children each has reaped
    (a page's renderer process is gone by the end of its render; its browser counts it then)."""
    spent = Counter()
    for process in [root, *root.children(recursive=True)]:
        try:
            t = process.cpu_times()
            kind = "server" if process.pid == root.pid else _kind(process)
            spent[kind] += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            continue
    return spent


def _own_core_s() -> float:
    """This process's own seconds (the trainer and the router), not its children's (the services are its children)."""
    t = psutil.Process().cpu_times()
    return t.user + t.system


def tree_rss_mib(root: psutil.Process) -> float:
    total = 0
    for process in [root, *root.children(recursive=True)]:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            continue
    return total / 2**20


def gpu_memory_used_mib() -> float | None:
    try:
        query = ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"]
        out = subprocess.run(query, capture_output=True, text=True)
    except FileNotFoundError:
        return None
    return float(out.stdout.split()[0]) if out.returncode == 0 and out.stdout.strip() else None


class Service:
    """One process of ours (an environment or the scorer), its log in `logs`, stopped with `stop()`."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], port: int, logs: Path):
        self.name, self.port = name, port
        self.url = f"http://127.0.0.1:{port}"
        self.log = logs / f"{name}.log"
        self.popen = start(command, self.log, env)
        self.process = psutil.Process(self.popen.pid)

    def wait_ready(self, path: str, timeout_s: float = 180) -> dict:
        try:
            return wait_until(self.popen, self.name, lambda: answered(self.url + path, 10), timeout_s, self.log).json()
        except RuntimeError:
            self.stop()
            raise

    def stop(self) -> None:
        if self.popen.poll() is None:
            end_process_tree(self.popen, grace_s=20)


class StepEnvironments:
    """The router, the environment processes and the scorer; `calls` holds one record per real /evaluate."""

    def __init__(self, envs: list[str], subjects: list[str], groups_per_step: int, args, logs: Path):
        self.envs, self.args, self.logs = envs, args, logs
        self.subjects = subjects[:groups_per_step]
        self.step = 1
        self.calls: list[dict] = []
        self.services: dict[str, Service] = {}
        self.health: dict[str, dict] = {}
        self.startup_s: dict[str, float] = {}
        self.sketches: dict[tuple[int, str], list[tuple[int, str]]] = {}
        self._client = httpx.Client(timeout=httpx.Timeout(900.0))
        self._server = LoopbackServer(self._handler())
        self.url = self._server.url

    @property
    def real_modes(self) -> list[str]:
        return list(dict.fromkeys(env for env in self.envs if env != LENGTH_ONLY))

    def start(self, group_size: int) -> None:
        # Every real step's sketches, made now: none of their making falls inside a step.
        self.sketches = {
            (step, subject): sketch_replies(subject, step, group_size, self.args.sketch_seed)
            for step, env in enumerate(self.envs, start=1)
            if env != LENGTH_ONLY
            for subject in self.subjects
        }
        if self.real_modes:
            self._start_services()
        self._server.start()

    def _start_services(self) -> None:
        base = {**os.environ, "PYTHONUNBUFFERED": "1", "WATERCOLOUR_HOST": "127.0.0.1"}
        if self.args.redis_url:
            base["REDIS_URL"] = self.args.redis_url
        port = free_port()
        scorer_env = {**base, "WATERCOLOUR_SCORER_BACKEND": "heuristic", "WATERCOLOUR_SCORER_PORT": str(port)}
        started = time.perf_counter()
        scorer = Service("scorer", [sys.executable, "-m", "watercolour_scorer.server"], scorer_env, port, self.logs)
        self.services["scorer"] = scorer
        self.health["scorer"] = scorer.wait_ready("/ready")
        self.startup_s["scorer"] = round(time.perf_counter() - started, 1)
        for mode in self.real_modes:
            port = free_port()
            env = {
                **base,
                "WATERCOLOUR_PORT": str(port),
                "WATERCOLOUR_CHROMIUM_GL": mode,
                "WATERCOLOUR_BROWSERS": str(self.args.browsers),
                "WATERCOLOUR_JUDGE": "offline",
                "WATERCOLOUR_POOL_PATH": str(POOL),
                "WATERCOLOUR_SCORER_URL": scorer.url,
            }
            if self.args.chromium:
                env["WATERCOLOUR_CHROMIUM_PATH"] = self.args.chromium
            if self.args.assets:
                env["WATERCOLOUR_ASSETS_DIR"] = self.args.assets
            if not mode.startswith("gpu-") and mode != "auto":  # auto may take the GPU, through that driver file
                for name in GPU_ONLY_VARIABLES:
                    env.pop(name, None)
            started = time.perf_counter()
            service = Service(f"env-{mode}", [sys.executable, str(BENCH_DIR / "env_process.py")], env, port, self.logs)
            self.services[mode] = service
            self.health[mode] = service.wait_ready("/health")
            self.startup_s[mode] = round(time.perf_counter() - started, 1)
            print(f"environment {mode} up in {self.startup_s[mode]} s: {self.health[mode].get('webgl')}", flush=True)

    def described_setup(self) -> dict:
        """What the real steps rendered and with what: for the report."""
        chars = sorted(len(reply) for replies in self.sketches.values() for _, reply in replies)
        return {
            "sketches": {
                "source": "harness/watercolour_harness/sketchgen: as_reply(generate_sketch(subject, seed), subject, seed), "
                "the demo's warm-start generator, each sketch a model reply with one fenced javascript block",
                "seeds": f"step s, rollout i: {self.args.sketch_seed} + {SEEDS_PER_STEP} s + i (every one different)",
                "subjects": self.subjects,
                "count": len(chars),
                "chars": {"min": chars[0], "median": int(statistics.median(chars)), "max": chars[-1]} if chars else None,
            },
            "replies_replaced": "for a real step the router sends the group's request on with the policy's replies "
            "replaced by these sketches; the trainer trains on its own completions, rewarded with the sketches' rewards",
            "processes": {
                name: {"startup_s": self.startup_s.get(name), "health": self.health.get(name)} for name in self.services
            },
            "browsers_per_env": self.args.browsers,
            "judge": "offline (watercolour_shared.judge.offline, not a VLM) against the bundled reference pool",
            "hps": "the scorer's heuristic backend (a CPU stand-in, not HPSv3) in a process of its own",
            "redis_url": self.args.redis_url or "the environment's default",
        }

    def close(self) -> None:
        self._server.stop()
        for service in reversed(list(self.services.values())):
            service.stop()
        self._client.close()

    def callback(self) -> TrainerCallback:
        router = self

        class ThisStep(TrainerCallback):
            def on_step_begin(self, args, state, control, **kwargs):
                router.step = state.global_step + 1

        return ThisStep()

    def _handler(self):
        router = self

        class Handler(LengthOnlyHandler):
            def do_POST(self):  # noqa: N802 - the http.server API
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                request = EvaluateRequest.model_validate_json(body)
                step = router.step
                env = router.envs[min(step, len(router.envs)) - 1]
                if env == LENGTH_ONLY:
                    self.send_json(200, length_only(request).model_dump_json())
                    return
                payload, record = router.forward(step, env, request)
                self.send_json(200, payload)  # the trainer has its answer: what follows is outside its clock
                reserved = round(torch.cuda.memory_reserved() / 2**20) if torch.cuda.is_available() else None
                record |= {"gpu_memory_used_mib": gpu_memory_used_mib(), "trainer_gpu_reserved_mib": reserved}
                router.calls.append(record | router.described(payload))

        return Handler

    def forward(self, step: int, mode: str, request: EvaluateRequest) -> tuple[bytes, dict]:
        seeds_and_replies = self.sketches[(step, request.options.subject)][: len(request.replies)]
        sent = request.model_copy(update={"replies": [reply for _, reply in seeds_and_replies]})
        service = self.services[mode]
        trees = {mode: service.process, "scorer": self.services["scorer"].process}
        before = {name: tree_core_s(p) for name, p in trees.items()}
        trainer, machine = _own_core_s(), psutil.cpu_times()
        body, headers = sent.model_dump_json(), {"content-type": "application/json"}
        peak = _PeakRss(service.process).start()
        started = time.perf_counter()
        answer = self._client.post(service.url + "/evaluate", content=body, headers=headers)
        wall = time.perf_counter() - started
        peak_mib = peak.stop()
        after_machine, after_trainer = psutil.cpu_times(), _own_core_s()
        after = {name: tree_core_s(p) for name, p in trees.items()}
        answer.raise_for_status()
        env_kinds = {kind: round(after[mode][kind] - before[mode].get(kind, 0.0), 2) for kind in after[mode]}
        record = {
            "step": step,
            "env": mode,
            "subject": request.options.subject,
            "sketch_seeds": [seed for seed, _ in seeds_and_replies],
            "sketch_chars": [len(reply) for _, reply in seeds_and_replies],
            "wall_s": round(wall, 2),
            "machine_core_s": round((after_machine.user + after_machine.system) - (machine.user + machine.system), 2),
            "env_core_s": round(sum(env_kinds.values()), 2),
            "env_core_s_by_process": {kind: s for kind, s in sorted(env_kinds.items()) if s > 0},
            "scorer_core_s": round(sum(after["scorer"].values()) - sum(before["scorer"].values()), 2),
            "trainer_core_s": round(after_trainer - trainer, 2),
            "env_rss_mib_peak": round(peak_mib),
        }
        record["cores_busy"] = round(record["machine_core_s"] / wall, 1) if wall else None
        return answer.content, record

    @staticmethod
    def described(payload: bytes) -> dict:
        results = EvaluateResponse.model_validate_json(payload).results
        timings = [r.render.timings for r in results]
        draws = sorted(t.draw_ms / 1000 for t in timings)
        totals = [r.reward.total for r in results if r.reward.total is not None]
        return {
            "passed": sum(r.render.status == "passed" for r in results),
            "statuses": dict(Counter(r.render.status for r in results)),
            "cached": sum(r.render.cached for r in results),  # answered from Redis, not drawn: 0 unless seeds repeat
            "draw_s": {"min": round(draws[0], 2), "median": round(statistics.median(draws), 2), "max": round(draws[-1], 2)},
            "render_total_s_max": round(max(t.queue_ms + t.total_ms for t in timings) / 1000, 2),
            "reward_mean": round(statistics.fmean(totals), 4) if totals else None,
            "terms_mean": {
                term: round(statistics.fmean(values), 4)
                for term in MIX_TERMS
                if (values := [getattr(r.reward, term) for r in results if getattr(r.reward, term) is not None])
            },
        }


class _PeakRss:
    """The largest resident size of a process tree, read every 0.2 s while a call runs (pages shared by its
    processes count once per process, so this is an upper bound)."""

    def __init__(self, root: psutil.Process):
        self.root, self.peak = root, 0.0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> _PeakRss:
        self._thread.start()
        return self

    def _watch(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, tree_rss_mib(self.root))
            self._done.wait(0.2)

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        return max(self.peak, tree_rss_mib(self.root))
