"""Self-checks for exercise notebooks: ``check(...)`` prints ✅ / ❌ and records a structured result.

Students call it in check cells (tagged ``check:<exercise>``, e.g. ``check:01-ex1``)::

    check("double(3) vaut 6", lambda: double(3), expected=6, hint="multipliez x par 2")
    check("somme de la liste", total, expected=6)

    def _verifie():
        assert compte_voyelles("agent") == 2, "« agent » contient 2 voyelles"
    check("compte_voyelles", _verifie, points=2)

Rules (convention C.1: ``check`` never raises; a stub's result never counts as passed):

* ``value_or_callable`` that is callable is called with no argument; its ``AssertionError``
  message becomes the hint shown, any other exception is reported (« erreur … »).
* With ``expected=``: passed when the value equals it (numbers compared with a tiny tolerance).
  ``expected=None`` is refused (it could not tell a stub from an answer).
* Without ``expected=``: the value (or what the callable returns) must be ``True``; a ``def``
  test that returns ``None`` after its asserts passes too (a ``lambda`` returning ``None`` does not).
* « à compléter » (an untouched stub) is reported when the value is ``None`` (or a non-empty
  container holding only ``None``), when an exception mentions ``NoneType``, or when a failing
  test uses a notebook function whose source still holds the stub comment ``# TODO étudiant``.
* Points are all-or-nothing per check; an exercise's points are the sum over its check cells.

Each call prints one line and appends a :class:`CheckResult` to the active recorders
(:func:`recording`); the grader reads these structured results, never the printed text.

Runs in the **student kernel**. The grader (``python -m course_utils grade``, see
:mod:`course_utils.grading.grader`) does not trust this function: it rewrites check cells so that
the kernel only extracts plain data, and applies these same rules in its own process
(:mod:`course_utils.grading.judge`). It embeds this module's source (for ``_uses_stub``) in the
restored cells, so this module imports only the standard library and nothing of the package.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import numbers
import re
import types
from dataclasses import asdict, dataclass

OK = "ok"
FAIL = "échec"
TODO = "à compléter"
ERROR = "erreur"
TIMEOUT = "délai dépassé"
INVALID = "invalide"
STATUSES = (OK, FAIL, TODO, ERROR, TIMEOUT, INVALID)

CHECK_TAG_PREFIX = "check:"
TODO_COMMENT = "# TODO étudiant"

_MISSING = object()
_RECORDERS: list[list] = []
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one ``check`` call (``line``: kept for the JSON form, always ``None`` here)."""

    name: str
    status: str
    message: str = ""
    points: float = 1
    line: int | None = None

    @property
    def passed(self) -> bool:
        return self.status == OK

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        if self.passed:
            return f"✅ {self.name}"
        return f"❌ {self.name} : {self.message}"


@contextlib.contextmanager
def recording():
    """Collect the :class:`CheckResult` of every ``check`` call made inside the block."""
    results: list[CheckResult] = []
    _RECORDERS.append(results)
    try:
        yield results
    finally:
        _RECORDERS.remove(results)


def check(name, value_or_callable, expected=_MISSING, *, hint: str = "", points: float = 1):
    """Print ✅ or ❌ with a French hint for one self-check; never raises (except Ctrl-C).

    See the module docstring for the rules. Returns ``None`` so a notebook shows only the line.
    """
    name = str(name)
    try:
        result = _evaluate(name, value_or_callable, expected, str(hint or ""), points)
    except KeyboardInterrupt:
        _emit(CheckResult(name, TIMEOUT, "interrompu (délai dépassé)", points))
        raise
    except Exception as exc:  # the check itself failed (e.g. a value whose repr raises)
        result = CheckResult(name, ERROR, f"vérification impossible : {_describe(exc)}", points)
    _emit(result)


def _emit(result: CheckResult) -> None:
    for recorder in _RECORDERS:
        recorder.append(result)
    try:
        print(result)
    except Exception:  # a broken sys.stdout must not make check raise
        pass


