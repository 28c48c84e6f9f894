"""A scoring Space left running bills by the hour: after a run it should be paused."""

from __future__ import annotations

import json
import re

from watercolour_shared.run_dir import RunPlan
from watercolour_studio.checks.report import Check

STOPPED = {"PAUSED", "SLEEPING", "STOPPED"}
SPACE_URL = re.compile(r"https://[\w.-]+\.hf\.space\S*")


def space_paused(plan: RunPlan | None, hub, space: str | None) -> Check:
    name = "scoring Space paused"
    if space is None:
        used = SPACE_URL.findall(json.dumps(plan.model_dump(mode="json")) if plan else "")
        if used:
            line = f"the run used Spaces ({used[0]}): name the scoring Space with --space OWNER/NAME to check it is paused"
            return Check(name, "fail", line)
        return Check(name, "skip", "no scoring Space was used")
    try:
        runtime = hub.get_space_runtime(space)
    except Exception as error:  # noqa: BLE001 - any Hub failure is this check's failure, with its reason
        return Check(name, "fail", f"cannot read the Space {space}: {type(error).__name__}: {str(error)[:200]}")
    evidence = [f"stage {runtime.stage}, hardware {runtime.hardware}"]
    if runtime.stage in STOPPED:
        return Check(name, "pass", f"{space} is {runtime.stage}", evidence)
    return Check(
        name, "fail", f"{space} is {runtime.stage}: pause it (watercolour spaces pause scorer) so it stops billing", evidence
    )
