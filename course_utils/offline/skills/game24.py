"""The *game24* skill: Game-of-24 steps with a documented, step-level competence (issue 10).

Formats recognised (the last user message; English prompts are answered in English):

* **propose** — course: « Jeu de 24. Nombres restants : 4 4 6 8\\nPropose les étapes suivantes
  possibles, une par ligne, au format `a + b = c (reste : …)`. » → lines ``4 + 8 = 12 (reste : 4
  6 12)``; Tree-of-Thoughts paper: ``Input: 4 4 6 8\\nPossible next steps:`` → ``4 + 8 = 12
  (left: 4 6 12)``.
* **value** — course: « … Nombres restants : 4 6 12\\nPeut-on encore atteindre 24 ? Réponds par
  sûr, probable ou impossible. » → one line of tries, then ``sûr`` | ``probable`` |
  ``impossible``; paper: « Evaluate if given numbers can reach 24 (sure/likely/impossible) » with
  the numbers on the last line → ``sure`` | ``likely`` | ``impossible``. The paper's last-step
  judge (« give a judgement (sure/impossible) if the answer is correct ») is answered too.
* **direct (IO)** — « Jeu de 24 : utilise les nombres 4 4 6 8 … Réponds par une ligne `Réponse :
  <expression>`. » or the paper's « Use numbers and basic arithmetic operations (+ - * /) to
  obtain 24. … Input: 4 4 6 8 » → ``Réponse : …`` / ``Answer: … = 24``.
* **chain of thought** — the same plus « Raisonne étape par étape » (or the paper's « Each step,
  you are only allowed to choose two of the remaining numbers ») → the three steps, then the
  answer. After a paper-style « Steps: » prefix it continues from the steps given.

Step model (parameters in ``competence_params``): a *plausible* step combines two numbers with
``+``, ``-`` (larger minus smaller), ``*``, or ``/`` when the quotient is a whole number. Each
proposal is, with probability ``insight``, a step that keeps 24 reachable (exact check) when one
exists, else a plausible step drawn uniformly; ``proposals`` distinct steps per state; each has
an arithmetic **slip** (its result off by 1 or 2) with probability ``slip_rate``. A value
judgement is right with probability ``value_accuracy[remaining - 1]`` (right about a reachable
state: ``sûr`` with two numbers or fewer, else ``sûr`` 60 % / ``probable`` 40 %; wrong about an
unreachable one: ``probable`` 80 % / ``sûr`` 20 %; the ``sûr`` line shows an expression found by
the exact solver). A direct answer is one
rollout of that step model (slip rate ``slip_rate`` for IO, ``cot_slip_rate`` for a written chain
of thought): it is right only when the rollout happens to reach 24, so it is rarely right on hard
puzzles, and the model still writes « = 24 » when it is wrong. Nothing here is tuned to a search
success rate: that emerges.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ...text import fold
from . import SkillContext, last_user_text

_NUMBER = r"-?\d+(?:/\d+)?(?:\.\d+)?"
_STEP_LINE = re.compile(
    rf"({_NUMBER})\s*([+\-*/×÷−])\s*({_NUMBER})\s*=\s*({_NUMBER})\s*\((?:reste|left)\s*:?\s*"
    r"([^)]*)\)", re.IGNORECASE)


def _fraction(text: str) -> Fraction | None:
    try:
        return Fraction(text.strip().replace("−", "-"))
    except (ValueError, ZeroDivisionError):
        return None


def _numbers(text: str) -> list[Fraction] | None:
    values = [_fraction(tok) for tok in re.findall(_NUMBER, text)]
    if not values or None in values or not 1 <= len(values) <= 6:
        return None
    return values


def show(value: Fraction) -> str:
    """3 → "3", Fraction(8, 3) → "8/3"."""
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


# ----------------------------------------------------------------------------- recognition


def classify(text: str) -> tuple[str, str, list[Fraction], str] | None:
    """(mode, language, numbers, tail) of a Game-of-24 prompt, or None.

    ``mode`` is propose, value, judge, cot or direct; ``tail`` holds what follows the numbers (a
    paper-style « Steps: » prefix, the answer to judge).
    """
    folded = fold(text)
    if "24" not in folded and "possible next steps" not in folded:  # the paper's propose
        return None                                                   # prompt never says 24
    french = "jeu de 24" in folded or "nombres restants" in folded
    english = any(k in folded for k in ("obtain 24", "reach 24", "possible next steps",
                                        "game of 24", "24 game"))
    if not (french or english):
        return None
    language = "fr" if french else "en"
    if "give a judgement" in folded or "judge:" in folded:
        match = re.search(r"input:\s*([^\n]+)\nanswer:\s*([^\n]*)\njudge:\s*$", text.strip() + "\n",
                          re.IGNORECASE) or re.search(
            r"input:\s*([^\n]+)\nanswer:\s*([^\n]*)\s*judge:\s*$", text.strip(), re.IGNORECASE)
        if match and _numbers(match.group(1)):
            return "judge", language, _numbers(match.group(1)), match.group(2)
        return None
    if french:
        match = re.search(r"nombres(?: restants)?\s*:\s*([^\n]+)", text, re.IGNORECASE) or \
            re.search(r"utilise les nombres\s+([\d\s/]+)", text, re.IGNORECASE)
        numbers = _numbers(match.group(1).split(",")[0]) if match else None
        if numbers is None:
            return None
        if "propose" in folded:
            return "propose", language, numbers, ""
        if "atteindre 24" in folded and ("impossible" in folded or "probable" in folded):
            return "value", language, numbers, ""
        if "etape par etape" in folded or "step by step" in folded:
            return "cot", language, numbers, ""
        return "direct", language, numbers, ""
    if folded.startswith("evaluate if given numbers can reach 24"):
        last = [line for line in text.strip().splitlines() if line.strip()][-1]
        numbers = _numbers(last)
        return ("value", language, numbers, "") if numbers else None
    inputs = list(re.finditer(r"input:\s*([^\n]+)", text, re.IGNORECASE))
    if not inputs:
        return None
    numbers = _numbers(inputs[-1].group(1))
    if numbers is None:
        return None
    tail = text[inputs[-1].end():]
    if "possible next steps" in fold(tail):
        return "propose", language, numbers, ""
    if "each step, you are only allowed" in folded:
        return "cot", language, numbers, tail
    return "direct", language, numbers, ""


# ----------------------------------------------------------------------------- step model


def _reachable(state: tuple[Fraction, ...]) -> bool:
    from course_utils.problems.game24 import TARGET, reachable

    return TARGET in reachable(state)


def _moves(state: list[Fraction]) -> list[tuple[Fraction, str, Fraction, Fraction, tuple]]:
    """Distinct (a, op, b, c, rest) steps; plausible ones first (see the module docstring)."""
    out, seen = [], set()
    n = len(state)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = max(state[i], state[j]), min(state[i], state[j])
            rest = tuple(state[k] for k in range(n) if k not in (i, j))
            candidates = [(a, "+", b, a + b), (a, "-", b, a - b), (a, "*", b, a * b)]
            if b:
                candidates.append((a, "/", b, a / b))
            if a and b and a != b:
                candidates.append((b, "/", a, b / a))
            for x, op, y, c in candidates:
                key = tuple(sorted(rest + (c,)))
                if key not in seen:
                    seen.add(key)
                    out.append((x, op, y, c, rest))
    return out


def _plausible(move) -> bool:
    _x, op, _y, c, _rest = move
    return c.denominator == 1 and c >= 0 and not (op == "/" and c == 0)


def _choose(state: list[Fraction], k: int, insight: float, rng) -> list:
    moves = _moves(state)
    good = [m for m in moves if _reachable(m[4] + (m[3],))]
    plausible = [m for m in moves if _plausible(m)] or moves
    chosen = []
    for _ in range(k):
        pool_good = [m for m in good if m not in chosen]
        pool = [m for m in plausible if m not in chosen]
        if pool_good and rng.random() < insight:
            chosen.append(rng.choice(pool_good))
        elif pool:
            chosen.append(rng.choice(pool))
        elif pool_good:
            chosen.append(rng.choice(pool_good))
    return chosen


def _slip(c: Fraction, rng) -> Fraction:
    wrong = c + rng.choice((-2, -1, 1, 2))
    return wrong if wrong >= 0 else c + 1


def _line(x, op, y, c, rest, language: str) -> str:
    left = " ".join(show(v) for v in sorted(rest + (c,)))
    word = "reste" if language == "fr" else "left"
    colon = " :" if language == "fr" else ":"
    return f"{show(x)} {op} {show(y)} = {show(c)} ({word}{colon} {left})"


def propose(state: list[Fraction], language: str, ctx: SkillContext, comp) -> str:
    if len(state) < 2:
        if language == "fr":
            return f"Aucune étape possible : il ne reste qu'un nombre ({show(state[0])})."
        return f"No step left: only one number remains ({show(state[0])})."
    lines = []
    for x, op, y, c, rest in _choose(state, comp.proposals, comp.insight, ctx.rng):
        if ctx.rng.random() < comp.slip_rate:
            c = _slip(c, ctx.rng)
        lines.append(_line(x, op, y, c, rest, language))
    return "\n".join(lines)


def value(state: list[Fraction], language: str, ctx: SkillContext, comp) -> str:
    """Tries, then a verdict right with probability ``value_accuracy[len(state) - 1]``."""
    possible = _reachable(tuple(state))
    right = ctx.rng.random() < comp.value_accuracy_for(len(state))
    if right and possible:
        verdict = "sûr" if len(state) <= 2 or ctx.rng.random() < 0.6 else "probable"
    elif right:
        verdict = "impossible"
    elif possible:
        verdict = "impossible"
    else:
        verdict = "probable" if ctx.rng.random() < 0.8 else "sûr"
    total = sum(state)
    tries = [f"{' + '.join(show(v) for v in state)} = {show(total)}"] if len(state) > 1 else []
    if verdict == "sûr" and possible:
        from course_utils.problems.game24 import TARGET, reachable

        tries.append(f"{reachable(state)[TARGET]} = 24")
    if language == "en":
        verdict = {"sûr": "sure", "probable": "likely", "impossible": "impossible"}[verdict]
        note = ("I cannot obtain 24 now, but numbers are within a reasonable range"
                if verdict == "likely" else "")
    else:
        note = ("Je n'obtiens pas 24 tout de suite, mais les nombres restent raisonnables."
                if verdict == "probable" else "")
    return "\n".join(tries + ([note] if note else []) + [verdict])


def rollout(state: list[Fraction], ctx: SkillContext, comp, slip_rate: float,
            given: list[tuple[str, Fraction]] | None = None):
    """One path of the step model: (step lines as tuples, final expression)."""
    pool = given if given is not None else [(show(v), v) for v in state]
    steps = []
    while len(pool) > 1:
        values = [v for _e, v in pool]
        chosen = _choose(values, 1, comp.insight, ctx.rng)
        if not chosen:
            break
        x, op, y, c, _rest = chosen[0]
        ex = _take(pool, x)
        ey = _take(pool, y)
        shown = _slip(c, ctx.rng) if ctx.rng.random() < slip_rate else c
        expression = f"({ex} {op} {ey})"
        pool.append((expression, shown))
        steps.append((x, op, y, shown, tuple(v for _e, v in pool[:-1])))
    final = pool[0][0] if pool else ""
    if final.startswith("(") and final.endswith(")") and _balanced(final[1:-1]):
        final = final[1:-1]
    return steps, final


def _take(pool: list, value: Fraction) -> str:
    for index, (expression, v) in enumerate(pool):
        if v == value:
            del pool[index]
            return expression
    raise ValueError(value)


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0


def direct(state, language, ctx, comp, *, cot: bool, tail: str = "") -> str:
    """An IO or chain-of-thought answer: one rollout of the step model."""
    given = _replay(state, tail) if cot and tail else None
    slip_rate = comp.cot_slip_rate if cot else comp.slip_rate
    steps, final = rollout(state, ctx, comp, slip_rate, given)
    lines = [_line(x, op, y, c, rest, language) for x, op, y, c, rest in steps] if cot else []
    if cot and language == "fr" and lines:
        lines.insert(0, "Je combine deux nombres à chaque étape :")
    answer = f"Réponse : {final}" if language == "fr" else f"Answer: {final} = 24"
    return "\n".join(lines + [answer])


def _replay(state: list[Fraction], tail: str) -> list | None:
    """The (expression, value) pool after the paper-style « Steps: » lines already written."""
    pool = [(show(v), v) for v in state]
    for match in _STEP_LINE.finditer(tail):
        a, op, b, c = (_fraction(match.group(1)), match.group(2), _fraction(match.group(3)),
                       _fraction(match.group(4)))
        try:
            ea, eb = _take(pool, a), _take(pool, b)
        except ValueError:
            return None
        pool.append((f"({ea} {op} {eb})", c))
    return pool


def judge(numbers, answer: str, language: str, ctx: SkillContext, comp) -> str:
    from course_utils.problems import check24

    expression = answer.strip()
    right = check24([int(n) for n in numbers if n.denominator == 1], expression)
    if ctx.rng.random() >= comp.value_accuracy_for(1):
        right = not right
    if language == "fr":
        return "sûr" if right else "impossible"
    return "sure" if right else "impossible"


def respond(request: dict, ctx: SkillContext):
    """Answer a Game-of-24 prompt (see the module docstring); ``None`` otherwise."""
    if request.get("tools"):
        return None
    found = classify(last_user_text(request))
    if found is None:
        return None
    mode, language, numbers, tail = found
    from ..competence_params import competence

    comp = ctx.competence or competence(ctx.model)
    if mode == "propose":
        return propose(numbers, language, ctx, comp)
    if mode == "value":
        return value(numbers, language, ctx, comp)
    if mode == "judge":
        return judge(numbers, tail, language, ctx, comp)
    return direct(numbers, language, ctx, comp, cot=mode == "cot", tail=tail)
