"""Arithmetic expressions in a request: « Calcule (10 - 3) * 2 + 5**2 », « 3 fois 4 plus 2 ».

``find_expression`` returns a small tree (``Num`` leaves, ``Op`` nodes) parsed with ``ast`` from
a normalised copy of the text, never evaluated by Python: the offline model computes nothing
itself, it asks the tools (see ``planning``). Symbols ``×``, ``÷``, ``^``, ``**`` and the French
words « plus », « moins », « fois », « multiplié par », « divisé par », « puissance », « au carré »
are understood, as are « additionne 3 et 4 », « produit de 6 et 7 », « soustrais 3 de 10 ».
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Union

from ...text import fold

OPS = ("add", "subtract", "multiply", "divide", "power")
SYMBOLS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "power": "**"}
_AST_OPS = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide",
            ast.Pow: "power"}
_NUM = r"\d+(?:[.,]\d+)?"
MAX_CHARS = 300  # longer "expressions" are data (a log, a table), not a question


@dataclass(frozen=True)
class Num:
    value: float

    def render(self) -> str:
        return format_number(self.value)


@dataclass(frozen=True)
class Op:
    op: str
    left: Expr
    right: Expr

    def render(self, parent: str | None = None) -> str:
        left = self.left.render(self.op) if isinstance(self.left, Op) else self.left.render()
        right = self.right.render(self.op) if isinstance(self.right, Op) else self.right.render()
        text = f"{left} {SYMBOLS[self.op]} {right}" if self.op != "power" else f"{left}**{right}"
        weaker = {"add": 0, "subtract": 0, "multiply": 1, "divide": 1, "power": 2}
        if parent is not None and weaker[self.op] < weaker[parent]:
            return f"({text})"
        return text


Expr = Union[Num, Op]


def format_number(value: float) -> str:
    """``7.0`` → ``"7"``, ``0.1 + 0.2`` → ``"0.3"`` (at most 10 significant digits)."""
    if isinstance(value, bool):
        return str(value)
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.10g}"


def _normalise(text: str) -> str:
    folded = fold(text)
    folded = re.sub(r"(?<=\d),(?=\d)", ".", folded)
    for symbol, op in (("×", "*"), ("÷", "/"), ("−", "-"), ("–", "-"), ("^", "**")):
        folded = folded.replace(symbol, op)
    folded = re.sub(r"(?<=[\d)])\s+au carre", "**2", folded)
    folded = re.sub(r"(?<=[\d)])\s+au cube", "**3", folded)
    operand_end, operand_start = r"(?<=[\d)])\s*", r"\s*(?=[\d(])"
    words = (
        (r"multiplie(?:e|s|es)? par", "*"), (r"divise(?:e|s|es)? par", "/"), (r"fois", "*"),
        (r"plus", "+"), (r"moins", "-"), (r"a la puissance", "**"), (r"puissance", "**"),
        (r"x", "*"),
    )
    for word, op in words:
        folded = re.sub(operand_end + word + operand_start, f" {op} ", folded)
    return folded


def _to_tree(node: ast.AST) -> Expr | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return Num(float(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _to_tree(node.operand)
        return Num(-inner.value) if isinstance(inner, Num) else None
    if isinstance(node, ast.BinOp) and type(node.op) in _AST_OPS:
        left, right = _to_tree(node.left), _to_tree(node.right)
        if left is None or right is None:
            return None
        return Op(_AST_OPS[type(node.op)], left, right)
    return None


def _parse(candidate: str) -> Expr | None:
    candidate = candidate.strip()
    if len(candidate) > MAX_CHARS:
        return None
    while candidate:
        try:
            tree = _to_tree(ast.parse(candidate, mode="eval").body)
        except (SyntaxError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            return tree
        if candidate.count("(") > candidate.count(")"):
            candidate = candidate[candidate.index("(") + 1:].strip()
        elif candidate.count(")") > candidate.count("("):
            candidate = candidate[: candidate.rindex(")")].strip()
        else:
            shorter = candidate.rstrip("+-*/. ").strip()
            if shorter == candidate:
                return None  # well balanced and still not a plain arithmetic expression
            candidate = shorter
    return None


def _word_forms(folded: str) -> Expr | None:
    patterns = (
        (rf"(?:additionne|ajoute|somme de)\s+({_NUM})\s+(?:et|a|avec)\s+({_NUM})(?!\s*[%€$\d])",
         "add", False),
        (rf"(?:produit de)\s+({_NUM})\s+(?:et|par)\s+({_NUM})", "multiply", False),
        (rf"(?:multiplie)\s+({_NUM})\s+par\s+({_NUM})", "multiply", False),
        (rf"(?:divise)\s+({_NUM})\s+par\s+({_NUM})", "divide", False),
        (rf"(?:soustrais|retire|retranche)\s+({_NUM})\s+(?:de|a)\s+({_NUM})", "subtract", True),
        (rf"difference entre\s+({_NUM})\s+et\s+({_NUM})", "subtract", False),
    )
    for pattern, op, swapped in patterns:
        match = re.search(pattern, folded)
        if match:
            a, b = (float(match.group(i).replace(",", ".")) for i in (1, 2))
            return Op(op, Num(b), Num(a)) if swapped else Op(op, Num(a), Num(b))
    return None


def find_expression(text: str) -> Expr | None:
    """The arithmetic expression of a request, or ``None`` when it holds no operation."""
    normalised = _normalise(text)
    best: Expr | None = None
    best_len = 0
    for match in re.finditer(r"[(\-]*\d[\d\s().+\-*/]*", normalised):
        candidate = match.group(0)
        if not re.search(r"[\d)]\s*(\*\*|[+\-*/])\s*[\d(-]", candidate):
            continue
        tree = _parse(candidate)
        if isinstance(tree, Op) and len(candidate) > best_len:
            best, best_len = tree, len(candidate)
    if best is not None:
        return best
    return _word_forms(fold(text))


def expression_text(text: str) -> str | None:
    """The expression as a plain string (``"(10 - 3) * 2 + 5**2"``), for ``expression`` params."""
    tree = find_expression(text)
    return tree.render() if tree is not None else None


def operations(tree: Expr) -> set[str]:
    """The operation names a tree uses."""
    if isinstance(tree, Num):
        return set()
    return {tree.op} | operations(tree.left) | operations(tree.right)
