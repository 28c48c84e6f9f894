"""The warm start's corpus: generated sketches as a model's answers to the project's own prompt.

An example is the prompt exactly as the GRPO trainer renders it (the chat template with the system
prompt and the request), and the reply with the end-of-turn token; only the reply is learned.
"""

from __future__ import annotations

from dataclasses import dataclass

from watercolour_harness.sketchgen import as_reply, generate_sketch, subject_kind
from watercolour_harness.sketchgen.looks import Look
from watercolour_shared.prompts import chat_messages, system_prompt, user_prompt


@dataclass(frozen=True)
class Sketches:
    subjects: tuple[str, ...]  # taken in turn; each seed chooses its look
    composition: str | None  # None lets each seed choose
    detail: float  # the generator's knob: low detail is short code, which a small model can finish
    paper_wash: bool = True

    def knobs(self) -> dict:
        """The generator's keyword arguments as these sketches are painted."""
        return {"composition": self.composition, "detail": self.detail, "paper_wash": self.paper_wash}

    def replies(self, count: int, seed: int, look: Look | None = None) -> list[tuple[str, str]]:
        """`count` (subject, reply) pairs; `look` paints every one in that look, and changes nothing else."""
        replies = []
        for i in range(count):
            subject = self.subjects[i % len(self.subjects)]
            named = plain_name(subject)
            code = generate_sketch(subject, seed + i, title=named, look=look, **self.knobs())
            replies.append((subject, as_reply(code, named, seed + i)))
        return replies

    def tokenizer_texts(self, replies: list[str]) -> list[str]:
        """The replies, and the prompts as often: their lines become single tokens, so every prompt is short."""
        prompts = [f"system\n{system_prompt()}\nuser\n{user_prompt(subject)}\nassistant\n" for subject in self.subjects]
        return replies + [prompts[i % len(prompts)] for i in range(len(replies))]


def plain_name(subject: str) -> str:
    """What a reply calls its subject: the kind it paints, never the words asked. A policy of a few million
    parameters cannot copy words it never saw, and the replies it wrote for held-out subjects broke in the attempt
    (in a warm start that echoed the subject, 17 of 24 held-out replies failed the gate, many before the code)."""
    return "a hibiscus" if subject_kind(subject) == "hibiscus" else "a flower"


def prompt_ids(tokenizer, subject: str) -> list[int]:
    """The prompt's tokens, as TRL builds them for generation."""
    rendered = tokenizer.apply_chat_template(
        [chat_messages(subject)], add_generation_prompt=True, tokenize=True, return_dict=True, enable_thinking=False
    )
    return list(rendered["input_ids"][0])


def reply_ids(tokenizer, reply: str) -> list[int]:
    return tokenizer(reply, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
