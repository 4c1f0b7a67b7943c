"""Reading a model's answer. Every reader returns ``None`` (never raises) when nothing usable is
there, so an engine counts that sample as failed and says why.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_OPEN_FENCE = re.compile(r"```[ \t]*(?:python|py)?[^\n]*\n(.*)\Z", re.DOTALL | re.IGNORECASE)
_ANSWER = re.compile(r"(?:r[ée]ponse|answer)\s*(?:finale\s*)?[:：=]\s*(.+)", re.IGNORECASE)
_NUMBER = re.compile(r"[-−]?\d[\d\u202f\u00a0 ]*(?:[.,]\d+)?(?:\s*/\s*\d+)?")


def extract_code(text: str | None, function: str | None = None) -> str | None:
    """The Python code of an answer: the fenced block defining ``function`` (else the first
    python block, else any block), an unclosed block, or a bare answer starting with code."""
    if not text or not text.strip():
        return None
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    if function:
        defining = [body for _, body in blocks if re.search(rf"\bdef\s+{re.escape(function)}\s*\(", body)]
        if defining:
            return defining[0].strip("\n") + "\n"
    for lang, body in blocks:
        if lang in ("python", "py", "python3"):
            return body.strip("\n") + "\n"
    if blocks:
        return blocks[0][1].strip("\n") + "\n"
    unclosed = _OPEN_FENCE.search(text)
    if unclosed:
        return unclosed.group(1).strip("\n") + "\n"
    stripped = text.strip()
    if re.match(r"(def|from|import|class|@)\b", stripped):
        return stripped + "\n"
    return None


def _answer_text(text: str | None) -> str | None:
    """Text after the last « Réponse : » (or « Answer: ») line."""
    if not text:
        return None
    found = None
    for line in text.splitlines():
        match = _ANSWER.search(line.replace("*", ""))
        if match:
            found = match.group(1).strip()
    return found


def parse_number(text: str) -> int | float | None:
    """The first number of ``text``: "1 234", "3,5", "−2", "7/2" → 1234, 3.5, -2, 3.5."""
    match = _NUMBER.search(text or "")
    if not match:
        return None
    raw = re.sub(r"[\u202f\u00a0 ]", "", match.group(0)).replace("−", "-")
    try:
        if "/" in raw:
            value = Fraction(raw.replace(",", "."))
            return int(value) if value.denominator == 1 else float(value)
        if "," in raw or "." in raw:
            number = float(raw.replace(",", "."))
            return int(number) if number.is_integer() else number
        return int(raw)
    except (ValueError, ZeroDivisionError):
        return None


def extract_answer(text: str | None) -> int | float | None:
    """The number on the last ``Réponse : N`` line (falls back to the last number of the text)."""
    answer = _answer_text(text)
    if answer is not None:
        return parse_number(answer)
    numbers = _NUMBER.findall(text or "")
    return parse_number(numbers[-1]) if numbers else None


def extract_expression(text: str | None) -> str | None:
    """The expression of a Game-of-24 answer (``Réponse : (4 + 8) * (6 - 4)``), ``= 24`` cut."""
    answer = _answer_text(text)
    if not answer:
        return None
    answer = answer.strip().strip("`").replace("×", "*").replace("÷", "/").replace("−", "-")
    answer = answer.split("=")[0].strip()
    return answer if re.fullmatch(r"[\d\s+\-*/().]+", answer) and re.search(r"\d", answer) else None


# ----------------------------------------------------------------------------- Game of 24 steps

_STEP = re.compile(
    r"(-?\d+(?:[./]\d+)?)\s*([+\-*/×x÷−])\s*(-?\d+(?:[./]\d+)?)\s*=\s*(-?\d+(?:[./]\d+)?)"
    r"\s*\((?:reste|left|restants?)\s*:?\s*([^)]*)\)",
    re.IGNORECASE,
)
_OPS = {"×": "*", "x": "*", "X": "*", "÷": "/", "−": "-"}


def to_fraction(text: str) -> Fraction | None:
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return None


def parse_steps(text: str | None) -> list[tuple[Fraction, str, Fraction, Fraction]]:
    """Proposal lines ``a + b = c (reste : …)`` → [(a, op, b, c)]; unreadable lines skipped."""
    steps = []
    for line in (text or "").splitlines():
        match = _STEP.search(line)
        if not match:
            continue
        a, op, b, c = (to_fraction(match.group(1)), _OPS.get(match.group(2), match.group(2)),
                       to_fraction(match.group(3)), to_fraction(match.group(4)))
        if None not in (a, b, c):
            steps.append((a, op, b, c))
    return steps


def _fold(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFD", text.lower())
                   if unicodedata.category(ch) != "Mn")


def parse_value(text: str | None) -> str | None:
    """The verdict of a value answer: ``"sûr"``, ``"probable"`` or ``"impossible"`` (last line
    first; English *sure / likely / impossible* too), or ``None``."""
    if not text:
        return None
    words = {"sur": "sûr", "sure": "sûr", "certain": "sûr", "probable": "probable",
             "likely": "probable", "impossible": "impossible"}
    for line in reversed([line for line in text.splitlines() if line.strip()]):
        found = re.findall(r"[a-z]+", _fold(line))
        for word in reversed(found):
            if word in words:
                return words[word]
    return None
