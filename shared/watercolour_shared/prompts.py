"""The policy's prompts: one system prompt (a text file beside the code) and the user message.

The environment, the trainer and the pool generator all ask for paintings with these words.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_SYSTEM_PROMPT_FILE = Path(__file__).parent / "prompts" / "system.txt"


@cache
def system_prompt() -> str:
    return _SYSTEM_PROMPT_FILE.read_text()


def user_prompt(subject: str) -> str:
    return f"Paint {subject} in loose watercolour."


def subject_of(prompt: str) -> str | None:
    """The subject a user prompt asks for (what a run directory's records keep), or None for another text."""
    before, after = user_prompt("\0").split("\0")
    if prompt.startswith(before) and prompt.endswith(after) and len(prompt) > len(before) + len(after):
        return prompt[len(before) : len(prompt) - len(after)]
    return None


def chat_messages(subject: str) -> list[dict[str, str]]:
    """The conversation a policy answers: system prompt, then the request for one painting."""
    return [{"role": "system", "content": system_prompt()}, {"role": "user", "content": user_prompt(subject)}]
