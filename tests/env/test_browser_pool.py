"""The browser pool's own promises: recycling, and refusing work it cannot take."""

import pytest

from tests.conftest import sketch
from watercolour_env.render import chromium
from watercolour_env.render.browser_pool import BrowserPool
from watercolour_env.render.renderer import Renderer


async def test_browsers_are_replaced_after_n_renders(settings, rules):
    renderer = Renderer(settings.model_copy(update={"browsers": 1, "recycle_after": 2}), rules)
    await renderer.start()
    try:
        (first,) = renderer.browsers.browsers()
        results = [await renderer.render(sketch("two-washes.js"), seed=seed) for seed in (1, 2, 3)]
        stats = dict(renderer.browsers.stats)
        (now,) = renderer.browsers.browsers()  # the pool lists the replacement, not the closed browser
        connected = (first.is_connected(), now.is_connected())
    finally:
        await renderer.close()
    assert [r.status for r in results] == ["passed"] * 3
    assert stats == {"renders": 3, "recycled": 1, "killed": 0}
    assert now is not first and connected == (False, True)


async def test_no_network_namespace_refuses_to_start_unless_allowed(settings, monkeypatch):
    monkeypatch.setattr(chromium, "network_isolated_executable", lambda executable: None)
    refused = BrowserPool(settings.model_copy(update={"browsers": 1}))
    with pytest.raises(RuntimeError, match="WATERCOLOUR_ALLOW_SHARED_NETWORK"):
        await refused.start()
    allowed = BrowserPool(settings.model_copy(update={"browsers": 1, "allow_shared_network": True}))
    await allowed.start()
    try:
        assert allowed.network_isolated is False
    finally:
        await allowed.close()
