"""Self-consistency (Wang et al. 2022): sample N answers, return the most frequent one.

There is **no verifier**: the vote only trusts agreement. On a word problem the votes are the
numbers of the ``Réponse : N`` lines. On code, two programs "agree" when they give the same
outputs on the same inputs: each distinct candidate is run in the sandbox on the *inputs* of the
problem's tests (``fizzbuzz(5)``, never the expected values), and the programs are grouped by
their outputs; the biggest group wins (execution-based voting). Ties go to the answer seen first,
samples without a usable answer abstain. The known answer / the tests are used afterwards, only
to say whether the voted answer is right (``solved``) — never to choose it. (For expression
tests, each program's probes and tests share one sandbox run, to halve the runs; the vote reads
the probes' lines only.)

Voting helps when the right answer is the most likely one; it hurts when a shared mistake is
more likely than the right answer (then more samples make the wrong answer *surer*).
"""

from __future__ import annotations

import ast
import time
from collections import Counter
from collections.abc import Hashable, Iterable
from typing import Any

from .best_of_n import task_prompt
from .extract import extract_answer, extract_code
from .prompts import user
from .result import EngineResult, TraceEntry
from .sampling import sample
from .verify import Verdict, evaluate, is_code_problem, run_sandbox


def majority_vote(answers: Iterable[Hashable | None]) -> tuple[Hashable | None, dict]:
    """(most frequent answer, vote counts); ``None`` answers abstain; ties → first seen."""
    counts = Counter(answer for answer in answers if answer is not None)
    if not counts:
        return None, {}
    winner = max(counts, key=lambda answer: counts[answer])  # Counter keeps first-seen order
    return winner, dict(counts)


# ------------------------------------------------------------------------------ code: inputs


class _Rename(ast.NodeTransformer):
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.Name(self.new, node.ctx) if node.id == self.old else node


def _calls(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in names
               for sub in ast.walk(node))


def probe_inputs(problem: Any) -> list[str]:
    """The call expressions of the problem's tests (``fizzbuzz(5)``), without expected values."""
    names = {problem.function, "candidate"}
    sources = [problem.tests] if isinstance(problem.tests, str) else list(problem.tests)
    probes: list[str] = []
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            parts = []
            if isinstance(node, ast.Compare):
                parts = [part for part in [node.left, *node.comparators] if _calls(part, names)]
            elif isinstance(node, ast.Assert) and not isinstance(node.test, ast.Compare):
                parts = [node.test] if _calls(node.test, names) else []
            elif isinstance(node, ast.Expression):
                parts = [node.body] if _calls(node.body, names) else []
            for part in parts:
                text = ast.unparse(_Rename("candidate", problem.function).visit(part))
                if text not in probes:
                    probes.append(text)
        if not isinstance(problem.tests, str) and not probes and _calls(tree, names):
            probes.append(source)
    return probes


def _probe_tests(probes: list[str]) -> list[str]:
    # ``[expr] == []`` never holds, so the sandbox reports the value obtained for each probe.
    return [f"[{probe}] == []" for probe in probes]


def output_signature(code: str, probes: list[str], sandbox: Any = None) -> tuple | None:
    """What ``code`` returns on each probe (as the sandbox describes it), ``None`` if it does
    not run at all (syntax error, refusal). No expected value is involved."""
    return probe_and_grade(code, probes, None, sandbox)[0]


def probe_and_grade(code: str, probes: list[str], tests: Any, sandbox: Any = None
                    ) -> tuple[tuple | None, Verdict | None]:
    """(output signature, verdict on ``tests``) from **one** sandbox run when ``tests`` is a
    list of expressions: the probes and the tests run together, the signature is read from the
    probes' lines only, the verdict from the tests' lines only (it grades the vote afterwards and
    never chooses). For an assertion program (or ``tests=None``) the verdict is ``None``."""
    together = isinstance(tests, (list, tuple))
    real = list(tests) if together else []
    start = time.perf_counter()
    try:
        result = run_sandbox(sandbox, code, _probe_tests(probes) + real)
    except Exception:
        return None, None
    seconds = time.perf_counter() - start
    if result.error:
        verdict = Verdict(False, 0, len(real), code, error=result.error, seconds=seconds)
        return None, verdict if together else None
    probe_set = set(_probe_tests(probes))
    signature = tuple(f.reason for f in result.failures if f.test in probe_set)
    if not together:
        return signature, None
    failures = tuple(f for f in result.failures if f.test not in probe_set)
    passed = int(result.passed)  # the probes never pass: every pass is a real test
    return signature, Verdict(passed == len(real), passed, len(real), code, failures, None, seconds)


# ------------------------------------------------------------------------------ engine


def self_consistency(problem: Any, n: int = 9, *, client: Any = None, model: str | None = None,
                     temperature: float = 0.8, max_tokens: int | None = None,
                     sandbox: Any = None) -> EngineResult:
    """Majority vote over ``n`` samples, no verifier (see the module docstring)."""
    start = time.perf_counter()
    samples = sample([user(task_prompt(problem))], n, client=client, model=model,
                     temperature=temperature, max_tokens=max_tokens)
    sandbox_s = 0.0
    if is_code_problem(problem):
        probes = probe_inputs(problem)
        codes = [extract_code(text, problem.function) for text in samples.texts]
        signatures: dict[str, tuple | None] = {}
        graded: dict[str, Verdict | None] = {}
        t0 = time.perf_counter()
        for code in codes:
            if code is not None and code not in signatures:
                if probes:
                    signatures[code], graded[code] = probe_and_grade(code, probes, problem.tests,
                                                                     sandbox)
                else:  # no input to probe: programs agree when their text does
                    signatures[code], graded[code] = (code.strip(),), None
        sandbox_s += time.perf_counter() - t0
        keys = [signatures.get(code) if code is not None else None for code in codes]
        winner, counts = majority_vote(keys)
        chosen = next((code for code, key in zip(codes, keys) if key == winner), None)
        label = {key: next(i for i, k in enumerate(keys) if k == key) for key in counts}
        votes = [TraceEntry("vote", label[key], f"sortie du groupe de l'échantillon {label[key]}",
                            key == winner, count) for key, count in counts.items()]
        abstain = sum(key is None for key in keys)
        # Only now are the tests looked at, to say whether the voted program is right.
        verdict = graded.get(chosen) if chosen is not None else None
        if verdict is None:
            verdict = evaluate(problem, f"```python\n{chosen}```" if chosen else "", sandbox=sandbox)
            sandbox_s += verdict.seconds
        answer = chosen
    else:
        values = [extract_answer(text) for text in samples.texts]
        winner, counts = majority_vote(values)
        votes = [TraceEntry("vote", i, str(value), value == winner, count)
                 for i, (value, count) in enumerate(counts.items())]
        abstain = sum(value is None for value in values)
        verdict = evaluate(problem, f"Réponse : {winner}" if winner is not None else "")
        answer = winner
    if abstain:
        votes.append(TraceEntry("vote", len(votes), "abstention (pas de réponse lisible)", None, abstain))
    return EngineResult(
        engine=f"self_consistency(n={n})",
        solved=verdict.ok and answer is not None,
        answer=answer,
        passed=verdict.passed,
        total=verdict.total,
        calls=samples.requests,
        usage=samples.usage,
        trace=tuple(votes),
        duration_s=time.perf_counter() - start,
        problem=str(getattr(problem, "id", "")),
        model_s=samples.seconds,
        sandbox_s=sandbox_s,
    )
