"""How a policy does before GRPO: sample replies as the trainer will and put them through the static gate.

The static gate needs no browser, so this costs a few seconds; the rendered gate pass rate of the
same policy is step 1 of the run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.utils import logging as transformers_logging

from watercolour_demo.corpus import prompt_ids
from watercolour_shared.sampling import Sampling


@dataclass
class SampleCheck:
    samples: int
    passed: int
    tokens: list[int]
    truncated: int
    violations: Counter = field(default_factory=Counter)


def check_policy(
    folder: Path,
    subjects: tuple[str, ...],
    samples: int,
    sampling: Sampling,
    seed: int = 0,
) -> SampleCheck:
    from watercolour_env.services import EnvServices
    from watercolour_env.settings import EnvSettings

    gate = EnvServices.build(EnvSettings(browsers=1, judge="off"), use_cache=False, reward_terms=False).pipeline.gate
    transformers_logging.disable_progress_bar()  # the demo's display is line by line
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    torch.manual_seed(seed)
    rows = []
    for index, subject in enumerate(subjects):  # the samples shared out over the subjects, as GRPO's steps take them
        count = samples // len(subjects) + (index < samples % len(subjects))
        if not count:
            continue
        prompt = torch.tensor([prompt_ids(tokenizer, subject)] * count)
        with torch.no_grad():
            out = model.generate(
                prompt,
                attention_mask=torch.ones_like(prompt),
                **sampling.generate_kwargs(),
            )
        rows += out[:, prompt.shape[1] :].tolist()
    check = SampleCheck(samples=samples, passed=0, tokens=[], truncated=0)
    for row in rows:
        ended = tokenizer.eos_token_id in row
        row = row[: row.index(tokenizer.eos_token_id)] if ended else row
        check.tokens.append(len(row))
        check.truncated += not ended
        _, violations = gate(tokenizer.decode(row, skip_special_tokens=True))
        check.passed += not violations
        check.violations.update(v.code.value for v in violations)
    return check
