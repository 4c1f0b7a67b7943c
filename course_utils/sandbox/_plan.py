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

Lessons run the same tests against many programs (Best-of-N) and the same program against
several test sets, so the caller keeps what depends only on the tests (:class:`TestPlan`) and
only on the code (:class:`CodePlan`): checked, split, compiled and marshalled once
(:func:`fork_blobs`).
"""

from __future__ import annotations

import ast
import marshal
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from course_utils.sandbox import _jobpipe
from course_utils.sandbox._plain import (
    OP_SYMBOLS,
    PlainValueError,
    _few_collisions,
    compare,
    describe,
    truth,
)
from course_utils.sandbox._rewrite import CodeRefused, compile_checked
from course_utils.sandbox._static import analyse, parse_source


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
    # The cached plans of the code and of the tests (compiled: see fork_blobs).
    code_plan: CodePlan | None = None
    tests_plan: TestPlan | None = None


_LITERAL_KINDS = (ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.UnaryOp, ast.BinOp,
                  ast.Call)


def literal_candidates(root: ast.AST) -> set[int]:
    """Ids of the nodes whose whole subtree has only kinds ``ast.literal_eval`` reads.

    One pass, children before parents: :func:`_split` then calls ``literal_eval`` only where
    it can succeed, instead of at every level of a deep expression whose one leaf is a name
    (each failed call walks the whole subtree again: quadratic in the test's size).
    """
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))
    found: set[int] = set()
    for node in reversed(order):
        kind = type(node)
        if kind not in _LITERAL_KINDS:
            continue
        if kind is ast.Call and not (type(node.func) is ast.Name and node.func.id == "set"
                                     and not node.args and not node.keywords):
            continue
        children = [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]
        if kind is ast.Call or all(id(child) in found for child in children):
            found.add(id(node))
    return found


def _literal(node: ast.AST, candidates: set[int]):
    if id(node) not in candidates:
        return False, None
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _singleton(node: ast.AST, candidates: set[int]) -> bool:
    is_literal, value = _literal(node, candidates)
    return is_literal and (value is None or value is True or value is False or value is ...)


def _split(node: ast.expr, probes: list[ast.expr], candidates: set[int]):
    """Skeleton of ``node``; sub-expressions the child must evaluate go into ``probes``.
    ``candidates``: :func:`literal_candidates` of the test's tree."""
    is_literal, value = _literal(node, candidates)
    if is_literal:
        return ("const", value)
    if isinstance(node, ast.Compare):
        ops = [OP_SYMBOLS[type(op).__name__] for op in node.ops]
        sides = [node.left, *node.comparators]
        # ``x is y`` needs both objects in one process: kept in the skeleton only when one
        # side is a singleton literal (``f(x) is None``), else the child evaluates it.
        # In a chain (a < f(x) < g(x)), an operand after the second is evaluated only if the
        # comparisons before it held: one that runs code keeps the chain whole, as above.
        if all(op not in ("is", "is not") or _singleton(sides[i], candidates)
               or _singleton(sides[i + 1], candidates) for i, op in enumerate(ops)) \
                and all(_literal(side, candidates)[0] for side in sides[2:]):
            return ("cmp", [_split(side, probes, candidates) for side in sides], ops)
    elif isinstance(node, ast.BoolOp):
        # Python evaluates an operand after the first only if the ones before did not decide:
        # one that runs code (f() and g()) is not split, the child evaluates the whole test
        # (its literals then reach the child, like those of a computed expected value).
        if all(_literal(value, candidates)[0] for value in node.values[1:]):
            tag = "and" if isinstance(node.op, ast.And) else "or"
            return (tag, [_split(value, probes, candidates) for value in node.values])
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return ("not", _split(node.operand, probes, candidates))
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not any(
            isinstance(e, ast.Starred) for e in node.elts):
        tag = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(node)]
        return (tag, [_split(e, probes, candidates) for e in node.elts])
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
            if not compare(op, left, right, plain=True):
                return False
            left = right
        return True
    if tag in ("and", "or"):
        value = None
        for part in skeleton[1]:
            value = evaluate(part, results)
            if truth(value, plain=True) != (tag == "and"):
                return value
        return value
    if tag == "not":
        return not truth(evaluate(skeleton[1], results), plain=True)
    items = [evaluate(part, results) for part in skeleton[1]]
    if tag == "set":
        try:  # values the code chose to share one hash would take quadratic time here
            return set(_few_collisions(items))
        except ValueError as exc:
            raise PlainValueError(str(exc)) from None
        except TypeError:  # a value the code returned cannot be a set element (a list...)
            shown = ", ".join(describe(item) for item in items)
            raise PlainValueError(f"ensemble impossible : {{{shown}}} (élément non hachable)") \
                from None
    return list(items) if tag == "list" else tuple(items)


