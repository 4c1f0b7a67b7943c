"""Tree of Thoughts on the Game of 24 (Yao et al. 2023), and the one-call baselines.

``tree_of_thoughts(numbers, beam=5)`` is :func:`tree.bfs` with two kinds of **model calls**:

* *propose*: for a state (the numbers left), the model lists next steps ``a + b = c (reste : …)``;
  each readable step whose operands are among the numbers left gives a child state, which keeps
  the expression built so far (``(4 + 8)``). The model's own ``c`` is kept, slips included: a
  wrong step is caught later by the value step or by the final check, as in the paper;
* *value*: the model judges whether 24 is still reachable — « sûr / probable / impossible »,
  mapped to 20 / 1 / 0.001 as in the paper and summed over ``value_samples`` samples (3 in the
  paper; one request with ``n=``). Identical states are valued once per search (the paper's
  cache).

After ``depth`` (3) levels, the final states hold one number each and their expressions are
checked with ``check24``. ``solved`` is the **top-ranked** candidate's check (top-1); ``passed``
/ ``total`` count the final candidates that reach 24 — ``passed > 0`` is the paper's "any of the
b candidates" success. ``answer24`` is the direct answer (IO) or chain of thought (CoT) baseline.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from .extract import extract_expression, parse_steps, parse_value
from .prompts import direct24_prompt, format_number, propose_prompt, user, value_prompt
from .result import EngineResult, TraceEntry
from .sampling import resolve, sample
from .tree import bfs
from ..usage import Usage

VALUE_OF = {"sûr": 20.0, "probable": 1.0, "impossible": 0.001}


def check24(numbers, expression: str | None) -> bool:
    """``expression`` uses each of ``numbers`` once and equals 24 (``problems.check24``)."""
    if not expression:
        return False
    from ..problems import check24 as _check24

    try:
        return bool(_check24(tuple(numbers), expression))
    except Exception:  # a malformed expression is a wrong answer, never an engine crash
        return False


@dataclass(frozen=True)
class State:
    """Numbers left (as the model claimed them) and the expression behind each one."""

    items: tuple[tuple[Fraction, str], ...]
    steps: tuple[str, ...] = ()

    @property
    def numbers(self) -> tuple[Fraction, ...]:
        return tuple(value for value, _ in self.items)

    def shown(self) -> str:
        left = " ".join(format_number(v) for v in self.numbers)
        return f"{' ; '.join(self.steps) or 'départ'} → reste : {left}"

    @classmethod
    def start(cls, numbers) -> State:
        return cls(tuple((Fraction(n), str(n)) for n in numbers))


def _true_value(expr: str) -> Fraction | None:
    import ast

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return Fraction(node.value)
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            op = type(node.op)
            if op is ast.Add:
                return a + b
            if op is ast.Sub:
                return a - b
            if op is ast.Mult:
                return a * b
            if op is ast.Div:
                return a / b
        raise ValueError(expr)

    try:
        return ev(ast.parse(expr, mode="eval"))
    except (ValueError, ZeroDivisionError, SyntaxError):
        return None


def children_of(state: State, text: str) -> list[State]:
    """The states reached by the readable steps of a propose answer."""
    children = []
    for a, op, b, c in parse_steps(text):
        items = list(state.items)
        try:
            i = next(k for k, (v, _) in enumerate(items) if v == a)
            j = next(k for k, (v, _) in enumerate(items) if v == b and k != i)
        except StopIteration:
            continue  # an operand that is not among the numbers left: unusable step
        expr = f"({items[i][1]} {op} {items[j][1]})"
        rest = [item for k, item in enumerate(items) if k not in (i, j)]
        step = f"{format_number(a)} {op} {format_number(b)} = {format_number(c)}"
        children.append(State(tuple(rest + [(c, expr)]), state.steps + (step,)))
    return children


def _key(state: State) -> tuple:
    return tuple(sorted((v, _true_value(e)) for v, e in state.items))


def tree_of_thoughts(numbers, beam: int = 5, *, client: Any = None, model: str | None = None,
                     temperature: float = 0.7, value_samples: int = 3, depth: int = 3,
                     max_tokens: int | None = None) -> EngineResult:
    """Breadth-first Tree of Thoughts with model proposals and values (module docstring)."""
    client, model = resolve(client, model)
    numbers = tuple(numbers)
    start = time.perf_counter()
    spent = {"usage": Usage(), "requests": 0, "seconds": 0.0, "propose": 0, "value": 0}
    values: dict[str, float] = {}

    def call(prompt: str, n: int, kind: str) -> tuple[str, ...]:
        out = sample([user(prompt)], n, client=client, model=model, temperature=temperature,
                     max_tokens=max_tokens)
        spent["usage"] += out.usage
        spent["requests"] += out.requests
        spent["seconds"] += out.seconds
        spent[kind] += 1
        return out.texts

    def propose(state: State) -> list[State]:
        if len(state.items) <= 1:
            return []
        return children_of(state, call(propose_prompt(state.numbers), 1, "propose")[0])

    def value(state: State) -> float:
        prompt = value_prompt(state.numbers)
        if prompt not in values:
            verdicts = [parse_value(t) for t in call(prompt, value_samples, "value")]
            values[prompt] = sum(VALUE_OF.get(v, 0.0) for v in verdicts)
        return values[prompt]

    search = bfs(State.start(numbers), propose, value, beam, depth, dedupe=_key)
    finals = [(state, score) for state, score in search.frontier if len(state.items) == 1]
    answers = [state.items[0][1] for state, _ in finals]
    correct = [check24(numbers, expr) for expr in answers]
    trace = []
    for level, kept in enumerate(search.levels[1:], start=1):
        for state, score in kept:
            ok = check24(numbers, state.items[0][1]) if len(state.items) == 1 else None
            trace.append(TraceEntry("state", level, state.shown(), ok, score))
    top = answers[0] if answers else None
    return EngineResult(
        engine=f"tree_of_thoughts(beam={beam})",
        solved=bool(correct and correct[0]),
        answer=top,
        passed=sum(correct),
        total=len(answers),
        calls=spent["requests"],
        usage=spent["usage"],
        trace=tuple(trace) + (TraceEntry(
            "calls", 0, f"{spent['propose']} proposition(s), {spent['value']} évaluation(s)",
            None, None, f"{len(answers)} candidat(s) final(aux)"),),
        duration_s=time.perf_counter() - start,
        problem=" ".join(map(str, numbers)),
        model_s=spent["seconds"],
    )


def answer24(numbers, *, chain_of_thought: bool = False, n: int = 1, client: Any = None,
             model: str | None = None, temperature: float = 0.7,
             max_tokens: int | None = None) -> EngineResult:
    """Direct answer (IO) or chain of thought (CoT): ``n`` samples of one prompt.

    ``solved`` is the first sample's check (top-1); ``passed`` counts the right samples.
    """
    numbers = tuple(numbers)
    start = time.perf_counter()
    out = sample([user(direct24_prompt(numbers, chain_of_thought=chain_of_thought))], n,
                 client=client, model=model, temperature=temperature, max_tokens=max_tokens)
    trace, correct = [], []
    for index, text in enumerate(out.texts):
        expr = extract_expression(text)
        ok = check24(numbers, expr)
        correct.append(ok)
        trace.append(TraceEntry("sample", index, expr or text.strip()[-80:], ok, None,
                                "" if ok else ("pas d'expression lisible" if expr is None
                                               else "n'atteint pas 24 avec ces nombres")))
    first = extract_expression(out.texts[0]) if out.texts else None
    return EngineResult(
        engine="cot" if chain_of_thought else "io",
        solved=bool(correct and correct[0]),
        answer=first,
        passed=sum(correct),
        total=n,
        calls=out.requests,
        usage=out.usage,
        trace=tuple(trace),
        duration_s=time.perf_counter() - start,
        problem=" ".join(map(str, numbers)),
        model_s=out.seconds,
    )
