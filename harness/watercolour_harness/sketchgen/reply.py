"""A sketch dressed as a model's answer: a sentence of prose, then one fenced javascript block.

The policy's training corpus is model replies, and the environment finds the sketch in a
reply by its fence (watercolour_env/reply.py), so this is the shape to imitate.
"""

from __future__ import annotations

LEADS = (
    "Here is {subject} in loose watercolour, built up from pale washes to darker glazes.",
    "A loose watercolour of {subject}, painted with translucent layers of p5.brush fills.",
    "This sketch paints {subject}: a pale first wash, then darker transparent layers on top.",
)


def as_reply(code: str, subject: str, seed: int = 0) -> str:
    lead = LEADS[seed % len(LEADS)].format(subject=subject.strip() or "a flower")
    return f"{lead}\n\n```javascript\n{code.rstrip()}\n```\n"
