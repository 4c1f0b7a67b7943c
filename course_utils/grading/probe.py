"""Runs in the **graded student kernel**: extracts plain data for the grader, decides nothing.

The grader replaces every check cell of a submission by an *instrumented* version of the
solution's check cell (:mod:`course_utils.grading.instrument`): each ``check(...)`` call and each
``assert`` becomes a call to this probe with the expressions to evaluate in the kernel (the
*leaves*: the student's answers on the cell's inputs); comparisons, expected values, hints and
messages stay in the grader. The probe evaluates the leaves, turns each value into plain data
(:func:`plain`: exact ``int``/``float``/``str``/``bool``/``None``, lists, tuples, dicts, sets —
rebuilt from scratch, so an object with a lying ``__eq__`` arrives as the plain value it stands
for), and publishes one display output of MIME type :data:`MIME_TYPE` with the cell's nonce.

Nothing in this kernel says whether a check passed: a student who rewrites, forges or replays
this output can only change *data* — which the grader then compares with answers the kernel
never saw. The module imports only the standard library; the grader executes its source (after
:mod:`course_utils.grading.student_check`'s, for ``_uses_stub``) in a fresh module object that
it does not register in ``sys.modules``.
"""

from __future__ import annotations

import ast
import math
import sys
import types

MIME_TYPE = "application/vnd.course-check+json"
PROBE_NAME = "__course_probe__"  # name of the probe in the notebook namespace during a check cell

_MAX_DEPTH = 12
_MAX_ITEMS = 20_000
_MAX_TEXT = 20_000


class _Budget:
    def __init__(self) -> None:
        self.items = 0


def plain(value, _depth: int = 0, _budget: _Budget | None = None):
    """JSON-ready plain-data encoding of ``value`` (see :func:`decode` for the inverse).

    Exact builtin types only; containers are rebuilt item by item; anything else becomes an
    opaque marker ``{"~obj": type name, "truthy": bool}`` that equals nothing but itself.
    """
    budget = _budget or _Budget()
    budget.items += 1
    if budget.items > _MAX_ITEMS or _depth > _MAX_DEPTH:
        return {"~cut": True}
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        return value if abs(value) < 2**53 else {"~int": str(value)}
    if kind is float:
        return value if math.isfinite(value) else {"~float": repr(value)}
    if kind is str:
        return value if len(value) <= _MAX_TEXT else {"~cut": value[:_MAX_TEXT]}
    if kind is list:
        return [plain(item, _depth + 1, budget) for item in list.__iter__(value)]
    if kind is tuple:
        return {"~tuple": [plain(item, _depth + 1, budget) for item in tuple.__iter__(value)]}
    if kind in (set, frozenset):
        items = [plain(item, _depth + 1, budget) for item in kind.__iter__(value)]
        return {"~set": sorted(items, key=repr)}
    if kind is dict:
        pairs = [(plain(k, _depth + 1, budget), plain(v, _depth + 1, budget))
                 for k, v in dict.items(value)]
        if all(type(k) is str and not k.startswith("~") for k, _ in pairs):
            return dict(pairs)
        return {"~dict": [list(pair) for pair in pairs]}
    if kind is types.GeneratorType:
        return [plain(item, _depth + 1, budget) for item in value]
    return _subclass(value, _depth, budget)


def _subclass(value, depth: int, budget: _Budget):
    """Subclasses of builtins reduced to their builtin value with the *base* type's methods
    (an ``int`` subclass whose ``__eq__`` lies arrives as its int); numpy scalars and arrays
    through ``item()``/``tolist()``; anything else is opaque."""
    for base, convert in ((int, int.__int__), (float, float.__float__), (str, str.__str__),
                          (tuple, tuple), (list, list), (dict, dict), (frozenset, frozenset),
                          (set, set)):
        if isinstance(value, base):
            try:
                return plain(convert(value) if base not in (dict, list, tuple) else
                             base(base.__iter__(value)) if base is not dict else
                             dict(dict.items(value)), depth, budget)
            except Exception:
                return _opaque(value)
    if type(value).__module__ == "numpy":
        for method in ("item", "tolist"):
            convert = getattr(value, method, None)
            if callable(convert):
                try:
                    converted = convert()
                except Exception:
                    continue
                if type(converted) is not type(value):
                    return plain(converted, depth + 1, budget)
    return _opaque(value)


def _opaque(value) -> dict:
    try:
        truthy = bool(value)
    except Exception:
        truthy = True
    return {"~obj": type(value).__name__, "truthy": truthy is True}


class Opaque:
    """Grader-side stand-in for a kernel object that is not plain data."""

    def __init__(self, name: str, truthy: bool) -> None:
        self.name, self.truthy = name, truthy

    def __bool__(self) -> bool:
        return self.truthy

    def __repr__(self) -> str:
        return f"<objet {self.name}>"


def decode(data):
    """Inverse of :func:`plain`, run by the grader on data received from a kernel."""
    if isinstance(data, list):
        return [decode(item) for item in data]
    if not isinstance(data, dict):
        return data
    if "~tuple" in data:
        return tuple(decode(item) for item in data["~tuple"])
    if "~set" in data:
        items = [decode(item) for item in data["~set"]]
        try:
            return set(items)
        except TypeError:
            return items
    if "~dict" in data:
        try:
            return {decode(k): decode(v) for k, v in data["~dict"]}
        except TypeError:
            return Opaque("dict", bool(data["~dict"]))
    if "~int" in data:
        return int(data["~int"])
    if "~float" in data:
        return float(data["~float"])
    if "~obj" in data:
        return Opaque(str(data["~obj"]), bool(data.get("truthy", True)))
    if "~cut" in data:
        return Opaque("trop grand", True)
    return {key: decode(value) for key, value in data.items()}


