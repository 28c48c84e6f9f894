"""`watercolour spaces ...` and `watercolour train-job`, added to the `watercolour` command.

  watercolour spaces deploy --mix judge-led [--from-env SPACE] [--from-scorer SPACE]
  watercolour spaces status [--json]
  watercolour spaces pause|resume [env] [scorer]
  watercolour spaces sleep [--after SECONDS] [env] [scorer]
  watercolour train-job [--recipe hps-led|FILE] [--dry-run] [--keep-scorer] [-- extra trainer flags]

The Hub is `HF_ENDPOINT` (default huggingface.co); the token is --token, HF_TOKEN or the saved login.
A missing token or an unreachable Hub is one line and exit 2; a dry run needs neither.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import httpx2  # huggingface_hub 2.x's HTTP client: an unreachable Hub raises its transport errors
from huggingface_hub import HfApi, get_token
from huggingface_hub.errors import HfHubHTTPError, LocalTokenNotFoundError

from watercolour_deploy import spaces
from watercolour_deploy.space_hardware import SPACE_HARDWARE, VCPUS, price
from watercolour_deploy.space_tree import LAYOUTS
from watercolour_deploy.train_job import RECIPES, SCRIPT, JobPlan, recipe_path, timeout_hours
from watercolour_shared.retired_names import TRAIN_JOB_FLAGS, refuse_flags
from watercolour_shared.reward import DEFAULT_MIX, PRESETS

EXIT_OK, EXIT_FAILED, EXIT_ERROR = 0, 1, 2
# An editable install (make setup) runs from the checkout the Spaces and the job are built from.
CHECKOUT = Path(__file__).resolve().parents[2]
# What a dry run shows for a namespace it could not look up.
SOME_NAMESPACE = "NAMESPACE"
NO_TOKEN = "no Hub token: pass --token, set HF_TOKEN or run `hf auth login`"


def add_commands(commands: argparse._SubParsersAction) -> None:
    hub = argparse.ArgumentParser(add_help=False)
    hub.add_argument("--namespace", help="user or organisation owning the Spaces (default: the token's user)")
    hub.add_argument("--env-space", default=spaces.DEFAULT_NAMES["env"], help="the env Space's name")
    hub.add_argument("--scorer-space", default=spaces.DEFAULT_NAMES["scorer"], help="the scorer Space's name")
    hub.add_argument("--token", help="a Hub token (default: HF_TOKEN or the saved login)")
    hub.add_argument("--root", type=Path, default=CHECKOUT, help="the watercolour-rl checkout")

    group = commands.add_parser("spaces", help="deploy and manage the env and scorer Spaces").add_subparsers(
        dest="spaces_command", required=True
    )
    deploy = group.add_parser("deploy", parents=[hub], help="create or update both Spaces and print their URLs")
    deploy.add_argument("--mix", choices=sorted(PRESETS), default=DEFAULT_MIX, help="the env Space's default reward mix")
    for kind in spaces.KINDS:
        deploy.add_argument(f"--from-{kind}", metavar="SPACE", help=f"duplicate the {kind} Space from this one")
        # The env Space sizes its browser pool by the flavour's vCPUs, so it takes one whose count is known.
        choices = sorted(VCPUS) if kind == "env" else SPACE_HARDWARE
        deploy.add_argument(f"--{kind}-hardware", choices=choices, default=LAYOUTS[kind].hardware)
    deploy.add_argument("--sleep-after", type=int, default=3600, help="seconds idle before a Space sleeps (-1: never)")
    deploy.add_argument("--space-hf-token", help="HF_TOKEN secret for the Spaces (default: the deploying token)")
    deploy.set_defaults(run=_deploy)

    status = group.add_parser("status", parents=[hub], help="stage, hardware and hourly cost of both Spaces")
    status.add_argument("--json", action="store_true")
    status.set_defaults(run=_status)
    for name, help_text in (("pause", "pause (billing stops until resume)"), ("resume", "restart paused Spaces")):
        command = group.add_parser(name, parents=[hub], help=help_text)
        command.add_argument("which", nargs="*", help="env and/or scorer (default: both)")
        command.set_defaults(run=_lifecycle)
    sleep = group.add_parser("sleep", parents=[hub], help="let idle Spaces sleep (not billed while asleep)")
    sleep.add_argument("which", nargs="*", help="env and/or scorer (default: both)")
    sleep.add_argument("--after", type=int, default=300, help="seconds idle before sleeping")
    sleep.set_defaults(run=_lifecycle)

    job = commands.add_parser("train-job", parents=[hub], help="run a recipe's training on Hugging Face Jobs")
    # Each preset's run is the recipe of its name, so the default recipe is the default mix's.
    job.add_argument("--recipe", default=DEFAULT_MIX, help=f"a recipe's name in {RECIPES}/, or a .yaml file under trainer/")
    refuse_flags(job, TRAIN_JOB_FLAGS)
    job.add_argument("--env-url", action="append", help="an environment (repeat to spread; default: the env Space)")
    job.add_argument("--run-tag", help="default: watercolour-RECIPE (the recipe file's name)")
    job.add_argument("--out", help="Hub repo for the adapter (default: NAMESPACE/watercolour-grpo-RECIPE)")
    job.add_argument("--flavor", default="h200")
    job.add_argument("--timeout", default="48h")
    job.add_argument("--dry-run", action="store_true", help="print the command and its cost bound; launch nothing")
    job.add_argument("--keep-scorer", action="store_true", help="leave the scorer Space up after the job")
    job.add_argument("extra", nargs=argparse.REMAINDER, help="after --: more trainer flags")
    job.set_defaults(run=_train_job)


def _api(args: argparse.Namespace) -> HfApi:
    # Read at call time so HF_ENDPOINT set after huggingface_hub was imported still counts.
    return HfApi(endpoint=os.environ.get("HF_ENDPOINT"), token=args.token)


class UsageError(Exception):
    """A request this command cannot carry out as asked."""


def _ids(api: HfApi, args: argparse.Namespace, which: tuple[str, ...] = spaces.KINDS) -> dict[str, str]:
    return _ids_in(args.namespace or api.whoami()["name"], args, which)


def _ids_in(namespace: str, args: argparse.Namespace, which: tuple[str, ...] = spaces.KINDS) -> dict[str, str]:
    names = {"env": args.env_space, "scorer": args.scorer_space}
    return {kind: names[kind] if "/" in names[kind] else f"{namespace}/{names[kind]}" for kind in which}


def _hub_problem(error: Exception) -> str:
    """One line for a Hub that could not be asked: no token, or no answer."""
    if isinstance(error, LocalTokenNotFoundError):
        return NO_TOKEN
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    return f"the Hub at {endpoint} cannot be reached ({type(error).__name__}: {error})"


def _hub_errors(run):
    """Hub refusals, a missing token, an unreachable Hub and unusable requests as one line and exit 2."""

    def wrapped(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except (HfHubHTTPError, UsageError) as error:
            print(f"watercolour: {error}", file=sys.stderr)
        except (LocalTokenNotFoundError, httpx2.TransportError) as error:
            print(f"watercolour: {_hub_problem(error)}", file=sys.stderr)
        return EXIT_ERROR

    return wrapped


@_hub_errors
def _deploy(args: argparse.Namespace) -> int:
    hf_token = args.space_hf_token or args.token or get_token()
    if not hf_token:
        raise UsageError(NO_TOKEN)
    api = _api(args)
    options = spaces.DeployOptions(
        mix=args.mix,
        hf_token=hf_token,
        # The scorer answers only this bearer token (a public A100 Space costs money per request).
        scorer_token=os.environ.get("WATERCOLOUR_SCORER_TOKEN") or secrets.token_urlsafe(32),
        hardware={"env": args.env_hardware, "scorer": args.scorer_hardware},
        sources={"env": args.from_env, "scorer": args.from_scorer},
        sleep_after_s=args.sleep_after,
    )
    for space in spaces.deploy(api, _ids(api, args), options, args.root):
        hardware = options.hardware[space.kind]
        print(f"{space.kind:7} {space.app_url}  ({space.page_url}, {hardware}, {price(hardware)})")
    print("Pause the scorer when training ends: watercolour spaces pause scorer")
    return EXIT_OK


@_hub_errors
def _status(args: argparse.Namespace) -> int:
    api = _api(args)
    found = spaces.status(api, _ids(api, args))
    if args.json:
        rows = [{**vars(space), "hourly_usd": space.hourly_usd} for space in found]
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    for space in found:
        cost = "price unknown" if space.hourly_usd is None else f"${space.hourly_usd:.2f}/h now"
        sleeps = "never sleeps" if space.sleep_time_s in (None, -1) else f"sleeps after {space.sleep_time_s} s idle"
        print(f"{space.kind:7} {space.space_id:40} {space.stage or '-':22} {space.hardware or '-':12} {cost:14} {sleeps}")
    print(f"billed now: ${sum(space.hourly_usd or 0 for space in found):.2f}/h")
    return EXIT_OK


@_hub_errors
def _lifecycle(args: argparse.Namespace) -> int:
    unknown = set(args.which) - set(spaces.KINDS)
    if unknown:
        raise UsageError(f"unknown Space {sorted(unknown)}: choose env and/or scorer")
    api = _api(args)
    ids = _ids(api, args, tuple(args.which) or spaces.KINDS)
    if args.spaces_command == "pause":
        stages = spaces.pause(api, ids)
    elif args.spaces_command == "sleep":
        stages = spaces.sleep(api, ids, args.after)
    else:
        stages = spaces.resume(api, ids)
    for kind, stage in stages.items():
        print(f"{kind:7} {ids[kind]}: {stage}")
    return EXIT_OK


@_hub_errors
def _train_job(args: argparse.Namespace) -> int:
    try:
        timeout_hours(args.timeout)  # a bad duration fails here, not after the launch
    except ValueError as error:
        raise UsageError(error) from None
    if not (args.root / SCRIPT).is_file():
        raise UsageError(f"{args.root / SCRIPT} not found: pass --root, the watercolour-rl checkout")
    recipe = recipe_path(args.recipe)
    if not (args.root / recipe).is_file():
        raise UsageError(f"--recipe {recipe}: no such file in {args.root}")
    name = Path(recipe).stem
    api = _api(args)
    ids, env_urls, not_looked_up = _job_targets(api, args)
    plan = JobPlan(
        env_urls=env_urls,
        recipe=recipe,
        run_tag=args.run_tag or f"watercolour-{name}",
        out=args.out or f"{ids['env'].split('/')[0]}/watercolour-grpo-{name}",
        flavor=args.flavor,
        timeout=args.timeout,
        extra=args.extra[1:] if args.extra[:1] == ["--"] else args.extra,
    )
    try:
        command = plan.command(_hf_cli())
    except ValueError as error:  # a recipe outside the folders the job mounts
        raise UsageError(f"--recipe {recipe}: {error}") from None
    print(f"# from {args.root}")
    print(shlex.join(command))
    print(f"# the run's model and flags: {recipe}, read in the job from the mounted folder")
    print(f"# {plan.cost_note(LAYOUTS['scorer'].hardware)}")
    print(f"# afterwards: {'the scorer Space stays up' if args.keep_scorer else 'pause ' + ids['scorer']}")
    if not_looked_up:
        print(f"# not looked up: {not_looked_up}")
    if args.dry_run:
        return EXIT_OK
    token = args.token or get_token()
    if not token:
        raise UsageError("no Hub token for the job's HF_TOKEN secret: set HF_TOKEN or run `hf auth login`")
    try:
        launched = subprocess.run(command, cwd=args.root, env={**os.environ, "HF_TOKEN": token}, check=False)
    except KeyboardInterrupt:
        # Only the log stream stopped: the job may still be running and needs its scorer.
        print(
            "\nwatercolour: the job may still run; the scorer Space stays up (watercolour spaces pause scorer)", file=sys.stderr
        )
        return 130
    if not args.keep_scorer:
        stage = spaces.pause(api, {"scorer": ids["scorer"]})["scorer"]
        print(f"scorer  {ids['scorer']}: {stage}")
    return EXIT_OK if launched.returncode == 0 else EXIT_FAILED


def _job_targets(api: HfApi, args: argparse.Namespace) -> tuple[dict[str, str], list[str], str | None]:
    """The Spaces' ids and the environments to train against. A dry run that cannot ask the Hub (no token,
    no answer) shows what it would look up instead, and says so."""
    try:
        ids = _ids(api, args)
        return ids, args.env_url or [spaces.app_url(api, ids["env"])], None
    except (LocalTokenNotFoundError, httpx2.TransportError) as error:
        if not args.dry_run:
            raise
        ids = _ids_in(args.namespace or SOME_NAMESPACE, args)
        missing = [] if args.namespace else [f"the namespace, the token's user (shown as {SOME_NAMESPACE})"]
        missing += [] if args.env_url else [f"the env Space {ids['env']}'s URL (shown by the Hub's naming rule)"]
        return ids, args.env_url or [spaces.ruled_app_url(ids["env"])], f"{'; '.join(missing)}: {_hub_problem(error)}"


def _hf_cli() -> str:
    """`hf` on PATH, else the one installed next to this interpreter (huggingface_hub's CLI)."""
    found = shutil.which("hf", path=os.pathsep.join([os.environ.get("PATH", ""), str(Path(sys.executable).parent)]))
    if not found:
        raise UsageError("the `hf` command (huggingface_hub's CLI) is not installed")
    return found