def judge_expression(skeleton, probes: list[str], results: list) -> str | None:
    """None when the test passes, else the French reason of its failure."""
    try:
        if truth(evaluate(skeleton, results), plain=True):
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


MAX_TESTS = 1_000  # expression tests in one run: each is split, rewritten and compiled here
MAX_TESTS_CHARS = 100_000  # all test sources together (like the code: see _static)


def _exact_str(value):
    """``value`` as an exact ``str`` (a subclass is read through ``str``), or None."""
    if type(value) is str:
        return value
    if issubclass(type(value), str):
        return str.__str__(value)
    return None


def _checked_tests(tests):
    """The tests as exact strings (a program, or a list of expressions); PlanError otherwise."""
    bad = PlanError("tests doit être une liste d'expressions (chaînes) "
                    "ou un programme d'assertions (une chaîne)")
    program = _exact_str(tests)
    if program is not None:
        size = len(program)
    elif type(tests) is list or type(tests) is tuple:
        if len(tests) > MAX_TESTS:
            raise PlanError(f"trop de tests ({len(tests)}, maximum {MAX_TESTS})")
        tests = [_exact_str(test) for test in tests]
        if any(test is None for test in tests):
            raise bad
        size = sum(map(len, tests))
    else:
        raise bad
    if size > MAX_TESTS_CHARS:
        raise PlanError(f"tests trop longs ({size} caractères, maximum {MAX_TESTS_CHARS})")
    return program if program is not None else tests


def _compiled(tree, filename: str, mode: str, *, tests: bool, uses_format: bool):
    """``(code object, None)`` or ``(None, French error)``."""
    try:
        return compile_checked(tree, filename, mode, tests=tests, uses_format=uses_format), None
    except (SyntaxError, CodeRefused) as exc:
        return None, str(exc)
    except (RecursionError, MemoryError, ValueError):
        return None, "code illisible : trop complexe"


def _compiled_tests(program: str | None, trees: list):
    """``(code objects, None)``: the program's, or one list of probes per expression test;
    or ``(None, French error)``."""
    compiled = []
    for group in trees:  # the program's tree, or one list of probe trees per test
        if program is not None:
            parts, error = _compiled(group, "<tests>", "exec", tests=True, uses_format=True)
        else:
            parts, error = [], None
            for probe in group:
                code, error = _compiled(probe, "<tests>", "eval", tests=True, uses_format=True)
                if error:
                    break
                parts.append(code)
        if error:
            return None, error
        compiled.append(parts)
    return compiled, None


@dataclass
class TestPlan:
    """What depends only on the tests: checked, split and compiled (rewritten for plain
    comparisons) once; cached, since lessons run the same tests against many programs."""

    total: int
    labels: list[str]
    skeletons: list | None
    probes: list[list[str]]
    program: str | None
    modules: set = field(default_factory=set)  # allowed modules the tests import
    blob: bytes | None = None  # (program, probes, compiled tests), marshalled
    error: str | None = None  # why the tests could not be compiled

    @classmethod
    def build(cls, total, labels, skeletons, probes, program, trees, modules) -> TestPlan:
        compiled, error = _compiled_tests(program, trees)
        blob = None if error else marshal.dumps((program, probes, compiled))
        error = error or _jobpipe.too_big(blob, "les tests compilés sont")
        return cls(total, labels, skeletons, probes, program, modules,
                   None if error else blob, error)


