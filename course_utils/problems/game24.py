"""The Game of 24: an exact solver, a safe checker and the 1,362 solvable puzzles.

Rules: four numbers from 1 to 13, each used exactly once, with ``+ - * /`` and parentheses, must
make 24. Arithmetic is exact (:class:`fractions.Fraction`): ``8 / (3 - 8 / 3)`` is 24, even though
its intermediate value ``1/3`` has no exact float.

* :func:`solve24` returns one expression (a string) or ``None``. It never calls ``eval``: the
  values reachable from every sub-multiset of one, two or three numbers are computed once
  (dynamic programming over multisets, cached), then a four-number puzzle needs only a few
  set look-ups (``v + a == 24`` ⇔ ``24 - a`` reachable from the other three…).
* :func:`check24` parses an answer with a small recursive-descent parser that knows only integer
  literals, ``+ - * /`` (``×``, ``÷``, ``−`` accepted), parentheses and an optional trailing
  ``= 24``; anything else (names, ``**``, ``//``, calls, attributes, unary minus, a number not in
  the puzzle, a number used twice) is rejected. So is an expression longer than 200 characters.
* :func:`game24_puzzles` lists every solvable multiset (1,362), **easiest first**. Hardness
  measure (documented, computed by :func:`hardness`): the share of *search paths* that succeed.
  A path picks, at each of the three steps, one of the distinct next states (two numbers
  replaced by ``a + b``, ``a - b``, ``b - a``, ``a * b``, ``a / b``, ``b / a``; identical
  resulting multisets counted once). A puzzle where 30 % of the paths reach 24 is easier than one
  where 0.5 % do — this is what a Tree-of-Thoughts search feels. Ties are broken by « needs a
  fraction » (every solution goes through a non-integer intermediate: harder), then by the
  numbers. The table ships as package data (``data/game24_hardness.txt``) because computing it
  takes a few seconds; :func:`hardness` recomputes any row (a test checks a sample).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Iterable

TARGET = Fraction(24)
MAX_EXPRESSION_LENGTH = 200

__all__ = ["check24", "game24_puzzles", "hardness", "reachable", "solve24", "next_states", "TARGET"]


# ----------------------------------------------------------------------------- solver


def _combine(x: Fraction, ex: str, y: Fraction, ey: str) -> list[tuple[Fraction, str]]:
    """Every value of one operation on two sub-results, with its expression."""
    out = [(x + y, f"{ex} + {ey}"), (x * y, f"{_wrap(ex)} * {_wrap(ey)}"),
           (x - y, f"{ex} - {_wrap(ey)}"), (y - x, f"{ey} - {_wrap(ex)}")]
    if y:
        out.append((x / y, f"{_wrap(ex)} / {_wrap(ey, strict=True)}"))
    if x:
        out.append((y / x, f"{_wrap(ey)} / {_wrap(ex, strict=True)}"))
    return out


def _wrap(expression: str, strict: bool = False) -> str:
    """Parenthesise a compound sub-expression (kept minimal but always unambiguous)."""
    if " " not in expression:
        return expression
    if not strict and _top_level_ops(expression) <= {"*", "/"}:
        return expression
    return f"({expression})"


def _top_level_ops(expression: str) -> set[str]:
    depth, ops = 0, set()
    for char in expression:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0 and char in "+-*/":
            ops.add(char)
    return ops


@lru_cache(maxsize=None)
def _reachable(numbers: tuple[int, ...]) -> dict[Fraction, str]:
    """Every value reachable from the multiset ``numbers`` (sorted tuple) → one expression."""
    if len(numbers) == 1:
        return {Fraction(numbers[0]): str(numbers[0])}
    values: dict[Fraction, str] = {}
    for left, right in _splits(numbers):
        for x, ex in _reachable(left).items():
            for y, ey in _reachable(right).items():
                for value, expression in _combine(x, ex, y, ey):
                    values.setdefault(value, expression)
    return values


def reachable(numbers: Iterable) -> dict[Fraction, str]:
    """Every value reachable from ``numbers`` (ints or Fractions, any count) → one expression."""
    return _reachable(tuple(sorted(Fraction(n) for n in numbers)))


def _splits(numbers: tuple[int, ...]) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Distinct ways to split a sorted multiset into two non-empty sorted parts (unordered)."""
    n, seen, out = len(numbers), set(), []
    for mask in range(1, 2 ** n - 1):
        left = tuple(numbers[i] for i in range(n) if mask >> i & 1)
        right = tuple(numbers[i] for i in range(n) if not mask >> i & 1)
        key = tuple(sorted((left, right)))
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def _needed(a: Fraction, target: Fraction) -> list[tuple[Fraction, str]]:
    """Values ``v`` with ``v op a == target`` or ``a op v == target``, and the template."""
    out = [(target - a, "{v} + {a}"), (target + a, "{v} - {a}"), (a - target, "{a} - {v}")]
    if a:
        out.append((target / a, "{v} * {a}"))
        out.append((target * a, "{v} / {a}"))
    if target and a:
        out.append((a / target, "{a} / {v}"))  # v = a / target is non-zero
    return out


