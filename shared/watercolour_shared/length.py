"""The length term of the reward, exactly as the recipe defined it.

tokens = characters / 4; 0 below 150 or above 6000 tokens, rising linearly
from 0 at 150 to 1 at 3000, then 1 up to 6000.
"""

MIN_TOKENS = 150
FULL_TOKENS = 3000
MAX_TOKENS = 6000


def estimated_tokens(code: str) -> float:
    return len(code) / 4


def length_score(code: str) -> float:
    tokens = estimated_tokens(code)
    if tokens < MIN_TOKENS or tokens > MAX_TOKENS:
        return 0.0
    if tokens >= FULL_TOKENS:
        return 1.0
    return (tokens - MIN_TOKENS) / (FULL_TOKENS - MIN_TOKENS)