def _evaluate(name, subject, expected, hint, points) -> CheckResult:
    def result(status: str, message: str = "") -> CheckResult:
        message = " ".join(_ADDRESS.sub("", message).split())
        return CheckResult(name, status, message, points)

    def todo(detail: str = "") -> CheckResult:
        return result(TODO, TODO + (f" — {detail}" if detail else ""))

    if expected is None:
        return result(ERROR, "vérification mal écrite : expected=None ne distingue pas un squelette")
    is_callable = callable(subject)
    if is_callable:
        try:
            value = subject()
        except AssertionError as exc:
            if _uses_stub(subject):
                return todo(hint)
            first_line = str(exc).strip().split("\n")[0]  # one printed line per check
            return result(FAIL, first_line or hint or "assertion non vérifiée")
        except Exception as exc:
            if "NoneType" in str(exc) or _uses_stub(subject):
                return todo(hint or "votre code renvoie encore None")
            return result(ERROR, _describe(exc))
    else:
        value = subject
    if expected is not _MISSING:
        if _untouched(value) and not _untouched(expected):
            return todo(hint)
        if _equal(value, expected):
            return result(OK)
        if is_callable and _uses_stub(subject):
            return todo(hint)
        shown = hint or f"attendu {_short(expected)}"
        return result(FAIL, f"{shown} (obtenu {_short(value)})")
    if value is None and is_callable and getattr(subject, "__name__", "") != "<lambda>":
        return todo(hint) if _uses_stub(subject) else result(OK)  # assert-style test function
    if value is None:
        return todo(hint)
    if type(value).__name__ in ("bool", "bool_"):
        if bool(value):
            return result(OK)
        return todo(hint) if is_callable and _uses_stub(subject) else result(FAIL, hint or "faux")
    return result(
        ERROR,
        f"vérification mal écrite : {_short(value)} n'est ni True ni False (utilisez expected=)",
    )


def _untouched(value, depth: int = 0) -> bool:
    """``None``, or a non-empty list/tuple/set/dict holding only untouched values."""
    if value is None:
        return True
    if depth > 3:
        return False
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple, set, frozenset)) and value:
        return all(_untouched(item, depth + 1) for item in value)
    return False


def _equal(value, expected) -> bool:
    try:
        numeric = (numbers.Real,)
        if (
            isinstance(value, numeric) and isinstance(expected, numeric)
            and not isinstance(value, bool) and not isinstance(expected, bool)
        ):
            return math.isclose(float(value), float(expected), rel_tol=1e-9, abs_tol=1e-12)
        same = value == expected
        if isinstance(same, bool):
            return same
        all_ = getattr(same, "all", None)  # numpy arrays compare element-wise
        return bool(all_() if callable(all_) else same)
    except Exception:
        return False


def _uses_stub(function, depth: int = 0, seen: set | None = None) -> bool:
    """Whether ``function`` calls (up to 3 levels) a notebook function still holding the stub."""
    seen = set() if seen is None else seen
    if depth > 3 or not isinstance(function, types.FunctionType) or id(function) in seen:
        return False
    seen.add(id(function))
    if depth > 0:
        try:
            if TODO_COMMENT in inspect.getsource(function):
                return True
        except (OSError, TypeError):
            pass
    names: set[str] = set()
    codes = [function.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    scope = dict(function.__globals__)
    for var, cell in zip(function.__code__.co_freevars, function.__closure__ or ()):
        with contextlib.suppress(ValueError):
            scope[var] = cell.cell_contents
    module = function.__globals__.get("__name__")
    for name in sorted(names):
        target = scope.get(name)
        if isinstance(target, types.FunctionType) and target.__module__ == module:
            if _uses_stub(target, depth + 1, seen):
                return True
    return False


def _short(value, limit: int = 80) -> str:
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    text = _ADDRESS.sub("", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(exc: BaseException) -> str:
    message = _ADDRESS.sub("", str(exc))
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__