def solve24(numbers: Iterable[int]) -> str | None:
    """One expression using each number once that makes exactly 24, or ``None``.

    >>> solve24([4, 4, 6, 8]) is not None
    True
    >>> solve24([1, 1, 1, 1]) is None
    True
    """
    numbers = tuple(sorted(int(n) for n in numbers))
    if len(numbers) < 1:
        return None
    if len(numbers) <= 3:
        return _reachable(numbers).get(TARGET)
    for left, right in _splits(numbers):
        if len(left) == 1 or len(right) == 1:
            single, rest = (left, right) if len(left) == 1 else (right, left)
            a = Fraction(single[0])
            pool = _reachable(rest)
            for v, template in _needed(a, TARGET):
                if v in pool:
                    return _format(template, pool[v], str(single[0]))
        else:
            pool_right = _reachable(right)
            for x, ex in _reachable(left).items():
                for v, template in _needed(x, TARGET):
                    if v in pool_right:
                        return _format(template, pool_right[v], ex)
    return None


def _format(template: str, v_expr: str, a_expr: str) -> str:
    op = template.split()[1]
    strict = op in "-/"
    if template.startswith("{v}"):
        left = _wrap(v_expr) if op in "*/" else v_expr
        return f"{left} {op} {_wrap(a_expr, strict=strict) if op != '+' else a_expr}"
    left = _wrap(a_expr) if op in "*/" else a_expr
    return f"{left} {op} {_wrap(v_expr, strict=strict)}"


# ----------------------------------------------------------------------------- checker


class _Parser:
    """Recursive descent over tokens: expr := term (('+'|'-') term)*, term := atom (('*'|'/') atom)*."""

    def __init__(self, tokens: list[str]):
        self.tokens, self.pos, self.used = tokens, 0, []

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ValueError("fin inattendue")
        self.pos += 1
        return token

    def expression(self, depth: int = 0) -> Fraction:
        if depth > 20:
            raise ValueError("trop de parenthèses")
        value = self.term(depth)
        while self.peek() in ("+", "-"):
            op = self.take()
            other = self.term(depth)
            value = value + other if op == "+" else value - other
        return value

    def term(self, depth: int) -> Fraction:
        value = self.atom(depth)
        while self.peek() in ("*", "/"):
            op = self.take()
            other = self.atom(depth)
            if op == "*":
                value = value * other
            elif other == 0:
                raise ValueError("division par zéro")
            else:
                value = value / other
        return value

    def atom(self, depth: int) -> Fraction:
        token = self.take()
        if token == "(":
            value = self.expression(depth + 1)
            if self.take() != ")":
                raise ValueError("parenthèse non fermée")
            return value
        if token.isdigit() and token.isascii():
            self.used.append(int(token))
            return Fraction(int(token))
        raise ValueError(f"élément interdit : {token!r}")


_SYNONYMS = {"×": "*", "x": None, "÷": "/", "−": "-", "–": "-"}


def _tokens(expression: str) -> list[str]:
    tokens, i = [], 0
    while i < len(expression):
        char = expression[i]
        if char.isspace():
            i += 1
        elif char.isdigit() and char.isascii():
            j = i
            while j < len(expression) and expression[j].isdigit() and expression[j].isascii():
                j += 1
            tokens.append(expression[i:j])
            i = j
        elif char in "+-*/()":
            tokens.append(char)
            i += 1
        elif char in _SYNONYMS and _SYNONYMS[char]:
            tokens.append(_SYNONYMS[char])
            i += 1
        else:
            raise ValueError(f"caractère interdit : {char!r}")
    return tokens


