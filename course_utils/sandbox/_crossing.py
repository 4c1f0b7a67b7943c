"""Child side: what the tests hand to a function of the untrusted code, and what comes back to
the code from the tests' own functions.

The code must reach nothing of the tests but what they hand over, and only as a copy: an object
of a class the tests define brings its class along (``type(b).answer = lambda self: 42``, a list
held by the class, ``setattr``: CPython audits none of these writes), so no such object, and no
such class, ever reaches the code. What the tests may hand over:

- plain data (copied exactly, :func:`to_plain`);
- classes of the standard library (immutable, see ``_child_os.freeze_types``), as they are;
- objects made of classes of the standard library only (a ``deque``, a ``Fraction``), deep
  copied; a function, a bound method or a callable object of the tests inside one is replaced
  by a callback (below);
- callables (a ``lambda``, a function, a callable object of the tests): the code gets a
  *callback*, a function of the runner that calls them; what they return reaches the code by the
  same rule, and an exception they raise reaches it as a new exception of the nearest class of
  the standard library, with copied arguments (``class E(ValueError)`` arrives as a
  ``ValueError``);
- iterators (a generator): the code gets an iterator of the runner that hands over each item by
  the same rule.

Anything else (an object of a class of the tests, the class itself, an object that cannot be
copied) is refused with a French reason: the test fails, and says why.

A class is "of the run" (the tests' or the code's) when it can still be changed: every class
alive before the run was made immutable by the worker, or by :meth:`World.load` for a module
a job imports. Where that freeze is not possible (not CPython), the classes of the run are
those whose module is the tests' or the code's.
"""

from __future__ import annotations

import copy
import gc
import types

from course_utils.sandbox import _child_os
from course_utils.sandbox._child_audit import close_window, open_window
from course_utils.sandbox._plain import PlainValueError, to_plain, type_name
from course_utils.sandbox._policy import TESTS_MODULE, USER_MODULE

HANDED = ("des données simples (nombres, chaînes, listes, tuples, dictionnaires, ensembles), "
          "des objets de la bibliothèque standard, des fonctions et des itérateurs")

_flags = type.__dict__["__flags__"].__get__
_module = type.__dict__["__module__"].__get__
_mro = type.__dict__["__mro__"].__get__
_function_module = types.FunctionType.__dict__["__module__"].__get__
_args = BaseException.args.__get__
# Leaves of the walk: their referents lead to namespaces (a function's globals, a module's
# dictionary, a frame's locals), not to what was handed over.
_OPAQUE = (types.FunctionType, types.ModuleType, types.CodeType, types.FrameType,
           types.CellType, types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)


def of_the_run(cls) -> bool:
    """True for a class the tests or the code defined (it can still be changed)."""
    flags = _flags(cls)
    if not flags & _child_os._HEAPTYPE:
        return False
    if _child_os._FLAGS_OFFSET and _child_os._FLAGS_OFFSET[0] is not None:
        return not flags & _child_os._IMMUTABLETYPE
    module = _module(cls)
    return type(module) is not str or module in (TESTS_MODULE, USER_MODULE)


def _class_name(cls) -> str:
    name = type.__dict__["__name__"].__get__(cls)
    return name if type(name) is str else "?"


def _refusal(what: str, cls, held: str = "contient un objet de") -> PlainValueError:
    held = f"{held} la classe {_class_name(cls)}"
    return PlainValueError(
        f"{what} {held}, définie par les tests : le code la recevrait et pourrait la modifier "
        f"(une méthode, un attribut) pour fausser le test. Les tests passent au code {HANDED}.")


def to_code(value, what: str):
    """What the code receives for ``value``, handed over by the tests (see the module)."""
    try:
        return to_plain(value, what)
    except PlainValueError:
        pass
    kind = type(value)
    if issubclass(kind, type):
        if of_the_run(value):
            raise _refusal(what, value, "est")
        return value
    if callable(value):
        return callback(value)
    if hasattr(kind, "__next__"):
        return _handed_items(value, f"un élément donné par {what}")
    if of_the_run(kind):
        raise _refusal(what, kind, "est un objet de")
    callbacks = _walk(value, what)
    try:
        return copy.deepcopy(value, callbacks)
    except Exception:  # noqa: BLE001 - a generator inside a list, a lock...
        raise PlainValueError(f"{what} ne peut pas être copié (il contient un objet de type "
                              f"{type_name(value)} ou un objet que copy ne sait pas copier) : "
                              f"les tests passent au code {HANDED}.") from None


def _walk(value, what: str) -> dict:
    """Refuse ``value`` if it reaches a class of the run; else the memo for its deep copy,
    which puts a callback in place of each function of the tests inside it.

    ``gc.get_referents`` calls no Python code (it follows each object's C-level references);
    it is audited, hence the runner's window (no untrusted code runs in it).
    """
    memo: dict = {}
    seen = set()
    pending = [value]
    open_window()
    try:
        while pending:
            obj = pending.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            kind = type(obj)
            if issubclass(kind, type):
                if of_the_run(obj):
                    raise _refusal(what, obj, "contient")
                continue
            if of_the_run(kind) or kind is types.MethodType:
                if not callable(obj):
                    raise _refusal(what, kind)
                memo[id(obj)] = callback(obj)  # a callable object, a bound method: called
                continue
            if kind is types.FunctionType:
                module = _function_module(obj)
                if type(module) is str and module == TESTS_MODULE:
                    memo[id(obj)] = callback(obj)
                continue
            if issubclass(kind, _OPAQUE):
                continue
            pending.extend(gc.get_referents(obj))
    finally:
        close_window()
    if memo:
        memo[id(memo)] = [value]  # deepcopy's keep-alive list, made here: ids stay unique
    return memo


def callback(function):
    """A function the code can call in place of a callable of the tests (see the module)."""
    what = "la valeur renvoyée par une fonction des tests"

    def call_tests(*args, **kwargs):
        try:
            result = function(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed over as a copy, raised below
            replacement = exception_for_code(exc)
        else:
            return to_code(result, what)
        raise replacement  # outside the handler: the tests' exception is not its __context__

    return call_tests


def _handed_items(source, what: str):
    """The items of the tests' iterator ``source``, each handed over by :func:`to_code`."""
    while True:
        try:
            item = next(source)
        except StopIteration:
            return
        except BaseException as exc:  # noqa: BLE001
            replacement = exception_for_code(exc)
        else:
            yield to_code(item, what)
            continue
        raise replacement


def exception_for_code(exc: BaseException) -> BaseException:
    """A new exception for the code in place of ``exc``, raised by the tests' code: of the
    nearest class of the standard library in its class's MRO, with arguments handed over by
    :func:`to_code` (their text when they cannot be)."""
    kind = next(cls for cls in _mro(type(exc)) if not of_the_run(cls))
    args = _args(exc)
    try:
        handed = tuple(to_code(arg, "l'argument d'une exception des tests") for arg in args)
    except PlainValueError:
        handed = (f"{type_name(exc)} levée par les tests",)
    try:
        return kind(*handed)
    except Exception:  # noqa: BLE001 - a class whose constructor wants other arguments
        return RuntimeError(f"{type_name(exc)} levée par les tests")
