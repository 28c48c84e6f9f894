"""Reading back which composition a rollout chose, from the reply the film keeps."""

from watercolour_demo.choices import UNNAMED, composition, share, step_choices
from watercolour_demo.sketchgen import KINDS, as_reply, generate_sketch, subject_kind
from watercolour_trainer.film import RunDirectory

SUBJECT = "a peach hibiscus"


def test_every_composition_is_read_back_from_a_reply():
    for seed, layout in enumerate(sorted(KINDS[subject_kind(SUBJECT)].layouts)):
        reply = as_reply(generate_sketch(SUBJECT, seed, composition=layout, detail=0.3), SUBJECT, seed)
        assert composition(reply) == layout


def test_a_reply_without_the_title_line_chose_nothing():
    code = generate_sketch(SUBJECT, 0, composition="close-up")
    assert composition(code.split("\n", 1)[1]) == UNNAMED
    assert composition("I cannot paint that.") == UNNAMED


def test_a_steps_choices_are_counted_from_the_film(tmp_path):
    run = RunDirectory(tmp_path)
    layouts = ["single", "close-up", "close-up", None]
    for index, layout in enumerate(layouts):
        reply = as_reply(generate_sketch(SUBJECT, index, composition=layout), SUBJECT) if layout else "no code"
        run.record(3, index, reply, {"reply": reply, "reward": None}, None)
    chosen = step_choices(tmp_path, 3)
    assert chosen == {"single": 1, "close-up": 2, UNNAMED: 1}
    assert share(chosen, "close-up") == 0.5
    assert share(step_choices(tmp_path, 4), "single") is None
