"""Both profiles as the real Compose reads them (the GPU profile cannot start here: no GPU)."""

from __future__ import annotations

import pytest

from tests.stack.compose import compose


@pytest.mark.parametrize(
    ("profile", "services"), [("cpu", {"demo", "env-cpu", "gallery"}), ("gpu", {"env", "scorer", "trainer"})]
)
def test_the_profile_validates_and_names_its_services(profile, services):
    listed = set(compose("--profile", profile, "config", "--services").split())
    assert services <= listed and "redis" in listed
    compose("--profile", profile, "config", "--quiet")
