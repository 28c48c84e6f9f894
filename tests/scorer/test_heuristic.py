"""The heuristic backend: deterministic, in range, and ordered the way a painter would order."""

import io

from PIL import Image

from tests.pictures import blank_sheet, hard_blob, soft_wash
from watercolour_scorer.backends.heuristic import HeuristicBackend
from watercolour_scorer.settings import ScorerSettings


def scores(*pngs: bytes) -> list[float]:
    settings = ScorerSettings(backend="heuristic")
    images = [Image.open(io.BytesIO(data)) for data in pngs]
    return [settings.normalise(mu) for mu, _ in HeuristicBackend().score_batch(images, ["a flower"] * len(images))]


def test_scores_are_deterministic_and_in_range():
    first, second = scores(soft_wash(1), soft_wash(1))
    assert first == second
    assert all(0.0 < value < 1.0 for value in scores(blank_sheet(), hard_blob(), soft_wash()))


def test_soft_translucent_washes_beat_a_hard_opaque_blob_which_beats_an_empty_sheet():
    blank, blob, wash = scores(blank_sheet(), hard_blob(), soft_wash())
    assert wash > blob > blank


def test_it_names_itself_as_what_it_is():
    backend = HeuristicBackend()
    assert backend.name == "heuristic" and "hps" not in backend.model.lower()
