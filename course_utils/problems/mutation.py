"""Mutants of a reference solution: the small, plausible mistakes a model makes.

:func:`candidate_mutants` rewrites the source with :mod:`ast`, one change at a time, in a fixed
order: a flipped comparison (``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``), an off-by-one on
an integer constant, a swapped concatenation or subtraction (``a + b`` → ``b + a`` on strings,
``a - b`` → ``b - a``), a dropped branch (an ``if`` without its body), a ``range`` stop moved by
one. Nothing guarantees a candidate is wrong (``x + 0`` and ``0 + x`` agree): :func:`failing_mutants`
keeps those that fail at least one test in the sandbox, once per problem (cached).
"""

from __future__ import annotations

import ast
import copy
from functools import lru_cache

__all__ = ["candidate_mutants", "failing_mutants"]

_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
         ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In}


def _sites(tree: ast.AST) -> list[tuple[str, ast.AST]]:
    sites = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in _FLIP:
            sites.append(("comparaison_inversee", node))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "range" and node.args:
            sites.append(("borne_decalee", node))
        elif (isinstance(node, ast.Constant) and type(node.value) is int
              and not isinstance(node.value, bool) and 0 <= node.value <= 10):
            sites.append(("constante_decalee", node))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            sites.append(("operandes_inverses", node))
        elif isinstance(node, ast.If):
            sites.append(("branche_oubliee", node))
    return sites


def _mutate(tree: ast.AST, index: int) -> ast.AST | None:
    tree = copy.deepcopy(tree)
    kind, node = _sites(tree)[index]
    if kind == "comparaison_inversee":
        node.ops[0] = _FLIP[type(node.ops[0])]()
    elif kind == "borne_decalee":
        stop = node.args[-1] if len(node.args) <= 2 else node.args[1]
        position = node.args.index(stop)
        node.args[position] = ast.BinOp(left=stop, op=ast.Sub(), right=ast.Constant(1))
    elif kind == "constante_decalee":
        node.value = node.value + 1
    elif kind == "operandes_inverses":
        node.left, node.right = node.right, node.left
    elif kind == "branche_oubliee":
        node.test = ast.Constant(False)
    return ast.fix_missing_locations(tree)


def candidate_mutants(source: str, limit: int = 12) -> list[tuple[str, str]]:
    """Up to ``limit`` (name, source) single-change variants, in a fixed order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out, seen = [], {ast.unparse(tree)}
    for index, (kind, _node) in enumerate(_sites(tree)):
        mutated = _mutate(tree, index)
        text = ast.unparse(mutated) + "\n"
        if text in seen:
            continue
        seen.add(text)
        out.append((f"{kind}_{index}", text))
        if len(out) >= limit:
            break
    return out


@lru_cache(maxsize=512)
def _failing(source: str, tests: tuple | str) -> tuple[tuple[str, str], ...]:
    from course_utils.sandbox import run_tests

    kept = []
    for name, code in candidate_mutants(source):
        result = run_tests(code, tests, timeout=2.0)
        if not result.ok:
            kept.append((name, code))
    return tuple(kept)


def failing_mutants(source: str, tests) -> list[tuple[str, str]]:
    """The candidate mutants of ``source`` that fail at least one of ``tests`` (sandbox, cached).

    When no candidate fails (a one-line solution gives few sites), the last resort is the
    reference with its final ``return`` giving ``None``: plainly wrong, never a fake pass.
    """
    kept = list(_failing(source, tuple(tests) if isinstance(tests, list) else tests))
    if not kept:
        kept.append(("retour_oublie", _return_none(source)))
    return kept


def _return_none(source: str) -> str:
    tree = ast.parse(source)
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    if functions:
        body = functions[-1].body
        keep = body[:1] if isinstance(body[0], ast.Expr) and isinstance(
            getattr(body[0], "value", None), ast.Constant) else []
        functions[-1].body = keep + [ast.Return(value=ast.Constant(None))]
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
