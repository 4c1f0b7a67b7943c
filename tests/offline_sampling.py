"""Helpers of the statistical tests of the offline skills (not a test module)."""

from __future__ import annotations

import math
import re

from course_utils.offline import OfflineModel

CODE_ONLY = "Réponds UNIQUEMENT avec le code Python dans un bloc ```python```."
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def samples(client, messages, count: int, *, model: str = "offline-fast",
            temperature: float = 1.0) -> list[str]:
    """``count`` independent samples of the same request (n ≤ 8 per HTTP request)."""
    out: list[str] = []
    while len(out) < count:
        n = min(8, count - len(out))
        response = client.chat.completions.create(model=model, messages=messages,
                                                  temperature=temperature, n=n)
        out += [choice.message.content for choice in response.choices]
    return out


def code_of(text: str) -> str:
    match = _BLOCK.search(text)
    assert match, text
    return match.group(1)


def code_prompt(problem, lessons=()) -> str:
    text = (f"Écris une fonction Python `{problem.function}` qui respecte cette spécification :\n"
            f"{problem.spec}\n\n{CODE_ONLY}")
    if lessons:
        text = "Leçons retenues :\n" + "\n".join(f"- {x}" for x in lessons) + "\n\n" + text
    return text


def new_client(seed: int = 0, **kwargs):
    model = OfflineModel(seed=seed, **kwargs)
    return model, model.client()
