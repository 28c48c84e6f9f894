"""The environment's `watercolour` commands (the dispatcher is watercolour_shared.cli):

  watercolour render SKETCH -o out.png [--json] [--seed N] [--env-url URL]
  watercolour gate SKETCH [--json] [--seed N] [--static] [--env-url URL]
  watercolour serve

SKETCH is a .js file or a saved model reply; `-` reads stdin. Exit status:
0 the gate passed, 1 it failed, 2 a usage or infrastructure error.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
from pathlib import Path

from watercolour_shared.env_client import EnvHttpClient, EnvRejected, EnvUnavailable
from watercolour_shared.length import length_score
from watercolour_shared.render_wire import RenderResult

EXIT_PASSED, EXIT_FAILED, EXIT_ERROR = 0, 1, 2


def add_commands(commands) -> None:
    for name, help_text in (("render", "gate and render a sketch to a PNG"), ("gate", "run the gate on a sketch")):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("sketch", help="a .js file or a model reply; - for stdin")
        command.add_argument("--json", action="store_true", help="print the result as JSON")
        command.add_argument("--seed", type=int, default=0)
        command.add_argument("--env-url", help="use a running environment instead of a local browser")
        command.add_argument("--no-cache", action="store_true", help="do not use the Redis render cache")
        command.set_defaults(run=_gate_or_render)
    commands.choices["render"].add_argument("-o", "--output", required=True, help="where to write the PNG")
    commands.choices["gate"].add_argument("--static", action="store_true", help="source checks only, no render")
    serve = commands.add_parser("serve", help="run the environment server on WATERCOLOUR_HOST (loopback unless set), _PORT")
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    from watercolour_env.server.app import main as serve

    serve()
    return EXIT_PASSED


def _gate_or_render(args: argparse.Namespace) -> int:
    try:
        reply = _read_sketch(args.sketch)
    except OSError as error:
        print(f"watercolour: cannot read {args.sketch}: {error.strerror}", file=sys.stderr)
        return EXIT_ERROR
    try:
        result = asyncio.run(_evaluate(reply, args))
    except EnvUnavailable as error:
        print(f"watercolour: environment unavailable: {error}", file=sys.stderr)
        return EXIT_ERROR
    except EnvRejected as error:
        print(f"watercolour: the environment refused the request: {error}", file=sys.stderr)
        return EXIT_ERROR
    except ImportError as error:  # the client-only install: no local browser or gate
        print(
            f"watercolour: a local {args.command} needs the server's packages ({error.name} is missing): "
            "pip install 'watercolour-env[server]', or pass --env-url",
            file=sys.stderr,
        )
        return EXIT_ERROR
    if result.status == "unavailable":
        print(f"watercolour: render unavailable: {result.unavailable_reason}", file=sys.stderr)
        return EXIT_ERROR
    if args.command == "render" and result.png_base64:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_bytes(base64.b64decode(result.png_base64))
    _report(result, args.json)
    return EXIT_PASSED if result.passed else EXIT_FAILED


def _read_sketch(source: str) -> str:
    raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    return raw.decode("utf-8", errors="replace")


async def _evaluate(reply: str, args: argparse.Namespace) -> RenderResult:
    if args.env_url:
        async with EnvHttpClient(args.env_url) as client:
            return await client.render(reply, seed=args.seed, include_png=args.command == "render")
    from watercolour_env.services import EnvServices
    from watercolour_env.settings import EnvSettings

    settings = EnvSettings(browsers=1)
    static_only = getattr(args, "static", False)
    # A renderer alone: no judge or scorer term is built, so a render neither loads the reference pool nor asks for tokens.
    services = EnvServices.build(settings, use_cache=not (args.no_cache or static_only), reward_terms=False)
    if static_only:
        code, violations = services.pipeline.gate(reply)
        return RenderResult(status="failed" if violations else "passed", violations=violations, code=code)
    await services.start()
    try:
        return await services.pipeline.run(reply, args.seed)
    finally:
        await services.close()


def _report(result: RenderResult, as_json: bool) -> None:
    summary = {
        "passed": result.passed,
        "status": result.status,
        "violations": [v.model_dump(mode="json") for v in result.violations],
        "paint_fraction": result.paint_fraction,
        "length_score": length_score(result.code or ""),
        "render_ms": round(result.timings.total_ms, 1),
        "errors": result.errors,
        "brush_calls": result.brush_calls,
        "cached": result.cached,
    }
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    print("gate passed" if result.passed else "gate failed")
    for violation in result.violations:
        where = f" (line {violation.line})" if violation.line else ""
        print(f"  {violation.code.value}: {violation.message}{where}")
    if result.paint_fraction is not None:
        print(f"  paint {result.paint_fraction:.1%}, rendered in {result.timings.total_ms / 1000:.1f} s")
    for error in result.errors:
        print(f"  js error: {error}")
