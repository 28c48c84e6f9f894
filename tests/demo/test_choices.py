"""Reading back which composition a rollout chose, from the reply the film keeps."""

from watercolour_demo.choices import UNNAMED, composition, share, step_choices
from watercolour_demo.sketchgen import KINDS, as_reply, generate_sketch, subject_kind
from watercolour_shared.run_dir import RolloutRecord, RunWriter

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
    run = RunWriter(tmp_path)
    layouts = ["single", "close-up", "close-up", None]
    for index, layout in enumerate(layouts):
        reply = as_reply(generate_sketch(SUBJECT, index, composition=layout), SUBJECT) if layout else "no code"
        run.record(RolloutRecord.answered(None, "env down", step=3, index=index, group=0, prompt="", seed=0, reply=reply))
    chosen = step_choices(run, 3)
    assert chosen == {"single": 1, "close-up": 2, UNNAMED: 1}
    assert share(chosen, "close-up") == 0.5
    assert share(step_choices(run, 4), "single") is None
