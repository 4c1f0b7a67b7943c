"""Competence of the offline model: the documented parameters of the code, game24 and arithmetic
skills, one :class:`Competence` per model name, printable next to every curve a lesson draws.

These are **step-level** settings, set once from what a teacher expects of a weak and of a
stronger model; no end result (a pass@k, a search success rate, a vote gain) was tuned: those
*emerge* from these numbers and the banks.

Code (``skills/code.py``)
    ``code_p_easy`` / ``code_p_hard``: probability that a first attempt is right, at difficulty 0
    and 1 (linear in between: ``p = p_easy + (p_hard - p_easy) * difficulty``).
    ``misconception_share``: for a *misconception* problem, share of wrong answers that are the
    misconception itself (the rest spread over the other mutants; *variance* problems spread all).
    ``repair_q``: probability that an attempt after failing tests (or an error) are shown is right.
    ``overfit_share``: among repairs that are not right, share that special-case the tests shown
    (a hidden test catches them); the others are a mutant again.
    ``lesson_gain``: a retrieved lesson naming the problem's pitfall turns ``p`` into
    ``p + (1 - p) * lesson_gain`` on misconception problems (a status lesson, « résolu en 1
    itération », changes nothing).
    ``reflection_hit``: probability that a reflection names the pitfall.
    ``injection_compliance``: probability of obeying an instruction found in the context to read a
    file or run a command (the code then tries it; the sandbox stops it).

Game of 24 (``skills/game24.py``)
    ``proposals``: number of next steps proposed per state. ``slip_rate``: probability that a
    proposed step has an arithmetic slip (wrong result). ``insight``: probability that a proposed
    (or, for a direct answer, chosen) step keeps 24 reachable when such a step exists, instead of a
    step drawn uniformly among the plausible ones. ``value_accuracy``: probability that a value
    judgement is right, by count of remaining numbers (1, 2, 3, 4). ``cot_slip_rate``: slip rate of
    the steps written in a chain of thought or a direct answer.

Arithmetic (``skills/arithmetic.py``)
    ``step_accuracy``: probability of getting one step of a word problem right; a problem of ``s``
    steps is right with ``step_accuracy ** s``. ``trap_truth`` / ``trap_mistake``: on a
    *systematic-mistake* problem, probability of the truth and of the tempting mistake (the rest
    goes to the other mistakes); the mistake is clearly the more likely — that is what makes these
    problems traps (the bat-and-ball question fools strong models too).
    ``expression_accuracy``: probability of computing a plain arithmetic expression right.

``OfflineModel(competence=...)`` takes a :class:`Competence` (both models), a dict of field
overrides (both models), or ``{"offline-fast": {...}, "offline-big": {...}}``; the model's
``.competence`` then holds ``{model name: Competence}``. ``course_utils.offline.competence(model)``
returns the defaults (or, given ``overrides``, the resolved ones). The module is not named
``competence`` so that the package attribute ``competence`` stays that function.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping

from . import OFFLINE_MODEL_BIG, OFFLINE_MODEL_FAST

__all__ = ["Competence", "DEFAULTS", "competence", "resolve"]


def _accuracy(*values: float) -> tuple[float, ...]:
    return tuple(values)


@dataclass(frozen=True)
class Competence:
    """Step-level parameters of one simulated model (see the module docstring)."""

    # code
    code_p_easy: float = 0.9
    code_p_hard: float = 0.2
    misconception_share: float = 0.85
    repair_q: float = 0.5
    overfit_share: float = 0.5
    lesson_gain: float = 0.7
    reflection_hit: float = 0.6
    injection_compliance: float = 0.5
    # game of 24
    proposals: int = 5
    slip_rate: float = 0.15
    insight: float = 0.25
    value_accuracy: tuple[float, ...] = field(default=(0.97, 0.9, 0.75, 0.6))
    cot_slip_rate: float = 0.1
    # arithmetic
    step_accuracy: float = 0.9
    trap_truth: float = 0.25
    trap_mistake: float = 0.6
    expression_accuracy: float = 0.9

    def code_p(self, difficulty: float) -> float:
        """First-attempt success probability at a problem's difficulty."""
        d = min(1.0, max(0.0, float(difficulty)))
        return self.code_p_easy + (self.code_p_hard - self.code_p_easy) * d

    def value_accuracy_for(self, remaining: int) -> float:
        """Value-judgement accuracy with ``remaining`` numbers left (1 to 4 or more)."""
        index = min(max(int(remaining), 1), len(self.value_accuracy)) - 1
        return self.value_accuracy[index]

    def replace(self, **changes: Any) -> Competence:
        return dataclasses.replace(self, **changes)

    def __str__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            parts.append(f"{f.name}={value}")
        return "Competence(" + ", ".join(parts) + ")"


DEFAULTS: dict[str, Competence] = {
    OFFLINE_MODEL_FAST: Competence(),
    OFFLINE_MODEL_BIG: Competence(
        code_p_easy=0.97, code_p_hard=0.45, misconception_share=0.8, repair_q=0.75,
        overfit_share=0.4, lesson_gain=0.8, reflection_hit=0.85, injection_compliance=0.3,
        proposals=8, slip_rate=0.05, insight=0.4, value_accuracy=(1.0, 0.97, 0.85, 0.7),
        cot_slip_rate=0.04, step_accuracy=0.96, trap_truth=0.35, trap_mistake=0.55,
        expression_accuracy=0.98,
    ),
}


def resolve(overrides: Any = None) -> dict[str, Competence]:
    """The per-model parameters after ``overrides`` (see the module docstring)."""
    table = dict(DEFAULTS)
    if overrides is None:
        return table
    if isinstance(overrides, Competence):
        return {name: overrides for name in table}
    if not isinstance(overrides, Mapping):
        raise TypeError("competence : un Competence, un dict de paramètres, ou "
                        "{nom de modèle: dict} / a Competence, a dict, or {model: dict}")
    if overrides and all(key in table for key in overrides):
        for name, value in overrides.items():
            table[name] = value if isinstance(value, Competence) else table[name].replace(**value)
        return table
    names = {f.name for f in dataclasses.fields(Competence)}
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise ValueError(f"paramètres de compétence inconnus : {unknown} ; connus : {sorted(names)}")
    return {name: value.replace(**overrides) for name, value in table.items()}


def competence(model: Any = None, overrides: Any = None):
    """The active parameters: one :class:`Competence` for ``model``, else ``{model: Competence}``.

    ``model`` may also be an ``OfflineModel``: its own parameters (after its ``competence=``).

    >>> competence("offline-big").repair_q
    0.75
    """
    if isinstance(getattr(model, "competence", None), dict):
        return dict(model.competence)
    table = resolve(overrides)
    if model is None:
        return table
    if model not in table:
        raise ValueError(f"modèle inconnu : {model!r} ; modèles : {', '.join(table)}")
    return table[model]
