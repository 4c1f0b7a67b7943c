"""Planning a run: what the child evaluates, and what stays with the supervisor.

Tests come in two forms:

* a list of expressions, each scored (``"fizzbuzz(5) == [1, 2, 'Fizz', 4, 'Buzz']"``);
* one assertion program scored as a whole (HumanEval's ``check(candidate)`` style).
  A single string that is just one expression is treated as a list of one.

An expression test is split into a *skeleton* (comparisons, ``and``/``or``/``not``, literals)
that the supervisor evaluates itself, and *probes* (every other sub-expression, e.g.
``fizzbuzz(5)``) that the child evaluates and sends back as plain data. The expected values
(the literals) are never sent to the child: the untrusted code can neither see them nor take
part in the comparison.
"""

from __future__ import annotations

import ast
from collections import OrderedDict
from dataclasses import dataclass, field

from course_utils.sandbox_plain import OP_SYMBOLS, PlainValueError, compare, describe, truth
from course_utils.sandbox_rewrite import compile_checked
from course_utils.sandbox_static import analyse, parse_source



class PlanError(ValueError):
    """The tests (or the arguments) cannot be run; message in French."""


@dataclass
class Plan:
    total: int
    labels: list[str]
    job: dict
    skeletons: list | None = None  # None for an assertion program
    refusal: str | None = None  # set when the code is refused before any run
    timeout: float = 5.0
    probes: list[list[str]] = field(default_factory=list)
    # The code's checked tree, compiled by the worker before forking: (tree, uses_format,
    # the TestPlan whose tests are compiled once).
    trees: tuple | None = None


def _literal(node: ast.AST):
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _singleton(node: ast.AST) -> bool:
    is_literal, value = _literal(node)
    return is_literal and (value is None or value is True or value is False or value is ...)


def _split(node: ast.expr, probes: list[ast.expr]):
    """Skeleton of ``node``; sub-expressions the child must evaluate go into ``probes``."""
    is_literal, value = _literal(node)
    if is_literal:
        return ("const", value)
    if isinstance(node, ast.Compare):
        ops = [OP_SYMBOLS[type(op).__name__] for op in node.ops]
        sides = [node.left, *node.comparators]
        # ``x is y`` needs both objects in one process: kept in the skeleton only when one
        # side is a singleton literal (``f(x) is None``), else the child evaluates it.
        if all(op not in ("is", "is not") or _singleton(sides[i]) or _singleton(sides[i + 1])
               for i, op in enumerate(ops)):
            return ("cmp", [_split(side, probes) for side in sides], ops)
    elif isinstance(node, ast.BoolOp):
        tag = "and" if isinstance(node.op, ast.And) else "or"
        return (tag, [_split(value, probes) for value in node.values])
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return ("not", _split(node.operand, probes))
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not any(
            isinstance(e, ast.Starred) for e in node.elts):
        tag = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(node)]
        return (tag, [_split(e, probes) for e in node.elts])
    probes.append(node)
    return ("probe", len(probes) - 1)


class ProbeFailed(Exception):
    pass


def evaluate(skeleton, results: list):
    """Value of a skeleton given the probes' results (``["v", value]`` or ``["e", message]``)."""
    tag = skeleton[0]
    if tag == "const":
        return skeleton[1]
    if tag == "probe":
        kind, value = results[skeleton[1]]
        if kind == "e":
            raise ProbeFailed(value)
        return value
    if tag == "cmp":
        sides, ops = skeleton[1], skeleton[2]
        left = evaluate(sides[0], results)
        for op, side in zip(ops, sides[1:]):
            right = evaluate(side, results)
            if not compare(op, left, right):
                return False
            left = right
        return True
    if tag in ("and", "or"):
        value = None
        for part in skeleton[1]:
            value = evaluate(part, results)
            if truth(value) != (tag == "and"):
                return value
        return value
    if tag == "not":
        return not truth(evaluate(skeleton[1], results))
    items = [evaluate(part, results) for part in skeleton[1]]
    return {"list": list, "tuple": tuple, "set": set}[tag](items)


def judge_expression(skeleton, probes: list[str], results: list) -> str | None:
    """None when the test passes, else the French reason of its failure."""
    try:
        if truth(evaluate(skeleton, results)):
            return None
    except ProbeFailed as exc:
        return f"erreur : {exc}"
    except PlainValueError as exc:
        return str(exc)
    if skeleton[0] == "cmp" and len(skeleton[2]) == 1:
        (left, right), op = skeleton[1], skeleton[2][0]
        if left[0] == "const" and right[0] != "const" and op in ("==", "!="):
            left, right = right, left
        try:
            got, wanted = evaluate(left, results), evaluate(right, results)
        except (ProbeFailed, PlainValueError):
            got = wanted = None
        else:
            if op == "==":
                return f"obtenu {describe(got)}, attendu {describe(wanted)}"
            if op == "in":
                return f"obtenu {describe(got)}, attendu une valeur parmi {describe(wanted)}"
            return f"obtenu {describe(got)}, attendu {op} {describe(wanted)}"
    values = [f"{src} = {describe(value)}" for src, (kind, value) in zip(probes, results)
              if kind == "v"]
    return "condition fausse" + (f" (valeurs obtenues : {' ; '.join(values)})" if values else "")


