"""Grader side: split an instructor check cell into what the student kernel extracts and what the
grader decides.

Every ``check(label, subject, expected=..., hint=..., points=...)`` call and every ``assert
TEST, MESSAGE`` (or ``raise AssertionError(MESSAGE)``) of a solution check cell — hidden tests
included — is rewritten so that the kernel only evaluates the **leaves** of the expression: the
sub-expressions that need the notebook (calls to the student's functions, names, attributes,
subscripts, comprehensions). The rest — comparisons, boolean operators, constants, calls to a
few pure builtins (``len``, ``isinstance`` with builtin types, ``sorted``, ``set``, ``all``…),
f-string messages, ``expected=``, ``hint=`` — is kept by the grader as a Python expression over
``__v[k]`` (the plain value of leaf ``k``) and evaluated in the grader process
(:mod:`course_utils.grading.judge`). So the expected answers of a test never reach the student
kernel, and a faked record has to contain the right answers to the cell's inputs.

A comprehension over kernel data (``all(p["type"] == "number" for p in props)``) is split too:
the kernel lists each element's leaves, the grader evaluates the element. What stays in the
kernel, by construction: the cell's inputs and helper code, control flow (``if``/``for``/
``try``), a comprehension's filter (``if``), and whatever a leaf computes (a lambda's body). Tests
written as plain comparisons are therefore
the strongest; the README says so to lesson authors.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from course_utils.grading.probe import PROBE_NAME

SAFE_FUNCTIONS = frozenset({
    "len", "isinstance", "sorted", "set", "frozenset", "list", "tuple", "dict", "str", "int",
    "float", "bool", "abs", "round", "min", "max", "sum", "all", "any", "repr",
})
TYPE_NAMES = frozenset({"dict", "list", "tuple", "set", "frozenset", "str", "int", "float",
                        "bool"})


class CheckCellError(ValueError):
    """A solution check cell the grader cannot use (French message)."""


@dataclass(frozen=True)
class Assertion:
    """An ``assert`` (or explicit ``raise AssertionError``) of a check cell, decided by the grader."""

    id: str
    line: int
    test: str | None  # grader expression over __v, None for an explicit failure
    message: str | None  # grader expression giving the message, None when there is none
    text: str  # the original test, to name it when there is no message


@dataclass(frozen=True)
class CheckSpec:
    """One ``check(...)`` call of a solution check cell (lines are 1-based, inclusive)."""

    id: str
    label: str
    start: int
    end: int
    points: float
    mode: str  # "expr": subject split into leaves; "call": subject evaluated (and called) whole
    value: str | None  # grader expression of the subject's value (mode "expr")
    is_lambda: bool
    expected: str | None  # grader expression over the extra leaves (None: no expected=)
    expected_in_kernel: bool  # expected= needs the notebook: its leaves come from the solution
    hint: str  # grader expression over the extra leaves ("''" when absent)


@dataclass(frozen=True)
class Instrumented:
    """The kernel's source for one check cell and the grader's half of every test in it."""

    source: str
    checks: tuple[CheckSpec, ...]
    assertions: dict = field(default_factory=dict)  # id -> Assertion


class _Leaves:
    def __init__(self, name: str = "__v") -> None:
        self.nodes: list[ast.expr] = []
        self.name = name

    def leaf(self, node: ast.expr) -> ast.expr:
        self.nodes.append(node)
        return ast.Subscript(ast.Name(self.name, ast.Load()), ast.Constant(len(self.nodes) - 1),
                             ast.Load())

    def comprehension(self, node) -> ast.expr:
        """``(ELT for x in ITER if C)``: the kernel lists each element's leaves, the grader
        evaluates ``ELT`` on them (so a comparison written in a comprehension stays here)."""
        inner = _Leaves(f"{self.name}_{len(self.nodes)}")  # unique, even when nested
        element = inner.split(node.elt)
        rows = ast.ListComp(ast.Tuple(list(inner.nodes), ast.Load()), node.generators)
        rebuilt = ast.comprehension(ast.Name(inner.name, ast.Store()), self.leaf(rows), [], 0)
        return type(node)(element, [rebuilt])

    def split(self, node: ast.expr) -> ast.expr:
        """The grader's half of ``node``; the kernel's halves are appended to ``self.nodes``."""
        if isinstance(node, ast.Constant):
            return node
        if isinstance(node, ast.Name):
            return node if node.id in SAFE_FUNCTIONS else self.leaf(node)
        if isinstance(node, ast.Compare):
            return ast.Compare(self.split(node.left), node.ops,
                               [self.split(item) for item in node.comparators])
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(node.op, [self.split(item) for item in node.values])
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(node.op, self.split(node.operand))
        if isinstance(node, ast.BinOp):
            return ast.BinOp(self.split(node.left), node.op, self.split(node.right))
        if isinstance(node, ast.IfExp):
            return ast.IfExp(self.split(node.test), self.split(node.body), self.split(node.orelse))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and not any(
                isinstance(item, ast.Starred) for item in node.elts):
            return type(node)([self.split(item) for item in node.elts], *(
                [ast.Load()] if not isinstance(node, ast.Set) else []))
        if isinstance(node, ast.Dict) and None not in node.keys:
            return ast.Dict([self.split(k) for k in node.keys], [self.split(v) for v in node.values])
        if isinstance(node, ast.JoinedStr):
            return ast.JoinedStr([self._formatted(item) for item in node.values])
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)) and len(
                node.generators) == 1 and not node.generators[0].is_async:
            return self.comprehension(node)
        if isinstance(node, ast.Call) and self._safe_call(node):
            return ast.Call(node.func, [self.split(arg) for arg in node.args],
                            [ast.keyword(k.arg, self.split(k.value)) for k in node.keywords])
        return self.leaf(node)

    def _formatted(self, node):
        if isinstance(node, ast.FormattedValue):
            spec = node.format_spec
            return ast.FormattedValue(self.split(node.value), node.conversion,
                                      self.split(spec) if spec is not None else None)
        return node

    @staticmethod
    def _safe_call(node: ast.Call) -> bool:
        func = node.func
        if not (isinstance(func, ast.Name) and func.id in SAFE_FUNCTIONS):
            return False
        if any(isinstance(arg, ast.Starred) for arg in node.args) or any(
                k.arg is None or isinstance(k.value, ast.Lambda) for k in node.keywords):
            return False
        if func.id == "isinstance":
            if len(node.args) != 2:
                return False
            kinds = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
            return all(isinstance(k, ast.Name) and k.id in TYPE_NAMES for k in kinds)
        return True

    def thunks(self) -> ast.List:
        return ast.List([_thunk(node) for node in self.nodes], ast.Load())


def _thunk(node: ast.expr) -> ast.Lambda:
    return ast.Lambda(ast.arguments([], [], None, [], [], None, []), node)


def _probe(method: str, *args, **keywords) -> ast.Call:
    return ast.Call(ast.Attribute(ast.Name(PROBE_NAME, ast.Load()), method, ast.Load()),
                    list(args), [ast.keyword(k, v) for k, v in keywords.items()])


def is_check_call(node: ast.AST) -> bool:
    """``check(...)`` or ``something.check(...)``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "check") or (
        isinstance(func, ast.Attribute) and func.attr == "check")


