from watercolour_env.reply import extract_sketch
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
