"""The *arithmetic* skill: word problems and arithmetic questions, answered with a short
reasoning then a last line ``Réponse : N`` (issue 10).

Recognises (no ``tools``, not a Game-of-24 or code prompt):

* a **word problem of the bank** (``course_utils.problems.word_problems()``), its question found
  in the last user message (« {question}\\nRaisonne brièvement, puis termine par une ligne
  `Réponse : N`. » or any other wording around it);
* an **arithmetic question** it can parse (« Combien font 17 × 23 ? », « Calcule (10 - 3) * 2 »,
  « Que vaut 3 fois 4 plus 2 ? », or any text asking for `Réponse : N` that holds an
  expression), parsed by ``understanding.expressions`` and computed exactly;
* any other text asking for « Réponse : N »: an honest « je ne reconnais pas cet énoncé » and
  ``Réponse : inconnue`` (never a made-up number).

Competence (``competence_params``): a bank problem of ``s`` steps is right with probability
``step_accuracy ** s``; a wrong answer is one of the problem's typical mistakes (a forgotten step,
a sign, an order of operations, a slip), equally likely. On a *systematic-mistake* problem
(``piege_*``) the truth has probability ``trap_truth`` and the tempting mistake ``trap_mistake``
(larger): a majority vote converges on the mistake there, and on the truth elsewhere. An
expression is right with probability ``expression_accuracy``; its mistakes are a left-to-right
evaluation ignoring priorities, a swapped subtraction, and a slip of one.
"""

from __future__ import annotations

import re
from fractions import Fraction

from . import SkillContext, last_user_text

_ASKS_ANSWER = re.compile(r"r[ée]ponse\s*:\s*N\b|r[ée]ponse\s*:\s*<", re.IGNORECASE)
_CALC = re.compile(
    r"\b(?:combien (?:font|fait|vaut|valent|donne)|calcule[rsz]?|que vaut|quel est le r[ée]sultat"
    r"|r[ée]sultat de|how much is|what is|compute|evaluate)\b",
    re.IGNORECASE,
)

_REASONING = (
    "Je relève les données de l'énoncé, puis j'enchaîne les {steps} opérations nécessaires.",
    "Je traduis l'énoncé en opérations ({steps} étapes) et je calcule dans l'ordre.",
    "J'identifie ce qui est demandé, puis je fais les {steps} calculs un par un.",
)


def _space(text: str) -> str:
    return " ".join(text.split())


def _find_problem(text: str):
    from course_utils.problems import word_problems

    flat = _space(text)
    for problem in word_problems():
        if _space(problem.question) in flat:
            return problem
    return None


def _format(value) -> str:
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.6g}".replace(".", ",")


def _pick(options, ctx: SkillContext):
    return options[0] if ctx.temperature <= 0 else ctx.rng.choice(options)


def _word_answer(problem, ctx: SkillContext, comp) -> str:
    from course_utils.problems import systematic_mistake, typical_mistakes

    mistakes = typical_mistakes(problem)
    trap = systematic_mistake(problem)
    u = ctx.rng.random()
    if trap:
        if u < comp.trap_truth:
            answer, how = problem.answer, None
        elif u < comp.trap_truth + comp.trap_mistake:
            answer, how = mistakes[trap], trap
        else:
            others = [name for name in mistakes if name != trap] or [trap]
            how = ctx.rng.choice(others)
            answer = mistakes[how]
    elif u < comp.step_accuracy ** problem.steps:
        answer, how = problem.answer, None
    else:
        how = ctx.rng.choice(sorted(mistakes))
        answer = mistakes[how]
    reasoning = _pick(_REASONING, ctx).format(steps=problem.steps)
    return f"{reasoning}\nRéponse : {_format(answer)}"


def _value(tree) -> Fraction | None:
    from ..understanding.expressions import Num

    if isinstance(tree, Num):
        return Fraction(tree.value).limit_denominator(10 ** 6)
    left, right = _value(tree.left), _value(tree.right)
    if left is None or right is None:
        return None
    if tree.op == "add":
        return left + right
    if tree.op == "subtract":
        return left - right
    if tree.op == "multiply":
        return left * right
    if tree.op == "divide":
        return left / right if right else None
    if tree.op == "power":
        if right.denominator != 1 or abs(right) > 12:
            return None
        return left ** int(right) if (left or right >= 0) else None
    return None


def _left_to_right(tree) -> Fraction | None:
    """The classic order-of-operations mistake: evaluate the flattened expression left to right."""
    from ..understanding.expressions import Num, Op

    tokens = []

    def flatten(node):
        if isinstance(node, Num):
            tokens.append(Fraction(node.value).limit_denominator(10 ** 6))
        elif isinstance(node, Op):
            flatten(node.left)
            tokens.append(node.op)
            flatten(node.right)

    flatten(tree)
    value = tokens[0]
    for op, operand in zip(tokens[1::2], tokens[2::2]):
        value = _value(Op(op, Num(float(value)), Num(float(operand))))
        if value is None:
            return None
    return value


def _expression_answer(tree, ctx: SkillContext, comp) -> str | None:
    truth = _value(tree)
    if truth is None:
        return None
    mistakes = []
    for candidate in (_left_to_right(tree), _swapped(tree), truth + 1, truth - 1):
        if candidate is not None and candidate != truth and candidate not in mistakes:
            mistakes.append(candidate)
    answer = truth if ctx.rng.random() < comp.expression_accuracy else ctx.rng.choice(mistakes[:3])
    return f"Je calcule {tree.render()} en respectant les priorités.\nRéponse : {_format(answer)}"


def _swapped(tree) -> Fraction | None:
    from ..understanding.expressions import Op

    if isinstance(tree, Op) and tree.op == "subtract":
        return _value(Op("subtract", tree.right, tree.left))
    return None


def respond(request: dict, ctx: SkillContext):
    """``Réponse : N`` for a word problem or an arithmetic question; ``None`` otherwise."""
    if request.get("tools"):
        return None
    text = last_user_text(request)
    if not text.strip() or "```" in text or re.search(r"jeu de 24|obtain 24|reach 24", text, re.I):
        return None
    from ..competence_params import competence

    comp = ctx.competence or competence(ctx.model)
    problem = _find_problem(text)
    if problem is not None:
        return _word_answer(problem, ctx, comp)
    asks_answer = bool(_ASKS_ANSWER.search(text))
    if asks_answer or _CALC.search(text):
        from ..understanding.expressions import Op, find_expression

        tree = find_expression(text)
        if isinstance(tree, Op):
            answer = _expression_answer(tree, ctx, comp)
            if answer is not None:
                return answer
    if asks_answer:
        return ("Je ne reconnais pas cet énoncé : hors ligne, je ne sais résoudre que les "
                "problèmes de la banque du cours et les calculs que je peux lire.\n"
                "Réponse : inconnue")
    return None
