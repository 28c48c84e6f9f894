import pytest

from watercolour_env.gate.js_text import normalise_source
from watercolour_env.pipeline import RenderPipeline
from watercolour_env.reply import _fences, extract_sketch
from watercolour_shared.render_wire import MAX_REPLY_CHARS
from watercolour_shared.violations import ViolationCode as V

SKETCH = "function setup() { createCanvas(600, 600, WEBGL); }\nfunction draw() { brush.circle(1, 2, 3); }"


def test_plain_code_is_the_sketch():
    assert extract_sketch(SKETCH).code == SKETCH


def test_fenced_code_with_prose_around_it():
    reply = f"Here is a loose hibiscus.\n\n```js\n{SKETCH}\n```\n\nThe petals bleed softly."
    extracted = extract_sketch(reply)
    assert extracted.code == SKETCH and extracted.violation is None


def test_the_block_defining_setup_wins_over_a_longer_snippet():
    noise = "```js\n" + "const palette = ['#fff'];\n" * 20 + "```"
    extracted = extract_sketch(f"{noise}\nand the sketch:\n```javascript\n{SKETCH}\n```")
    assert extracted.code == SKETCH


def test_refusal_is_no_sketch():
    extracted = extract_sketch("I'm sorry, I can't paint that.")
    assert extracted.code is None and extracted.violation.code == V.NO_SKETCH


def test_empty_and_binary_replies_are_no_sketch():
    for reply in ("", "   \n", "\x00\x01\xff\ufffd" * 50):
        assert extract_sketch(reply).violation.code == V.NO_SKETCH


def test_unclosed_fence_is_truncated():
    extracted = extract_sketch(f"```js\n{SKETCH[:60]}")
    assert extracted.violation.code == V.TRUNCATED


def test_every_line_terminator_v8_honours_becomes_a_newline():
    # V8 ends lines (and // comments) at all of these; the gate, the renderer and the cache see one text.
    for terminator in ("\r\n", "\r", "\u2028", "\u2029"):
        reply = SKETCH.replace("\n", terminator).replace("{ brush", f"// a note{terminator} brush")
        code = extract_sketch(reply).code
        assert code == SKETCH.replace("{ brush", "// a note\n brush")


def test_fenced_code_with_old_mac_line_ends():
    extracted = extract_sketch(f"Here it is:\r\r```js\r{SKETCH}\r```\r")
    assert extracted.code == SKETCH and extracted.violation is None


def test_lone_surrogates_are_replaced_so_the_code_encodes():
    code = extract_sketch(SKETCH + "\n// \ud83c broken pair").code
    assert code.endswith("// ? broken pair")
    code.encode("utf-8")


# Adversarial shapes (issue 24): each gets its verdict, and extraction stays linear in the reply.
FENCED = f"```js\n{SKETCH}\n```"
ADVERSARIAL = {
    "an unclosed fence and a long run of letters, no newline": ("```" + "a" * 300_000, V.NO_SKETCH),
    "an unclosed js fence, then a long run of letters": ("```js\n" + "a" * 300_000, V.NO_SKETCH),
    "an unclosed fence after the sketch's start": (f"```js\n{SKETCH}\n" + "a" * 300_000, V.TRUNCATED),
    "only backticks": ("`" * 300_001, V.NO_SKETCH),
    "many empty fences": ("```\n```\n" * 40_000, V.NO_SKETCH),
    "many fences, then the sketch": ("```\nx\n```\n" * 20_000 + FENCED, None),
    "a long info string": ("```js " + "x" * 300_000 + f"\n{SKETCH}\n```", None),
    "a long tag in no code language": ("```" + "py" * 150_000 + f"\n{SKETCH}\n```", V.NO_SKETCH),
    "a fence at the very end": (f"{SKETCH}\n```", V.NO_SKETCH),
    "an opener at the very end": (f"{FENCED}\n```js\n", None),
    "four backticks": (f"````js\n{SKETCH}\n````", None),
    "six backticks": (f"``````\n{SKETCH}\n``````", None),
    "a fence inside the code cuts it": (f"```js\n{SKETCH}\nconst s = '```';\n```", None),
    "CRLF": (FENCED.replace("\n", "\r\n") + "\r\n", None),
}


def test_adversarial_replies_get_their_verdict():
    for name, (reply, expected) in ADVERSARIAL.items():
        extracted = extract_sketch(reply)
        assert (extracted.violation.code if extracted.violation else None) == expected, name
        if expected is None:
            assert extracted.code.startswith(SKETCH), name


def test_a_fence_inside_the_code_ends_the_block_there():
    assert extract_sketch(ADVERSARIAL["a fence inside the code cuts it"][0]).code == SKETCH + "\nconst s = '"


class CountingText(str):
    """A text that counts the characters each `find` on it passes over."""

    scanned = 0

    def find(self, sub, start=0, end=None):
        found = super().find(sub, start, end)
        self.scanned += (found + len(sub) if found != -1 else len(self)) - start
        return found


def test_fence_scanning_reads_each_character_at_most_once():
    for reply, _ in ADVERSARIAL.values():
        for text in (normalise_source(reply), normalise_source(reply * 4)):
            counting = CountingText(text)
            list(_fences(counting))
            assert counting.scanned <= len(text)


def test_the_worst_shapes_at_the_request_limit_are_read_whole():
    assert extract_sketch("```" + "a" * (MAX_REPLY_CHARS - 3)).violation.code == V.NO_SKETCH
    body = SKETCH + "\n" + "a" * (MAX_REPLY_CHARS - len(SKETCH) - 7)
    extracted = extract_sketch("```js\n" + body)
    assert extracted.violation.code == V.TRUNCATED and extracted.code == body


def test_the_gate_refuses_an_oversized_reply_before_reading_it(rules, monkeypatch):
    pipeline = RenderPipeline(renderer=None, cache=None, rules=rules, max_code_chars=200_000)
    monkeypatch.setattr("watercolour_env.pipeline.extract_sketch", lambda reply: pytest.fail("extracted an oversized reply"))
    code, violations = pipeline.gate("```" + "a" * 200_000)
    assert code is None and [v.code for v in violations] == [V.OVERSIZED]
    assert "200003 characters" in violations[0].message and "200000" in violations[0].message


def test_the_gate_reads_a_reply_at_the_limit(rules):
    pipeline = RenderPipeline(renderer=None, cache=None, rules=rules, max_code_chars=200_000)
    reply = f"```js\n{SKETCH}\n" + "a" * (200_000 - len(SKETCH) - 7)
    code, violations = pipeline.gate(reply)
    assert len(reply) == 200_000 and code.startswith(SKETCH) and violations[0].code == V.TRUNCATED