# --------------------------------------------------------------------------- the probe


def _describe_exc(exc: BaseException) -> list:
    return [type(exc).__name__, str(exc)[:500]]


class Probe:
    """What the instrumented cell calls; collects records, publishes them once at the end."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self._stack: list[dict] = []

    def _leaf(self, thunk) -> dict:
        try:
            return {"v": plain(thunk())}
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - a student leaf may raise anything
            return {"raise": _describe_exc(exc)}

    def site(self, site_id: str, leaves) -> None:
        """An ``assert``: evaluate its leaves; the grader decides whether it held."""
        values = [self._leaf(thunk) for thunk in leaves]
        if self._stack:
            self._stack[-1]["sites"].append({"site": site_id, "leaves": values})

    def fail(self, site_id: str, leaves) -> None:
        """An explicit ``raise AssertionError(...)`` reached by the kernel's control flow."""
        self.site(site_id, leaves)
        raise AssertionError("")

    def check(self, check_id: str, leaves, *, call: bool = False, stub=None, extra=()) -> None:
        """A ``check(...)`` call: evaluate (or call) the subject, record data, never raise."""
        record = {"check": check_id, "sites": [], "leaves": [], "extra": [], "stub": False}
        self._stack.append(record)
        try:
            if call:
                self._call(record, leaves[0])
            else:
                record["leaves"] = [self._leaf(thunk) for thunk in leaves]
                record["stub"] = self._stub(stub) if stub is not None else False
            record["extra"] = [self._leaf(thunk) for thunk in extra]
        except KeyboardInterrupt:
            record["interrupted"] = True
            raise
        finally:
            self._stack.pop()
            self.records.append(record)

    def _call(self, record: dict, thunk) -> None:
        try:
            subject = thunk()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            record["result"] = {"raise": _describe_exc(exc)}
            return
        if not callable(subject):
            record["callable"] = False
            record["result"] = self._leaf(lambda: subject)
            return
        record["callable"] = True
        record["lambda"] = getattr(subject, "__name__", "") == "<lambda>"
        record["result"] = self._leaf(subject)
        record["stub"] = self._stub(subject)

    @staticmethod
    def _stub(function) -> bool:
        try:
            return bool(_uses_stub(function))
        except Exception:
            return False


_BUILTIN_NAMES = ("exec", "eval", "compile", "print", "open", "isinstance", "len", "repr",
                  "getattr", "setattr", "globals", "callable", "__import__", "iter", "next")


def tampering() -> list[str]:
    """French signs of tampering visible from inside the kernel (a hint for the report only:
    code that hides them can; nothing is decided from them)."""
    import builtins

    signs = []
    if sys.getprofile() is not None:
        signs.append("crochet de profilage actif")
    if sys.gettrace() is not None and "pydevd" not in type(sys.gettrace()).__module__:
        signs.append("crochet de traçage actif")
    patched = [name for name in _BUILTIN_NAMES
               if type(getattr(builtins, name, None)) is not types.BuiltinFunctionType]
    if patched:
        signs.append("builtins remplacés : " + ", ".join(patched))
    if types.ModuleType is not type(sys):
        signs.append("types.ModuleType remplacé")
    for module_name, attribute in (("IPython.display", "publish_display_data"),
                                   ("IPython.core.display_functions", "publish_display_data"),
                                   ("dataclasses", "asdict"), ("json", "dumps")):
        module = sys.modules.get(module_name)
        function = getattr(module, attribute, None) if module is not None else None
        if function is not None and getattr(function, "__module__", module_name) != (
                "IPython.core.display_functions" if "IPython" in module_name else module_name):
            signs.append(f"{module_name}.{attribute} remplacé")
    for thread in __import__("threading").enumerate():
        target = getattr(thread, "_target", None)
        if type(thread).__module__ == "__main__" or getattr(target, "__module__", "") == "__main__":
            signs.append("thread lancé par le notebook")
            break
    return signs


def run_cell(source: str, *, nonce: str, cell_id: str, namespace: dict) -> None:
    """Run an instrumented check cell statement by statement, then publish the records."""
    probe = Probe()
    payload = {"nonce": nonce, "cell": cell_id, "records": probe.records, "errors": [],
               "interrupted": False, "signs": []}
    try:
        payload["signs"] = tampering()
    except Exception:
        payload["signs"] = ["environnement du noyau illisible"]
    saved = namespace.get(PROBE_NAME, _MISSING)
    namespace[PROBE_NAME] = probe
    filename = f"<vérification {cell_id}>"
    try:
        for stmt in ast.parse(source, filename).body:
            code = compile(ast.Module([stmt], type_ignores=[]), filename, "exec")
            try:
                exec(code, namespace)
            except KeyboardInterrupt:
                payload["interrupted"] = True
                break
            except BaseException as exc:  # noqa: BLE001
                payload["errors"].append({"start": stmt.lineno, "end": stmt.end_lineno,
                                          "reason": _describe_exc(exc)})
    finally:
        if saved is _MISSING:
            namespace.pop(PROBE_NAME, None)
        else:
            namespace[PROBE_NAME] = saved
        _publish(payload)


def _publish(payload: dict) -> None:
    summary = f"[correcteur : {len(payload['records'])} relevé(s) transmis]"
    try:
        from IPython.display import publish_display_data

        publish_display_data({MIME_TYPE: payload, "text/plain": summary})
    except Exception:
        print(summary, file=sys.stdout)


_MISSING = object()

try:  # provided by student_check's source when the grader embeds both in one module
    _uses_stub  # noqa: B018
except NameError:
    from course_utils.grading.student_check import _uses_stub  # noqa: F401