def _is_assertion_raise(node: ast.Raise) -> bool:
    exc = node.exc
    target = exc.func if isinstance(exc, ast.Call) else exc
    return isinstance(target, ast.Name) and target.id == "AssertionError"


class _Rewriter(ast.NodeTransformer):
    def __init__(self, where: str, prefix: str) -> None:
        self.where, self.prefix = where, prefix
        self.checks: list[CheckSpec] = []
        self.assertions: dict[str, Assertion] = {}

    # -- assert / raise AssertionError
    def visit_Assert(self, node: ast.Assert):
        leaves = _Leaves()
        test = leaves.split(node.test)
        message = leaves.split(node.msg) if node.msg is not None else None
        site = f"{self.prefix}a{len(self.assertions)}"
        self.assertions[site] = Assertion(
            site, node.lineno, ast.unparse(test), ast.unparse(message) if message else None,
            ast.unparse(node.test))
        return ast.copy_location(ast.Expr(_probe("site", ast.Constant(site), leaves.thunks())),
                                 node)

    def visit_Raise(self, node: ast.Raise):
        if not _is_assertion_raise(node):
            return self.generic_visit(node)
        leaves = _Leaves()
        message = None
        if isinstance(node.exc, ast.Call) and node.exc.args:
            message = leaves.split(node.exc.args[0])
        site = f"{self.prefix}a{len(self.assertions)}"
        self.assertions[site] = Assertion(site, node.lineno, None,
                                          ast.unparse(message) if message else None,
                                          "raise AssertionError")
        return ast.copy_location(ast.Expr(_probe("fail", ast.Constant(site), leaves.thunks())),
                                 node)

    # -- check(...)
    def visit_Call(self, node: ast.Call):
        if not is_check_call(node):
            return self.generic_visit(node)
        args = dict(zip(("name", "subject", "expected"), node.args))
        for keyword in node.keywords:
            if keyword.arg in ("name", "value_or_callable", "expected", "hint", "points"):
                args["subject" if keyword.arg == "value_or_callable" else keyword.arg] = keyword.value
        if "subject" not in args:
            raise CheckCellError(f"{self.where} ligne {node.lineno} : check(nom, valeur) attendu")
        check_id = f"c{len(self.checks)}"
        name = args.get("name")
        label = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else (
            f"vérification ligne {node.lineno}")
        points = self._points(args.get("points"), node.lineno)
        extra = _Leaves()
        expected = args.get("expected")
        expected_expr = ast.unparse(extra.split(expected)) if expected is not None else None
        expected_in_kernel = bool(extra.nodes)
        hint = args.get("hint")
        hint_expr = ast.unparse(extra.split(hint)) if hint is not None else "''"
        subject = args["subject"]
        leaves = _Leaves()
        keywords = {"extra": extra.thunks()}
        if isinstance(subject, ast.Lambda) and not subject.args.args and not (
                subject.args.vararg or subject.args.kwarg or subject.args.kwonlyargs
                or subject.args.posonlyargs):
            mode, value, is_lambda = "expr", ast.unparse(leaves.split(subject.body)), True
            keywords["stub"] = _thunk(ast.Tuple(list(leaves.nodes), ast.Load()))
        else:
            value_node = leaves.split(subject)
            if len(leaves.nodes) == 1 and leaves.nodes[0] is subject:
                mode, value, is_lambda = "call", None, False
                keywords["call"] = ast.Constant(True)
            else:
                mode, value, is_lambda = "expr", ast.unparse(value_node), False
        self.checks.append(CheckSpec(
            check_id, label, node.lineno, node.end_lineno or node.lineno, points, mode, value,
            is_lambda, expected_expr, expected_in_kernel, hint_expr))
        return ast.copy_location(
            _probe("check", ast.Constant(check_id), leaves.thunks(), **keywords), node)

    def _points(self, node, line: int) -> float:
        if node is None:
            return 1
        try:
            points = ast.literal_eval(node)
        except ValueError:
            points = None
        if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
            raise CheckCellError(f"{self.where} ligne {line} : points= doit être un nombre écrit")
        return points


def instrument(source: str, where: str = "cellule", prefix: str = "") -> Instrumented:
    """The instrumented kernel source of a check cell and the grader's half of its tests.

    ``prefix`` (the cell id) makes assertion ids unique across a notebook: a helper defined in one
    check cell may be called by the checks of another.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise CheckCellError(f"{where} : syntaxe invalide ({exc.msg})") from None
    rewriter = _Rewriter(where, f"{prefix}:" if prefix else "")
    tree = ast.fix_missing_locations(rewriter.visit(tree))
    checks = sorted(rewriter.checks, key=lambda spec: spec.start)
    return Instrumented(ast.unparse(tree), tuple(checks), rewriter.assertions)