def check24(numbers: Iterable[int], expression: str) -> bool:
    """True when ``expression`` uses each of ``numbers`` exactly once and equals exactly 24.

    Only integer literals, ``+ - * /`` and parentheses are accepted (plus an optional trailing
    ``= 24``); the expression is parsed, never evaluated by Python.

    >>> check24([4, 4, 6, 8], "(4 + 8) * (6 - 4)")
    True
    >>> check24([4, 4, 6, 8], "__import__('os')")
    False
    """
    if not isinstance(expression, str) or len(expression) > MAX_EXPRESSION_LENGTH:
        return False
    text = expression.strip()
    if "=" in text:
        text, _, rhs = text.rpartition("=")
        if rhs.strip() != "24" or "=" in text:
            return False
    try:
        parser = _Parser(_tokens(text))
        value = parser.expression()
        if parser.peek() is not None:
            return False
    except (ValueError, ZeroDivisionError):
        return False
    return value == TARGET and sorted(parser.used) == sorted(int(n) for n in numbers)


# ----------------------------------------------------------------------------- search tree


def next_states(state: tuple[Fraction, ...]) -> list[tuple[Fraction, ...]]:
    """Distinct states after one operation on two of the numbers (sorted tuples of Fractions)."""
    out, seen = [], set()
    n = len(state)
    for i in range(n):
        for j in range(i + 1, n):
            rest = state[:i] + state[i + 1:j] + state[j + 1:]
            a, b = state[i], state[j]
            results = [a + b, a - b, b - a, a * b]
            if b:
                results.append(a / b)
            if a:
                results.append(b / a)
            for value in results:
                new = tuple(sorted(rest + (value,)))
                if new not in seen:
                    seen.add(new)
                    out.append(new)
    return out


@lru_cache(maxsize=None)
def _paths(state: tuple[Fraction, ...]) -> tuple[int, int, bool]:
    """(successful paths, all paths, whether some success avoids non-integer values)."""
    if len(state) == 1:
        ok = state[0] == TARGET
        return int(ok), 1, ok
    good = total = 0
    integral = False
    for child in next_states(state):
        g, t, i = _paths(child)
        good, total = good + g, total + t
        if g and i and all(v.denominator == 1 for v in child):
            integral = True
    return good, total, integral


def hardness(numbers: Iterable[int]) -> tuple[float, bool]:
    """(share of successful search paths, needs a fraction) for a puzzle; see the docstring."""
    state = tuple(sorted(Fraction(int(n)) for n in numbers))
    good, total, integral = _paths(state)
    return good / total, not integral


def _compute_table() -> list[tuple[tuple[int, int, int, int], float, bool]]:
    """Every solvable puzzle with its hardness, easiest first (slow: a few seconds)."""
    rows = []
    for numbers in combinations_with_replacement(range(1, 14), 4):
        if solve24(numbers) is None:
            continue
        share, fraction = hardness(numbers)
        rows.append((numbers, share, fraction))
    rows.sort(key=lambda row: (-round(row[1], 9), row[2], row[0]))
    return rows


def write_table(path) -> None:
    """Regenerate ``data/game24_hardness.txt`` (maintainers only)."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("# a b c d | share of successful search paths | needs a fraction (0/1)\n")
        for numbers, share, fraction in _compute_table():
            handle.write(f"{' '.join(map(str, numbers))} {share:.9f} {int(fraction)}\n")


@lru_cache(maxsize=1)
def _table() -> tuple[tuple[tuple[int, int, int, int], float, bool], ...]:
    from importlib.resources import files

    text = files("course_utils.problems").joinpath("data/game24_hardness.txt").read_text("utf-8")
    rows = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        *nums, share, fraction = line.split()
        rows.append((tuple(int(n) for n in nums), float(share), fraction == "1"))
    return tuple(rows)


def game24_puzzles() -> list[tuple[int, int, int, int]]:
    """The 1,362 solvable puzzles (sorted tuples), easiest → hardest (see the docstring)."""
    return [numbers for numbers, _share, _fraction in _table()]


def puzzle_hardness() -> dict[tuple[int, int, int, int], tuple[float, bool]]:
    """Puzzle → (share of successful search paths, needs a fraction), from the shipped table."""
    return {numbers: (share, fraction) for numbers, share, fraction in _table()}