def _normalise_tests(tests) -> tuple[str, list[str] | str]:
    if isinstance(tests, str):
        tree, _ = parse_source(tests, "<tests>", "eval")
        return ("expressions", [tests]) if tree is not None else ("program", tests)
    if isinstance(tests, (list, tuple)) and all(isinstance(t, str) for t in tests):
        return "expressions", list(tests)
    raise PlanError("tests doit être une liste d'expressions (chaînes) "
                    "ou un programme d'assertions (une chaîne)")


@dataclass
class TestPlan:
    """What depends only on the tests: cached, since lessons run the same tests many times."""

    total: int
    labels: list[str]
    skeletons: list | None
    probes: list[list[str]]
    program: str | None
    trees: list | None  # checked trees, until compiled (compiling rewrites them)
    modules: set = field(default_factory=set)  # allowed modules the tests import
    compiled: list | None = None

    def code_objects(self) -> list:
        """The tests compiled (rewritten for plain comparisons), once."""
        if self.compiled is None:
            if self.program is not None:
                self.compiled = [compile_checked(self.trees[0], "<tests>", "exec", tests=True,
                                                 uses_format=True)]
            else:
                self.compiled = [[compile_checked(probe, "<tests>", "eval", tests=True,
                                                  uses_format=True) for probe in probes]
                                 for probes in self.trees]
            self.trees = None
        return self.compiled


_CACHE: OrderedDict = OrderedDict()
CACHE_SIZE = 256


def _test_plan(kind: str, tests) -> TestPlan:
    key = (kind, tests if kind == "program" else tuple(tests))
    cached = _CACHE.get(key)
    if cached is not None:
        _CACHE.move_to_end(key)
        return cached
    if kind == "program":
        tree, error = parse_source(tests, "<tests>")
        if error:
            raise PlanError(f"programme de test invalide : {error}")
        modules: set = set()
        reasons, _ = analyse(tree, modules)
        if reasons:
            raise PlanError("programme de test refusé : " + " ; ".join(reasons))
        plan = TestPlan(1, ["programme de test"], None, [], tests, [tree], modules)
    else:
        skeletons, all_probes, trees, modules = [], [], [], set()
        for source in tests:
            tree, error = parse_source(source, "<tests>", "eval")
            if error:
                raise PlanError(f"test invalide : {source!r} ({error})")
            reasons, _ = analyse(tree, modules)
            if reasons:
                raise PlanError(f"test refusé : {source!r} ({' ; '.join(reasons)})")
            probes: list[ast.expr] = []
            skeletons.append(_split(tree.body, probes))
            all_probes.append([ast.unparse(probe) for probe in probes])
            trees.append([ast.Expression(probe) for probe in probes])
        plan = TestPlan(len(tests), list(tests), skeletons, all_probes, None, trees, modules)
    _CACHE[key] = plan
    if len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return plan


def make_plan(code, tests, *, timeout: float, memory_mb: int, output_limit: int = 20_000) -> Plan:
    """Check the inputs and the code, split the tests; raise PlanError on bad tests."""
    kind, tests = _normalise_tests(tests)
    if not isinstance(timeout, (int, float)) or not timeout > 0:
        raise PlanError("timeout doit être un nombre de secondes positif")
    if not isinstance(memory_mb, int) or memory_mb < 16:
        raise PlanError("memory_mb doit être un entier (au moins 16)")
    tests_plan = _test_plan(kind, tests)
    job = {"code": code, "timeout": float(timeout), "memory_mb": memory_mb,
           "output_limit": output_limit}
    if tests_plan.program is not None:
        job["program"] = tests_plan.program
    else:
        job["probes"] = tests_plan.probes
    plan = Plan(total=tests_plan.total, labels=tests_plan.labels, job=job,
                skeletons=tests_plan.skeletons, timeout=float(timeout), probes=tests_plan.probes)
    tree, error = parse_source(code)
    if error:
        plan.refusal = error
        return plan
    modules = set(tests_plan.modules)
    reasons, uses_format = analyse(tree, modules)
    if reasons:
        plan.refusal = "code refusé : " + " ; ".join(reasons)
    job["modules"] = sorted(modules)
    plan.trees = (tree, uses_format, tests_plan)
    return plan
