"""Grader side: decide each check from the plain data a kernel extracted.

The rules are the self-check's (:mod:`course_utils.grading.student_check`), applied here, in the
grader process, to values decoded from the kernel's records (:func:`probe.decode`): an ``assert``
holds when its grader-side expression (:mod:`course_utils.grading.instrument`) is true on the
student's leaves; a ``check`` passes when its subject's value equals ``expected`` (a literal of the
solution, or the value the solution's clean kernel produced), or is ``True``, or is an assert-style
test whose assertions all held. A passing check must also have run every assertion the solution's
run went through (a record that skips tests cannot pass).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from course_utils.grading.instrument import SAFE_FUNCTIONS, TYPE_NAMES, Assertion, CheckSpec
from course_utils.grading.probe import decode
from course_utils.grading.student_check import (
    ERROR,
    FAIL,
    OK,
    TIMEOUT,
    TODO,
    _equal,
    _short,
    _untouched,
)

_BUILTINS = {name: getattr(builtins, name) for name in SAFE_FUNCTIONS | TYPE_NAMES}
_MISSING = object()
_CODE: dict[str, object] = {}


class LeafError(Exception):
    """A leaf raised in the kernel: the test would have raised the same exception."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name, self.message = name, message


class _Values:
    def __init__(self, leaves) -> None:
        self._leaves = list(leaves or [])

    def __getitem__(self, index: int):
        leaf = self._leaves[index] if 0 <= index < len(self._leaves) else None
        if not isinstance(leaf, dict):
            raise LeafError("ValueError", "relevé incomplet")
        try:
            if "raise" in leaf:
                name, message = (list(leaf["raise"]) + ["", ""])[:2]
                raise LeafError(str(name), str(message))
            return decode(leaf.get("v"))
        except LeafError:
            raise
        except Exception:  # a forged record that is not what the probe writes
            raise LeafError("ValueError", "relevé illisible") from None


def evaluate(expression: str, leaves):
    """Evaluate a grader-side expression over decoded leaves (pure builtins only)."""
    code = _CODE.get(expression)
    if code is None:
        code = _CODE[expression] = compile(expression, "<correcteur>", "eval")
    return eval(code, {"__builtins__": _BUILTINS, "__v": _Values(leaves)})  # noqa: S307 - pure


@dataclass(frozen=True)
class Verdict:
    status: str
    message: str = ""


def _one_line(text: str) -> str:
    return " ".join(str(text).strip().split("\n")[0].split())


def _message(assertion: Assertion, leaves, label: str) -> str:
    if assertion.message is not None:
        try:
            return _one_line(evaluate(assertion.message, leaves))
        except Exception:
            pass
    return f"condition non vérifiée : {_short(assertion.text, 100)}"


def _sites(record: dict, assertions: dict, label: str):
    """(failure message, raised exception) of the assertions a record went through, in order."""
    for visit in record.get("sites", []):
        assertion = assertions.get(visit.get("site")) if isinstance(visit, dict) else None
        if assertion is None:
            return "relevé inconnu", None
        leaves = visit.get("leaves", [])
        if assertion.test is None:
            return _message(assertion, leaves, label), None
        try:
            held = bool(evaluate(assertion.test, leaves))
        except LeafError as exc:
            return None, (exc.name, exc.message)
        except Exception as exc:
            return None, (type(exc).__name__, str(exc))
        if not held:
            return _message(assertion, leaves, label), None
    return None, None


def visited(record: dict) -> set[str]:
    return {visit.get("site") for visit in record.get("sites", []) if isinstance(visit, dict)}


def judge(spec: CheckSpec, record: dict, assertions: dict, reference: dict | None) -> Verdict:
    """Verdict of one recorded ``check`` occurrence; ``reference`` is the solution's record.

    Never raises: a record that is not what the probe writes (forged) is an error.
    """
    try:
        return _judge(spec, record, assertions, reference)
    except Exception as exc:
        return Verdict(ERROR, f"relevé illisible ({type(exc).__name__})")


def _judge(spec: CheckSpec, record: dict, assertions: dict, reference: dict | None) -> Verdict:
    if not isinstance(record, dict):
        return Verdict(ERROR, "relevé illisible")
    if record.get("interrupted"):
        return Verdict(TIMEOUT, TIMEOUT)
    extra = (reference or {}).get("extra", []) if spec.expected_in_kernel else []
    try:
        hint = str(evaluate(spec.hint, extra) or "")
    except Exception:
        hint = ""
    expected = _MISSING
    if spec.expected is not None:
        if spec.expected_in_kernel and reference is None:
            return Verdict(ERROR, "valeur attendue indisponible (la solution ne l'a pas produite)")
        try:
            expected = evaluate(spec.expected, extra)
        except Exception as exc:
            return Verdict(ERROR, f"valeur attendue incalculable ({type(exc).__name__})")
    stub = bool(record.get("stub"))

    def todo(detail: str = "") -> Verdict:
        return Verdict(TODO, TODO + (f" — {detail}" if detail else ""))

    failure, raised = _sites(record, assertions, spec.label)
    if failure is not None:
        return todo(hint) if stub else Verdict(FAIL, failure or hint or "assertion non vérifiée")
    value = _MISSING
    if raised is None:
        if spec.mode == "call":
            result = record.get("result")
            is_callable, is_lambda = bool(record.get("callable")), bool(record.get("lambda"))
            try:
                value = _Values([result])[0]
            except LeafError as exc:
                raised = (exc.name, exc.message)
        else:
            is_callable = is_lambda = spec.is_lambda
            try:
                value = evaluate(spec.value, record.get("leaves", []))
            except LeafError as exc:
                raised = (exc.name, exc.message)
            except Exception as exc:  # e.g. None + 1 on the student's value
                raised = (type(exc).__name__, str(exc))
    else:
        is_callable = True
        is_lambda = spec.is_lambda if spec.mode == "expr" else bool(record.get("lambda"))
    if raised is not None:
        name, message = raised
        if name == "AssertionError":
            return todo(hint) if stub else Verdict(
                FAIL, _one_line(message) or hint or "assertion non vérifiée")
        if "NoneType" in message or stub:
            return todo(hint or "votre code renvoie encore None")
        return Verdict(ERROR, f"{name}: {_one_line(message)}" if message else name)
    if reference is not None and not visited(reference) <= visited(record):
        return Verdict(FAIL, "vérification incomplète : des tests de la solution n'ont pas été "
                             "exécutés")
    if expected is not _MISSING:
        if _untouched(value) and not _untouched(expected):
            return todo(hint)
        if _equal(value, expected):
            return Verdict(OK)
        if is_callable and stub:
            return todo(hint)
        shown = hint or f"attendu {_short(expected)}"
        return Verdict(FAIL, f"{shown} (obtenu {_short(value)})")
    if value is None and is_callable and not is_lambda:
        return todo(hint) if stub else Verdict(OK)
    if value is None:
        return todo(hint)
    if type(value) is bool:
        if value:
            return Verdict(OK)
        return todo(hint) if is_callable and stub else Verdict(FAIL, hint or "faux")
    return Verdict(ERROR, f"vérification mal écrite : {_short(value)} n'est ni True ni False "
                          "(utilisez expected=)")