@dataclass
class CodePlan:
    """What depends only on the code: checked once, compiled once (a lesson often runs the
    same program against several test sets).

    The caller does not compile untrusted code on sight: CPython 3.11's compiler has passes
    that are quadratic in shapes no cap foresees (keyword names checked pairwise, constants
    sharing one hash in a set display, every enclosing name copied into each nested scope:
    200,000 characters held the caller 6 s), and a compile cannot be interrupted. The first
    child to run the code compiles it from its source, within the run's limits; the caller
    compiles it (once, for the next runs) only after a child did so quickly
    (:data:`TRUSTED_COMPILE`)."""

    refusal: str | None  # syntax error or static check refusal: the code is not compiled
    modules: frozenset
    blob: bytes | None = None  # the compiled code object, marshalled
    error: str | None = None  # why the code could not be compiled
    # The checked source, until the caller compiles it (parsed again then: a tree kept in
    # the cache weighed some 340 bytes per character of a dense program, 400 MB for ten)
    source: str | None = None
    uses_format: bool = False
    compiles_quickly: bool = False  # a child compiled it within TRUSTED_COMPILE


# A child that compiled the code and reported it within this many seconds (from the job's
# sending to the report's arrival, measured by the caller): the caller may compile it too.
TRUSTED_COMPILE = 0.1


