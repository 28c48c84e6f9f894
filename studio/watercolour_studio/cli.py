"""The studio's `watercolour` commands:

  watercolour gallery RUN_DIR [--port N] [--pool DIR]     the run gallery in the browser (--newest: of a folder of runs)
  watercolour check-run RUN_DIR [--json]                  the seven post-run checks; exit 1 when one fails
  watercolour pool generate|rate|pack|calibrate ...       the reference-pool workbench
  watercolour eval --a A --b B --env-url URL --out DIR    B against A as painters, on held-out subjects
  watercolour curve RUN_DIR --env-url URL [--checkpoint N] each saved checkpoint against the run's starting policy

RUN_DIR is a run directory (docs/run-directory.md) or, with --from-hub, a Hub repository holding one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from watercolour_shared.run_dir import RECORDS, RunReader
from watercolour_studio.checks.report import format_checks, passed
from watercolour_studio.checks.run_checks import CheckOptions, run_checks
from watercolour_studio.eval.command import add_eval_command
from watercolour_studio.eval.curve_command import add_curve_command
from watercolour_studio.exit_codes import EXIT_ERROR, EXIT_FAILED, EXIT_OK
from watercolour_studio.pool.commands import add_pool_commands


def add_commands(commands) -> None:
    gallery = commands.add_parser("gallery", help="browse a run's film, curves and checks in the browser")
    _run_arguments(gallery)
    gallery.add_argument("--host", default="127.0.0.1")
    gallery.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    gallery.add_argument("--pool", type=Path, help="the reference pool the run used, to show the references' images")
    gallery.add_argument("--newest", action="store_true", help="RUN_DIR holds runs: show the newest, found anew on each request")
    gallery.set_defaults(run=_gallery)
    check = commands.add_parser("check-run", help="the seven post-run checks, each with its evidence")
    _run_arguments(check)
    check.add_argument("--json", action="store_true", help="print the checks as JSON")
    check.set_defaults(run=_check_run)
    add_pool_commands(commands)
    add_eval_command(commands)
    add_curve_command(commands)


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_dir", help="a run directory, or a Hub repository with --from-hub")
    parser.add_argument("--from-hub", action="store_true", help="RUN_DIR is the Hub repository the trainer pushed the run to")
    parser.add_argument("--repo-type", choices=("model", "dataset"), default="model", help="with --from-hub")
    parser.add_argument("--revision", help="with --from-hub: a branch, tag or commit")
    parser.add_argument("--max-timeouts", type=float, default=0.05, help="share of render timeouts (and drops) allowed")
    parser.add_argument("--adapter-repo", help="the Hub model the weights were pushed to (checked instead of adapter/ or model/)")
    parser.add_argument("--rollouts-repo", help="the Hub dataset the rollouts were pushed to (checked instead of film/)")
    parser.add_argument("--space", help="the scoring Space the run used (OWNER/NAME), to check it is paused")


def _open_run(args: argparse.Namespace) -> tuple[RunReader, CheckOptions] | None:
    root = Path(args.run_dir)
    if args.from_hub:
        from huggingface_hub import snapshot_download

        # The film and its records only: the weights are checked on the Hub, never downloaded.
        root = Path(
            snapshot_download(args.run_dir, repo_type=args.repo_type, revision=args.revision, allow_patterns=list(RECORDS))
        )
    if not root.is_dir():
        print(f"watercolour: {root} is not a run directory", file=sys.stderr)
        return None
    options = CheckOptions(args.max_timeouts, args.adapter_repo, args.rollouts_repo, args.space, os.environ.get("HF_TOKEN"))
    return RunReader(root), options


def _gallery(args: argparse.Namespace) -> int:
    from watercolour_shared.reference_pool import ReferencePool
    from watercolour_studio.gallery.app import gallery_app
    from watercolour_studio.gallery.newest import newest_gallery
    from watercolour_studio.serve import serve

    opened = _open_run(args)
    if opened is None:
        return EXIT_ERROR
    run, options = opened
    pool = ReferencePool.from_folder(args.pool) if args.pool else None
    if args.newest:
        app = newest_gallery(run.root, lambda newest: gallery_app(newest, options, pool))
        return serve(app, args.host, args.port, f"gallery of the newest run in {run.root}")
    return serve(gallery_app(run, options, pool), args.host, args.port, f"gallery of {run.root}")


def _check_run(args: argparse.Namespace) -> int:
    opened = _open_run(args)
    if opened is None:
        return EXIT_ERROR
    run, options = opened
    checks = run_checks(run, options)
    if args.json:
        print(json.dumps([check.as_json() for check in checks], indent=2))
    else:
        print(format_checks(checks))
    return EXIT_OK if all(map(passed, checks)) else EXIT_FAILED
