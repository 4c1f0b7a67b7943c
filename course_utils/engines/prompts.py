"""The prompts of lesson 04, in the formats of the course contract.

The offline model's skills recognise exactly these texts (and natural variants), and a real model
reads them as plain instructions. Prompt builders never show a reference solution or the
expected values of hidden tests: only the spec, and for a repair the tests that failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

CODE_ONLY = "Réponds UNIQUEMENT avec le code Python dans un bloc ```python```."
REFLECTION = ("Explique en une ou deux phrases pourquoi ton code a échoué et quelle règle retenir "
              "pour la prochaine fois.")
VALUE_WORDS = ("sûr", "probable", "impossible")


def lessons_block(lessons: Iterable[str]) -> str:
    """« Leçons retenues : » followed by one line per lesson ("" when there is none)."""
    lines = [f"- {' '.join(str(lesson).split())}" for lesson in lessons if str(lesson).strip()]
    return "Leçons retenues :\n" + "\n".join(lines) if lines else ""


def code_prompt(problem, lessons: Sequence[str] = ()) -> str:
    """First attempt at a code problem (optionally preceded by retrieved lessons)."""
    text = (f"Écris une fonction Python `{problem.function}` qui respecte cette spécification :\n"
            f"{problem.spec.strip()}\n\n{CODE_ONLY}")
    block = lessons_block(lessons)
    return f"{block}\n\n{text}" if block else text


def failures_text(verdict) -> str:
    """The failing tests of a verdict, one line each (or the error that stopped the run)."""
    if verdict.error:
        return f"Erreur : {verdict.error}"
    lines = [f"- `{failure.test}` → {failure.reason}" for failure in verdict.failures[:5]]
    if len(verdict.failures) > 5:
        lines.append(f"- … et {len(verdict.failures) - 5} autre(s) test(s)")
    return "Ton code échoue sur ces tests :\n" + "\n".join(lines)


def repair_prompt(verdict, reflection: str | None = None) -> str:
    """The user turn after a failed attempt: failing tests, the model's reflection, the request."""
    parts = [failures_text(verdict)]
    if reflection:
        parts.append(f"Ta réflexion : {' '.join(reflection.split())}")
    parts.append(f"Corrige la fonction. {CODE_ONLY}")
    return "\n\n".join(parts)


def reflection_prompt(verdict) -> str:
    """The user turn that asks for a one- or two-sentence self-reflection."""
    return f"{failures_text(verdict)}\n\n{REFLECTION}"


def word_prompt(problem) -> str:
    """A word problem: short reasoning, then a last line ``Réponse : N``."""
    return f"{problem.question.strip()}\nRaisonne brièvement, puis termine par une ligne `Réponse : N`."


def _numbers(numbers: Iterable) -> str:
    return " ".join(format_number(n) for n in numbers)


def format_number(value) -> str:
    """3 → "3", 1.5 → "1.5", Fraction(8, 3) → "8/3"."""
    from fractions import Fraction

    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def propose_prompt(numbers: Iterable) -> str:
    """Tree of Thoughts, propose step (course format)."""
    return (f"Jeu de 24. Nombres restants : {_numbers(numbers)}\n"
            "Propose les étapes suivantes possibles, une par ligne, au format "
            "`a + b = c (reste : …)`.")


def value_prompt(numbers: Iterable) -> str:
    """Tree of Thoughts, value step (course format): sûr / probable / impossible."""
    return (f"Jeu de 24. Nombres restants : {_numbers(numbers)}\n"
            "Peut-on encore atteindre 24 ? Réponds par sûr, probable ou impossible.")


def direct24_prompt(numbers: Iterable, *, chain_of_thought: bool = False) -> str:
    """Game of 24 answered in one go (IO), or with « Raisonne étape par étape » (CoT)."""
    text = (f"Jeu de 24 : utilise les nombres {_numbers(numbers)}, chacun une fois, avec + - * / "
            "et des parenthèses pour obtenir 24. Réponds par une ligne `Réponse : <expression>`.")
    return text + (" Raisonne étape par étape avant de répondre." if chain_of_thought else "")


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict:
    return {"role": "assistant", "content": text}