def _weight(chars: int, blob: bytes | None) -> int:
    """A plan's share of a cache, in characters of source (about 40 bytes each)."""
    return max(chars, len(blob) // 40 if blob else 0)


class _PlanCache:
    """Least recently used plans, bounded in number and in the characters of their sources
    (a plan keeps some 40 bytes per character: trees, probes, compiled code)."""

    def __init__(self, entries: int, chars: int):
        self.entries, self.chars, self.used = entries, chars, 0
        self.items: OrderedDict = OrderedDict()  # key -> (plan, characters)

    def recall(self, key):
        item = self.items.get(key)
        if item is None:
            return None
        self.items.move_to_end(key)
        return item[0]

    def remember(self, key, plan, chars: int) -> None:
        """Keep ``plan`` under ``key``, weighing ``chars`` (again, if it is kept already: a
        code plan grows when the caller compiles it)."""
        old = self.items.pop(key, None)
        self.used -= old[1] if old else 0
        if chars > self.chars // 8:  # a very large source is planned again when it comes back
            return
        self.used += chars
        self.items[key] = (plan, chars)
        while len(self.items) > self.entries or self.used > self.chars:
            _key, (_plan, size) = self.items.popitem(last=False)
            self.used -= size


_LOCK = threading.Lock()  # the caches are shared by every sandbox of the process
CACHE_SIZE = 256
CACHE_CHARS = 1_000_000  # of sources, per cache: some 40 MB of plans at most
_TESTS_CACHE = _PlanCache(CACHE_SIZE, CACHE_CHARS)
_CODE_CACHE = _PlanCache(CACHE_SIZE, CACHE_CHARS)


def _test_plan(tests) -> TestPlan:
    key = tests if type(tests) is str else tuple(tests)
    chars = len(tests) if type(tests) is str else sum(map(len, tests))
    with _LOCK:
        cached = _TESTS_CACHE.recall(key)
    if cached is not None:
        return cached
    tree = error = None
    if isinstance(tests, str):
        # One expression is a list of one test; anything else is an assertion program.
        tree, error = parse_source(tests, "<tests>")
        if tree is None or (len(tree.body) == 1 and type(tree.body[0]) is ast.Expr):
            if parse_source(tests, "<tests>", "eval")[0] is not None:
                tree, error, tests = None, None, [tests]
    if isinstance(tests, str):
        if error:
            raise PlanError(f"programme de test invalide : {error}")
        modules: set = set()
        reasons, _ = analyse(tree, modules)
        if reasons:
            raise PlanError("programme de test refusé : " + " ; ".join(reasons))
        plan = TestPlan.build(1, ["programme de test"], None, [], tests, [tree], modules)
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
            skeletons.append(_split(tree.body, probes, literal_candidates(tree.body)))
            all_probes.append([ast.unparse(probe) for probe in probes])
            trees.append([ast.Expression(probe) for probe in probes])
        plan = TestPlan.build(len(tests), list(tests), skeletons, all_probes, None, trees,
                              modules)
    with _LOCK:
        _TESTS_CACHE.remember(key, plan, _weight(chars, plan.blob))
    return plan


def _code_plan(code) -> CodePlan:
    cacheable = type(code) is str
    with _LOCK:
        cached = _CODE_CACHE.recall(code) if cacheable else None
    if cached is not None:
        return cached
    tree, error = parse_source(code)
    if error:
        plan = CodePlan(error, frozenset())
    else:
        modules: set = set()
        reasons, uses_format = analyse(tree, modules)
        if reasons:
            plan = CodePlan("code refusé : " + " ; ".join(reasons), frozenset(modules))
        else:  # compiled later (see CodePlan), by a child first
            plan = CodePlan(None, frozenset(modules), source=code, uses_format=uses_format)
    if cacheable:
        with _LOCK:
            _CODE_CACHE.remember(code, plan, _weight(len(code), plan.blob))
    return plan


def compile_code(plan: CodePlan) -> None:
    """The caller compiles a program a child compiled quickly (see :class:`CodePlan`)."""
    source = plan.source
    if source is None or plan.blob is not None or plan.error:
        return
    tree, error = parse_source(source)  # the same text, checked already
    compiled = None
    if tree is not None:
        compiled, error = _compiled(tree, "<solution>", "exec", tests=False,
                                    uses_format=plan.uses_format)
    blob = None if error else marshal.dumps(compiled)
    plan.error = error or _jobpipe.too_big(blob, "le code compilé est")
    plan.blob = None if plan.error else blob
    plan.source = None


MAX_TIMEOUT = 24 * 3600  # seconds
MAX_MEMORY_MB = 1 << 20  # 1 TiB


def make_plan(code, tests, *, timeout: float, memory_mb: int, output_limit: int = 20_000) -> Plan:
    """Check the inputs and the code, split the tests; raise PlanError on bad tests.

    The cost is linear in the inputs (CPython's parser is not, in nested starred displays and
    f-strings: _static caps both before parsing), which are capped (code and tests: 100,000 characters
    each); the caches' lock is never held while a new program or test set is analysed.
    """
    tests = _checked_tests(tests)
    code = _exact_str(code) if issubclass(type(code), str) else code  # else refused below
    # bounded: the child's limits are whole seconds and bytes (an infinite timeout, or more
    # memory than an address space holds, made it fail without a word)
    if type(timeout) is not int and type(timeout) is not float or not 0 < timeout <= MAX_TIMEOUT:
        raise PlanError(f"timeout doit être un nombre de secondes positif (au plus {MAX_TIMEOUT})")
    if type(memory_mb) is not int or not 16 <= memory_mb <= MAX_MEMORY_MB:
        raise PlanError(f"memory_mb doit être un entier entre 16 et {MAX_MEMORY_MB}")
    tests_plan = _test_plan(tests)
    code_plan = _code_plan(code)
    job = {"code": code, "timeout": float(timeout), "memory_mb": memory_mb,
           "output_limit": output_limit, "nonce": secrets.randbits(62)}
    if tests_plan.program is not None:
        job["program"] = tests_plan.program
    else:
        job["probes"] = tests_plan.probes
    plan = Plan(total=tests_plan.total, labels=tests_plan.labels, job=job,
                skeletons=tests_plan.skeletons, timeout=float(timeout), probes=tests_plan.probes,
                refusal=code_plan.refusal, code_plan=code_plan, tests_plan=tests_plan)
    job["modules"] = sorted(tests_plan.modules | code_plan.modules)
    return plan


def fork_blobs(plan: Plan):
    """``(code blob, tests blob), None`` or ``None, French error``: what a forked child runs.

    The tests are compiled when first planned; the code once a child compiled it quickly
    (see :class:`CodePlan`): until then its blob is None, and the child compiles the source
    in ``plan.job`` (as a spawned child always does).
    """
    code_plan = plan.code_plan
    if code_plan.compiles_quickly and code_plan.blob is None and not code_plan.error:
        compile_code(code_plan)
        code = plan.job["code"]
        if type(code) is str:  # its compiled code now weighs in the cache (up to 8 MB)
            with _LOCK:
                if _CODE_CACHE.recall(code) is code_plan:
                    _CODE_CACHE.remember(code, code_plan, _weight(len(code), code_plan.blob))
    if code_plan.error:
        return None, code_plan.error
    if plan.tests_plan.error:
        return None, plan.tests_plan.error
    return (code_plan.blob, plan.tests_plan.blob), None
