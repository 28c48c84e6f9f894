"""Reading back which look each rollout chose, from the reply the film keeps."""

from watercolour_demo.looks_chosen import mean_look, step_looks, tally
from watercolour_harness.sketchgen import as_reply, generate_sketch
from watercolour_harness.sketchgen.looks import Look
from watercolour_shared.run_dir import RolloutRecord, RunWriter

SUBJECT = "a peach hibiscus"


def test_a_steps_looks_are_read_from_the_film_and_averaged(tmp_path):
    run = RunWriter(tmp_path)
    looks = [Look(1, 0.7, 0.4), Look(2, 1.3, 1), None]
    for index, look in enumerate(looks):
        reply = as_reply(generate_sketch(SUBJECT, index, look=look), SUBJECT) if look else "no code"
        run.record(RolloutRecord.answered(None, "env down", step=3, index=index, group=0, prompt="", seed=0, reply=reply))
    assert step_looks(run, 3) == looks
    assert mean_look(step_looks(run, 3)) == {"zoom": 1.5, "wash": 1.0, "glaze": 0.7}
    assert tally(step_looks(run, 3)) == "zoom 1.50 wash 1.00 glaze 0.70"
    assert mean_look(step_looks(run, 4)) == {"zoom": None, "wash": None, "glaze": None}
