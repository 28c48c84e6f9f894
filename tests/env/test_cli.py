"""The `watercolour` command as a user runs it."""

import json
import os
import shutil
import subprocess
import sys

from PIL import Image

from tests.conftest import ROOT, SKETCHES, sketch
from watercolour_env.settings import EnvSettings
from watercolour_harness.processes import free_port

WATERCOLOUR = shutil.which("watercolour", path=str(ROOT / ".venv" / "bin")) or shutil.which("watercolour")


def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([WATERCOLOUR, *args], input=stdin, capture_output=True, text=True, timeout=120, check=False, env=env)


def test_render_the_example_flower(tmp_path):
    out = tmp_path / "flower.png"
    done = run("render", str(ROOT / "examples" / "flower.js"), "-o", str(out), "--json", "--no-cache")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["passed"] is True and report["violations"] == []
    assert report["paint_fraction"] > 0.05
    assert {"render_ms", "errors", "length_score"} <= report.keys()
    assert Image.open(out).size == (600, 600)


def test_gate_failure_exits_1_with_the_violation(tmp_path):
    bad = tmp_path / "bad.js"
    bad.write_text(sketch("two-washes.js").replace("brush.circle(300, 300, 90, 0.3);", "brush.hatch(1, 45);"))
    done = run("gate", str(bad), "--json")
    assert done.returncode == 1
    assert "offlist_brush_method" in {v["code"] for v in json.loads(done.stdout)["violations"]}


def test_reply_from_stdin_with_prose_and_a_fence():
    reply = f"Here you go:\n```js\n{sketch('two-washes.js')}\n```\nEnjoy."
    done = run("gate", "-", "--static", stdin=reply)
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("gate passed")


def test_refusal_on_stdin_is_no_sketch():
    done = run("gate", "-", "--static", "--json", stdin="I cannot paint that.")
    assert done.returncode == 1
    assert json.loads(done.stdout)["violations"][0]["code"] == "no_sketch"


def test_invalid_utf8_gets_a_clear_verdict(tmp_path):
    garbled = tmp_path / "garbled.js"
    garbled.write_bytes(b"\xff\xfe\x00" + sketch("two-washes.js").encode() + b"\xc3\x28")
    done = run("gate", str(garbled), "--static", "--json")
    assert done.returncode == 1
    assert json.loads(done.stdout)["violations"][0]["code"] == "syntax_error"


def test_missing_file_is_a_usage_error():
    done = run("gate", "/no/such/sketch.js")
    assert done.returncode == 2
    assert "cannot read" in done.stderr


def test_unreachable_environment_is_an_infrastructure_error():
    done = run("gate", str(ROOT / "examples" / "flower.js"), "--env-url", f"http://127.0.0.1:{free_port()}")
    assert done.returncode == 2
    assert "unavailable" in done.stderr


def test_remote_render_through_a_running_environment(server_url, tmp_path):
    out = tmp_path / "remote.png"
    done = run("render", str(SKETCHES / "two-washes.js"), "-o", str(out), "--env-url", server_url)
    assert done.returncode == 0, done.stderr
    assert Image.open(out).size == (600, 600)


def test_module_entry_point_matches_the_console_script():
    """The dispatcher is shared's; the environment's commands reach it through the entry-point group."""
    done = subprocess.run([sys.executable, "-m", "watercolour_shared.cli", "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and all(name in done.stdout for name in ("render", "gate", "serve", "gallery", "paint"))


def test_render_and_gate_say_nothing_about_reward_terms_they_do_not_compute(tmp_path):
    """No judge is built for a render: without HF_TOKEN nothing warns, and with one no reference pool is fetched."""
    without_token = {key: value for key, value in os.environ.items() if key != "HF_TOKEN"}
    with_token = {**without_token, "HF_TOKEN": "hf_x", "HF_ENDPOINT": f"http://127.0.0.1:{free_port()}"}
    for env in (without_token, with_token):
        rendered = run("render", str(ROOT / "examples" / "flower.js"), "-o", str(tmp_path / "flower.png"), "--no-cache", env=env)
        gated = run("gate", str(ROOT / "examples" / "flower.js"), "--no-cache", env=env)
        assert rendered.returncode == 0 and gated.returncode == 0, rendered.stderr + gated.stderr
        assert rendered.stderr == "" and gated.stderr == ""


def test_serve_listens_on_loopback_unless_asked(monkeypatch):
    monkeypatch.delenv("WATERCOLOUR_HOST", raising=False)
    assert EnvSettings().host == "127.0.0.1"  # the renderer has no authentication; images set WATERCOLOUR_HOST=0.0.0.0
