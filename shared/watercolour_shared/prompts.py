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


def tool_messages() -> list[dict[str, str]]:
    """The conversation a tool-calling policy answers (TRL's `environment_factory`): the system prompt, then an empty
    user turn, which TRL fills with the environment's brief (WatercolourToolEnv.reset: the subject, and the `paint`
    tool's rules)."""
    return [{"role": "system", "content": system_prompt()}, {"role": "user", "content": ""}]


def revision_request(critique: str, revisions_left: int) -> str:
    """The user turn after a painting of an episode with revisions (docs/revisions.md), for a policy that answers in
    text: the environment's critique of the painting, as WatercolourToolEnv hands it to a tool-calling policy, then
    the ask to paint it again. Every painting is a whole sketch, answered as the system prompt asks."""
    return (
        f"{critique}\n\nRevisions left: {revisions_left}. Paint it again: answer with the whole revised sketch. "
        "Your last painting is the one judged."
    )


def revision_messages(subject: str, turns: list[tuple[str, str, int]]) -> list[dict[str, str]]:
    """The conversation a policy answers to revise: `chat_messages(subject)`, then for each earlier painting the reply
    the policy wrote (the assistant's turn, as written) and the critique of it with the revisions left (the user's)."""
    messages = chat_messages(subject)
    for reply, critique, revisions_left in turns:
        messages += [
            {"role": "assistant", "content": reply},
            {"role": "user", "content": revision_request(critique, revisions_left)},
        ]
    return messages
