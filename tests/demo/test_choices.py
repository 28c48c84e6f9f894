"""Reading back which palette a rollout chose, from the reply the film keeps."""

from watercolour_demo.choices import UNNAMED, palette, share, step_choices
from watercolour_demo.sketchgen import PALETTES, as_reply, generate_sketch
from watercolour_trainer.film import RunDirectory

SUBJECT = "a hibiscus"


def test_every_palette_is_read_back_from_a_reply():
    for seed, name in enumerate(sorted(PALETTES)):
        reply = as_reply(generate_sketch(SUBJECT, seed, palette=name, detail=0.3), SUBJECT, seed)
        assert palette(reply) == name


def test_a_reply_without_the_title_line_chose_nothing():
    code = generate_sketch(SUBJECT, 0, palette="lemon")
    assert palette(code.split("\n", 1)[1]) == UNNAMED
    assert palette("I cannot paint that.") == UNNAMED


def test_a_steps_choices_are_counted_from_the_film(tmp_path):
    run = RunDirectory(tmp_path)
    palettes = ["violet", "lemon", "lemon", None]
    for index, name in enumerate(palettes):
        reply = as_reply(generate_sketch(SUBJECT, index, palette=name), SUBJECT) if name else "no code"
        run.record(3, index, reply, {"reply": reply, "reward": None}, None)
    chosen = step_choices(tmp_path, 3)
    assert chosen == {"violet": 1, "lemon": 2, UNNAMED: 1}
    assert share(chosen, "lemon") == 0.5
    assert share(step_choices(tmp_path, 4), "violet") is None
