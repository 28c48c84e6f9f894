"""The `watercolour` command: a dispatcher that owns no command of its own.

Each installed part adds its commands through the `watercolour.commands` entry-point group
(render, gate and serve from the environment; gallery, check-run and pool from studio; paint from
the trainer; spaces and train-job from deploy), so a part installs without the others: studio's
gallery needs neither Chromium nor the environment. Exit status: 0 success, 1 a check or gate
failed, 2 a usage or infrastructure error.
"""

from __future__ import annotations

import argparse
import logging
import sys
from importlib.metadata import entry_points

GROUP = "watercolour.commands"


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    return args.run(args)


def parser() -> argparse.ArgumentParser:
    """Every installed part's commands. A part's `add_commands(subparsers)` adds its parsers and sets
    `run=function(args) -> exit code` on each."""
    found = argparse.ArgumentParser(prog="watercolour", description="watercolour-rl's command line")
    commands = found.add_subparsers(dest="command", required=True)
    for plugin in entry_points(group=GROUP):
        try:
            plugin.load()(commands)
        except Exception as error:  # noqa: BLE001 - one broken package must not take every command down
            logging.getLogger(__name__).warning("the %s commands are unavailable: %s", plugin.name, error)
    return found


if __name__ == "__main__":
    sys.exit(main())
