"""Child side: what crosses between the untrusted code and the tests, in both directions.

**Code to tests.** The tests see the code's functions (:meth:`Membrane.code_function`: called
on what the tests hand over, returning plain copies) and its plain data; a class or another
object of the code is a :class:`Hidden` stand-in that refuses every use (its methods could lie
through arithmetic, ``round``, ``len``...). The same holds for what the code passes to a
function of the tests (:meth:`Membrane.for_tests`).

**Tests to code.** The code must reach nothing of the tests but what they hand over, as
copies: an object of a class the tests define brings its class along
(``type(b).answer = lambda self: 42``, a list held by the class, ``setattr``: CPython audits none
of these writes), so no such object, and no such class, ever reaches the code. What the tests
may hand over (:meth:`Membrane.to_code`):

- plain data (copied exactly, :func:`to_plain`);
- classes of the standard library (immutable, see ``_child_os.freeze_types``), as they are;
- a module (the tests' view): the code gets its own view of that module;
- objects made of classes of the standard library (a ``deque``, a ``Fraction``), deep copied,
  and checked: nothing of the original is left in the copy but immutable values (numbers,
  strings, tuples, ``Decimal``, compiled patterns...); a callable inside one is replaced by a
  callback (below);
- callables (a ``lambda``, a function, a bound method, a callable object): the code gets a
  *callback*, a function of the runner that calls them with what the code passes made plain
  (:meth:`Membrane.for_tests`), in the tests' decimal context and with the caches emptied;
  what they return reaches the code by the same rule, and an exception they raise reaches it
  as a new exception of the nearest class of the standard library, with copied arguments
  (``class E(ValueError)`` arrives as a ``ValueError``);
- iterators (a generator): the code gets an iterator of the runner that hands over each item
  by the same rule.

Anything else (an object of a class of the tests, the class itself, an object that cannot be
copied) is refused with a French reason: the test fails, and says why.

**Assertions.** A failed ``assert`` of the tests is written down (:attr:`Membrane.failed`): the
program fails even if the code catches the exception. An ``assert`` interrupted by an exception
(a comparison refused, a recursion limit reached) inside a function of the tests called by the
code counts as failed too (the exception's traceback stops on one of its lines), as does a
``RecursionError`` or ``MemoryError`` leaving one.

**Finalisers.** A ``__del__`` of the code runs only while the code is current: what a code
function returned, kept in its arguments or raised dies before the wrapper hands back to the
tests, and the cyclic collector runs only during the code's calls (never while the tests or a
function of theirs run). Otherwise it could run later, with the caches emptied and the tests'
decimal context current, and change what the tests compute next.

A class is "of the run" (the tests' or the code's) when it can still be changed: every class
alive before the run was made immutable by the worker, or by ``World.load`` for a module a job
imports. Where that freeze is not possible (not CPython), the classes of the run are those
whose module is the tests' or the code's.
"""

from __future__ import annotations

import builtins
import copy
import gc
import sys
import types

from course_utils.sandbox import _child_os
from course_utils.sandbox._child_os import is_class
from course_utils.sandbox._child_audit import close_window, open_window
from course_utils.sandbox._plain import PlainValueError, is_scalar_type, to_plain, type_name
from course_utils.sandbox._policy import TESTS_MODULE, USER_MODULE

HANDED = ("des données simples (nombres, chaînes, listes, tuples, dictionnaires, ensembles), "
          "des objets de la bibliothèque standard, des fonctions et des itérateurs")

_flags = type.__dict__["__flags__"].__get__
_module = type.__dict__["__module__"].__get__
_base = type.__dict__["__base__"].__get__
_dict = type.__dict__["__dict__"].__get__
_MODULES = sys.modules  # the real table: a running child's sys.modules is emptied (_child._serve)
_args = BaseException.args.__get__
# Exception groups (Python 3.11+): their exceptions cross one by one.
_BASE_GROUP = getattr(builtins, "BaseExceptionGroup", None)
if _BASE_GROUP is not None:
    _GROUP_MESSAGE = _BASE_GROUP.__dict__["message"].__get__
    _GROUP_EXCEPTIONS = _BASE_GROUP.__dict__["exceptions"].__get__


def _is_group(cls) -> bool:
    return _BASE_GROUP is not None and _in_mro(cls, _BASE_GROUP)
_traceback = BaseException.__traceback__.__get__
_set_traceback = BaseException.__traceback__.__set__
gc_enable, gc_disable, gc_isenabled, gc_is_tracked = gc.enable, gc.disable, gc.isenabled, \
    gc.is_tracked
# Leaves of the walks: their referents lead to namespaces (a function's globals, a module's
# dictionary, a frame's locals), not to what was handed over.
_OPAQUE = (types.FunctionType, types.ModuleType, types.CodeType, types.FrameType,
           types.CellType, types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType)
# Values a copy may share with the original: nothing in them can be changed.
_IMMUTABLE = frozenset({int, float, complex, str, bytes, bool, type(None), type(...),
                        type(NotImplemented), range, slice, tuple, frozenset})
# ... and these classes of the standard library, when loaded (module, class name).
_IMMUTABLE_STDLIB = (("decimal", "Decimal"), ("re", "Pattern"), ("datetime", "date"),
                     ("datetime", "datetime"), ("datetime", "time"), ("datetime", "timedelta"),
                     ("datetime", "timezone"))


def of_the_run(cls) -> bool:
    """True for a class the tests or the code defined (it can still be changed)."""
    try:
        flags = _flags(cls)
    except TypeError:  # its metaclass's MRO hides type (see _child_os.is_class): the stdlib
        return True  # has no such class, only a run can make one
    if not flags & _child_os._HEAPTYPE:
        return False
    if _child_os._FLAGS_OFFSET and _child_os._FLAGS_OFFSET[0] is not None:
        return not flags & _child_os._IMMUTABLETYPE
    module = _module(cls)
    return type(module) is not str or module in (TESTS_MODULE, USER_MODULE)


def _reach(root, visit) -> set:
    """Call ``visit`` once on every object reachable from ``root`` through the objects for
    which it returned True; return the ids seen.

    ``gc.get_referents`` calls no Python code (it follows each object's C-level references);
    it is audited, hence the runner's window (no untrusted code runs in it).
    """
    seen: set = set()
    pending = [root]
    made: list = []  # the reductions read: alive to the end, so that no id is reused
    open_window()
    try:
        while pending:
            obj = pending.pop()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if visit(obj):
                referents = gc.get_referents(obj)
                if not referents and not gc_is_tracked(obj) and not _scalar(obj):
                    # An object the collector does not track shows it no reference: a
                    # datetime holds its tzinfo, a timezone its name. Its reduction shows them
                    # (a type of the standard library's: visit refused the run's classes).
                    referents = _reduced(obj)
                    made.append(referents)
                pending.extend(referents)
    finally:
        close_window()
    return seen


def _scalar(obj) -> bool:
    kind = type(obj)
    return (kind is str or kind is int or kind is float or kind is bool or obj is None
            or kind is bytes or kind is complex)


def _reduced(obj) -> list:
    try:
        reduction = type(obj).__reduce_ex__(obj, 4)
    except Exception:  # noqa: BLE001 - nothing to show: copy would fail on it too
        return []
    return list(reduction) if type(reduction) is tuple else []


def _class_name(cls) -> str:
    name = type.__dict__["__name__"].__get__(cls)
    return name if type(name) is str else "?"


def _refusal(what: str, cls, held: str = "contient un objet de") -> PlainValueError:
    return PlainValueError(
        f"{what} {held} la classe {_class_name(cls)}, définie par les tests : le code la "
        "recevrait et pourrait la modifier (une méthode, un attribut) pour fausser le test. "
        f"Les tests passent au code {HANDED}.")


def _shared_refusal(what: str, value) -> PlainValueError:
    return PlainValueError(
        f"{what} ne peut pas être copié : la copie garderait un objet de type "
        f"{type_name(value)} des tests, que le code pourrait modifier. Les tests passent au "
        f"code {HANDED}.")


class Hidden:
    """What the tests see in place of a class or an object of the untrusted code.

    A class whose ``__new__`` returns a lying object, or an instance whose methods do, never
    reaches a comparison, an arithmetic operation or a builtin of the tests.
    """

    __slots__ = ("_message", "_failed")

    def __init__(self, message: str, failed: list | None = None):
        object.__setattr__(self, "_message", message)
        object.__setattr__(self, "_failed", failed)

    def _refuse(self, *args, **kwargs):
        message = object.__getattribute__(self, "_message")
        failed = object.__getattribute__(self, "_failed")
        if failed is not None:  # the tests fail even if they catch the refusal
            failed.append(_caught_refusal(message))
        raise PlainValueError(message)

    # Every attribute read (its __doc__ is not the code's, and hasattr must not answer) and
    # every operation the interpreter looks up on the type: a missing one would raise a
    # TypeError of the interpreter's, which the tests could catch without it being written
    # down (`try: hash(obj) except TypeError: pass`).
    __getattribute__ = __getattr__ = __setattr__ = __delattr__ = _refuse
    __hash__ = __bool__ = __len__ = __iter__ = __next__ = __reversed__ = __contains__ = _refuse
    __getitem__ = __setitem__ = __delitem__ = __enter__ = __exit__ = _refuse  # (__call__: below)
    __int__ = __float__ = __complex__ = __index__ = __bytes__ = _refuse
    __neg__ = __pos__ = __abs__ = __invert__ = __round__ = __trunc__ = __floor__ = _refuse
    __ceil__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    for _name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "pow",
                  "lshift", "rshift", "and", "xor", "or"):
        for _form in ("__{}__", "__r{}__", "__i{}__"):
            if _form != "__i{}__" or _name != "divmod":
                locals()[_form.format(_name)] = _refuse
    del _name, _form


class HiddenClass(Hidden):
    """A class of the code, for the tests: callable, as a class is (``callable(C)``), and
    refused when called."""

    __slots__ = ()
    __call__ = Hidden._refuse  # an object of the code is callable() only in HiddenClass


def hidden(name: str, value, failed: list | None = None) -> Hidden:
    if is_class(value):
        return HiddenClass(f"{name} est une classe, pas une fonction : les tests n'appellent "
                           "que des fonctions dans le bac à sable", failed)
    return Hidden(f"{name} est un objet de type {type_name(value)} : les tests ne voient que "
                  "les fonctions et les données simples du code dans le bac à sable", failed)


def _caught_refusal(reason) -> str:
    """What :attr:`Membrane.failed` keeps of a refusal raised into the tests: a test that
    expects an exception (``try: f(-1) except ValueError: pass else: assert False``) must not
    pass on the sandbox's refusal of what ``f`` returned."""
    return f"{reason} (refus du bac à sable, intercepté par les tests)"


# Where a stand-in keeps what str() and repr() gave for the exception it stands for (keys no
# attribute syntax can name), or that they raised.
_TEXTS = {"__str__": " str", "__repr__": " repr"}
_RAISED = ("raised",)


def _stand_in_text(self, method: str):
    text = BaseException.__dict__["__dict__"].__get__(self).get(_TEXTS[method])
    if text is _RAISED:
        raise RuntimeError(f"{method[2:-2]}() de cette exception a échoué dans le code")
    if type(text) is str:
        return text
    for base in _MRO(type(self))[1:]:  # the first class that is no stand-in: the stdlib's
        found = type.__dict__["__dict__"].__get__(base).get(method)
        if found is not None and found is not _STAND_IN_METHODS[method]:
            return found(self)
    return object.__str__(self) if method == "__str__" else object.__repr__(self)


def _stand_in_str(self):
    return _stand_in_text(self, "__str__")


def _stand_in_repr(self):
    return _stand_in_text(self, "__repr__")


_STAND_IN_METHODS = {"__str__": _stand_in_str, "__repr__": _stand_in_repr}


def _defines(cls, method: str) -> bool:
    """``cls`` (an exception class) defines ``method`` in a class of the run: looked up in
    the MRO's own dicts, no metaclass ``__getattribute__`` asked."""
    for base in _MRO(cls):
        if method in type.__dict__["__dict__"].__get__(base):
            return of_the_run(base)
    return False


def _stand_in_class(cls, kind, parents=(), new=None, init=None):
    """A class for the other side in place of the exception class ``cls`` of one side: derived
    from ``kind`` (the nearest class of the standard library, see
    :func:`_nearest_stdlib_class`) and from ``parents``, the stand-ins of the exception
    classes of the run in its MRO (``except Base`` catches the stand-in of a subclass, as in
    Python); named after ``cls`` (``type(e) is ValueError`` is false for a subclass, and
    ``type(e).__name__`` is its own), its ``str()`` the one ``cls`` gave. ``new``: its
    ``__new__`` (a staticmethod), which refuses to make one outside the runner."""
    name = str.__str__(type.__dict__["__name__"].__get__(cls))  # exact: no method of the code
    namespace = {**_class_data(cls), "__module__": USER_MODULE, "__qualname__": name,
                 "__str__": _stand_in_str, "__repr__": _stand_in_repr, "__slots__": ()}
    if new is not None:
        namespace["__new__"] = new
    if init is not None:
        namespace["__init__"] = init
    allowed = set(map(id, _MRO(cls)))
    for bases in ((*parents, *(() if any(issubclass(p, kind) for p in parents) else (kind,))),
                  (kind,)):
        try:
            made = type(name, bases, namespace)
        except TypeError:  # no consistent order or layout: the stdlib class alone
            continue
        # Never a stdlib class that is not in cls's own MRO (a metaclass's mro() can put a run
        # class there without its stdlib bases: a StopIteration would end the tests' loop).
        if all(id(base) in allowed for base in _MRO(made) if not of_the_run(base)):
            return made
    raise TypeError(name)


def _run_exception_parents(cls) -> list:
    """The exception classes of the run above ``cls`` in its MRO, nearest first (read from the
    MRO: nothing of the code is asked)."""
    return [base for base in _MRO(cls)[1:] if of_the_run(base) and _in_mro(base, BaseException)]


# The classes the runner is making an exception of, innermost last: a stand-in's __new__ makes
# one object of exactly that class, once (None after it), so that no constructor it runs then
# (the code's own, making a tests' subclass of its class) can make a stand-in through it.
_BUILDING: list = []
# The code's exceptions whose copies the tests may raise back into the code (where they are
# the code's own again): the latest ones only, a loop of 500,000 raises kept them all.
MAX_ORIGINALS = 256


def _remember(originals: dict, copy, original) -> None:
    """``originals[id(copy)] = (original, copy)``, both kept alive (their ids stay theirs),
    the oldest of more than :data:`MAX_ORIGINALS` forgotten (on the code's turn: a copy of the
    tests dies in a cycle the collector frees, a copy of the code's while it is current)."""
    originals[id(copy)] = (original, copy, _state(copy))
    if len(originals) > MAX_ORIGINALS:
        # kept to the code's next turn: on the tests' turn (a tests' Later() made by the
        # code's class) the entry held the last reference to an exception of the code, whose
        # __del__ ran in the tests' decimal context
        _GRAVEYARD.append(originals.pop(next(iter(originals))))


def _state(exc) -> tuple:
    """What an exception holds now, by identity: its ``args`` and its dictionary's values."""
    own = BaseException.__dict__["__dict__"].__get__(exc)
    return BaseException.args.__get__(exc), {key: id(value) for key, value in own.items()}


def _changes_back(copy, original, state: tuple, convert, keep: list) -> None:
    """What one side changed on its copy of the other's exception (``e.args = ...``,
    ``e.extra = ...``, a note), written into that original as it goes back (in Python they are
    one object: ``except ValueError as e: e.args = (f"item {i}: {e}",); raise``). Only what
    changed since the copy was made (``state``), as ``convert`` hands it over; anything else
    of the original stays as it was. What it replaces goes to ``keep``: it belongs to the
    original's side, and must not die on this turn (a finaliser of the tests' would run in the
    code's decimal context)."""
    args, values = state
    now = BaseException.args.__get__(copy)
    if now is not args:
        try:
            replaced = tuple(convert(now, "les arguments de l'exception"))
            keep.append(BaseException.args.__get__(original))
            BaseException.args.__set__(original, replaced)
        except:  # noqa: E722 - not plain data: the original keeps its own
            pass
    source = BaseException.__dict__["__dict__"].__get__(copy)
    target = BaseException.__dict__["__dict__"].__get__(original)
    for key, value in list(source.items()):
        if type(key) is not str or values.get(key) == id(value) or key in _TEXTS.values() \
                or (key.startswith("__") and key != "__notes__"):
            continue
        try:
            replaced = convert(value, f"l'attribut {key} de l'exception")
            if key in target:
                keep.append(target[key])
            target[key] = replaced
        except:  # noqa: E722
            pass


def _past_stand_ins(cls, name: str, own):
    """The method ``name`` that follows the stand-ins' own (``own``) in ``cls``'s MRO: the
    first found past the last class holding ``own``, else BaseException's. Past the last one:
    a class of the tests under a stand-in whose ``__init__`` calls ``super().__init__`` must
    not be found again (``class Later2(Later)`` recursed forever)."""
    mro, last = _MRO(cls), 0
    for index, base in enumerate(mro):
        if type.__dict__["__dict__"].__get__(base).get(name) is own:
            last = index
    for base in mro[last + 1:]:
        found = type.__dict__["__dict__"].__get__(base).get(name)
        if found is not None:
            return found.__get__(None, cls) if type(found) is staticmethod else found
    return BaseException.__dict__[name]


# Exception attributes that are the exception's machinery, not its data.
_EXCEPTION_MACHINERY = frozenset({"args", "__traceback__", "__cause__", "__context__",
                                  "__suppress_context__", "__dict__", "with_traceback",
                                  "add_note"})


def _copy_fields(exc, new, convert) -> None:
    """Give ``new`` what ``exc`` holds beyond its arguments, as ``convert`` hands it over: the
    fields of its standard library classes as they are now (``errno`` or ``strerror`` written
    after the constructor, ``ImportError``'s ``name``, ``SyntaxError``'s ``lineno``), and the
    attributes in its dictionary (``self.amount = amount``, ``JSONDecodeError``'s ``pos``,
    the notes of ``add_note``). Read through the descriptors of those classes and the
    dictionary itself: no method of the code's runs. What cannot be handed over is left out."""
    for base in _MRO(type(new)):
        if of_the_run(base) or base is object:
            continue
        for field, descriptor in type.__dict__["__dict__"].__get__(base).items():
            if field in _EXCEPTION_MACHINERY or field.startswith("_") or type(descriptor) not in (
                    types.GetSetDescriptorType, types.MemberDescriptorType) \
                    or not _in_mro(type(exc), base):
                continue
            try:
                value = convert(descriptor.__get__(exc), field)
                current = descriptor.__get__(new)
                if type(current) is not type(value) or current != value:  # plain values both
                    descriptor.__set__(new, value)  # (an unset filename stays unset)
            except:  # noqa: E722 - a field that cannot be copied keeps its value
                pass
    source = BaseException.__dict__["__dict__"].__get__(exc)
    target = BaseException.__dict__["__dict__"].__get__(new)
    for key, value in list(source.items()) if type(source) is dict else ():
        if type(key) is not str or key in _TEXTS.values() \
                or (key.startswith("__") and key != "__notes__"):
            continue
        try:
            target[key] = convert(value, key)
        except:  # noqa: E722 - not plain data: left out
            pass


class _NotHandedOver:
    """In a stand-in's class, a name the code's class defines as a method, a property or a
    slot: reading it raises, where a base's plain value would otherwise show through."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, instance, owner=None):
        raise AttributeError(f"{self.name} : méthode ou propriété d'une classe d'exception de "
                             "l'autre côté du bac à sable, non transmise")


def _class_data(cls) -> dict:
    """For a stand-in of ``cls``: the plain class attributes ``cls`` itself defines (``status =
    404``), copied, as its class attributes (the stand-ins of its bases carry theirs: Python's
    lookup order, the instance's first, the stdlib's data descriptors as in Python); its other
    names, blocked. Read from its namespace, no method of its own runs. Nothing for a class of
    the run that hooks attribute reads, or derives from one."""
    if any(of_the_run(base) and ("__getattribute__" in _dict(base) or "__getattr__" in _dict(base))
           for base in _MRO(cls)):
        return {}
    data: dict = {}
    for key, value in list(_dict(cls).items()):
        if type(key) is not str or key.startswith("__") or key in _TEXTS.values():
            continue
        if callable(value) or _is_descriptor(value):
            data[key] = _NotHandedOver()
            continue
        try:
            data[key] = to_plain(value, f"l'attribut {key} de la classe d'exception")
        except PlainValueError:
            data[key] = _NotHandedOver()
    return data


def _is_descriptor(value) -> bool:
    kind = type(value)
    return any("__get__" in type.__dict__["__dict__"].__get__(base) for base in _MRO(kind))


class HandedIterator:
    """An iterator of the tests, as the code holds it (see ``Membrane._handed_items``)."""

    __slots__ = ("_next",)

    def __init__(self, step):
        self._next = step

    def __iter__(self):
        return self

    def __next__(self):
        return self._next()


class HandedGenerator(HandedIterator):
    """A generator of the tests, as the code holds it: send, throw and close reach it."""

    __slots__ = ("_send", "_throw", "_close")

    def __init__(self, step, send, throw, close):
        super().__init__(step)
        self._send, self._throw, self._close = send, throw, close

    def send(self, value):
        return self._send(value)

    def throw(self, *args):
        return self._throw(*args)

    def close(self):
        return self._close()


_REAL_MRO = type.__dict__["__mro__"].__get__  # the order `except` matches in


def _MRO(cls) -> tuple:
    """``cls.__mro__`` as the interpreter holds it (not as a metaclass answers), or ``(cls,)``
    for a class whose metaclass's own MRO hides ``type`` (every descriptor of ``type`` then
    refuses it, see :func:`_child_os.is_class`): a class derived, for the runner, from
    nothing, which no class of the standard library stands for."""
    try:
        return _REAL_MRO(cls)
    except TypeError:
        return (cls,)


def _in_mro(cls, target) -> bool:
    """``target`` is in ``cls``'s MRO, by identity (``in`` would ask a metaclass's ``__eq__``)."""
    return any(base is target for base in _MRO(cls))


def _nearest_stdlib_class(cls):
    """The exception class of the standard library that stands for ``cls`` across the
    boundary, or None: the first class of ``cls``'s MRO that is not of the run and whose own
    MRO lies within ``cls``'s. An ``except`` clause that catches it then catches ``cls`` in
    Python too (a metaclass's ``mro()`` can leave ValueError, or BaseException itself, out of
    a subclass of ValueError: `except ValueError` lets that one through). None when no class
    qualifies: no ``except`` but a bare one would catch ``cls``, or its MRO holds two branches
    of the standard library's exceptions (``class E(KeyError, TypeError)``: no one class of
    theirs is caught by the same clauses)."""
    mro = _MRO(cls)
    stdlib = [base for base in mro if not of_the_run(base)
              and any(root is BaseException for root in _MRO(base))]
    for candidate in stdlib:
        inner = _MRO(candidate)
        if all(any(base is known for known in mro) for base in inner) \
                and all(any(base is known for known in inner) for base in stdlib):
            return candidate
    return None  # also when two branches are stdlib exceptions: class E(KeyError, TypeError)


def _unmatched(exc, side: str) -> BaseException:
    """What stands for an exception whose class no stdlib class can stand for (see
    :func:`_nearest_stdlib_class`): an error written down, the run fails."""
    return RuntimeError(f"{type_name(exc)} levée par {side} : aucune exception de la "
                        "bibliothèque standard n'est attrapée par les mêmes except (classe "
                        "dérivée de plusieurs d'entre elles, ou mro() modifié) : c'est compté "
                        "comme une erreur")


_OSERROR_FIELDS = ("errno", "strerror", "filename", None, "filename2")
_RESUMABLE = 0x20 | 0x80 | 0x200  # inspect.CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR
_OSERROR_FILENAME = OSError.__dict__["filename"].__get__
_OSERROR_FILENAME2 = OSError.__dict__["filename2"].__get__


def _with_file_names(exc, kind, handed: tuple, convert) -> tuple:
    """``handed`` (the arguments of the OSError ``exc``), with its file names converted: they
    are not in its ``args`` (OSError(2, 'absent', 'f.txt').args is (2, 'absent'))."""
    if issubclass(kind, OSError) and len(handed) == 2:
        names = [_OSERROR_FILENAME(exc), _OSERROR_FILENAME2(exc)]
        if names != [None, None]:
            return handed + (convert(names[0]), None, convert(names[1]))
    return handed


def _rebuilt(kind, args: tuple) -> BaseException:
    """An exception of ``kind`` holding ``args``, or of the nearest base class that accepts
    them (json.JSONDecodeError(msg) wants three arguments: a ValueError). Never a class that
    is not a base: a RuntimeError in place of a BaseExceptionGroup would be caught by an
    ``except Exception`` that lets the original through. BaseException takes anything."""
    while True:
        try:
            return _made(kind, args)
        except:  # noqa: E722 - a class whose constructor wants other arguments
            kind = _base(kind)


def _building(kind, make, *args):
    """``make(*args)``, allowed to make one ``kind`` (see :data:`_BUILDING`), with the
    collector off: no finaliser of the code runs meanwhile (one calling a function of the
    tests would find it allowed)."""
    collecting = gc.isenabled()
    gc.disable()
    _BUILDING.append(kind)
    try:
        return make(*args)
    finally:
        _BUILDING.pop()
        if collecting:
            gc.enable()


def _made(kind, args: tuple) -> BaseException:
    """``kind(*args)``, of exactly that class (see :func:`_exactly`)."""
    new = _building(kind, kind, *args)
    return new if type(new) is kind else _exactly(kind, args)


def _exactly(kind, args: tuple) -> BaseException:
    """An exception of exactly ``kind`` holding ``args``. Called by ``OSError(errno, text)``,
    the class answers the subclass of that errno (2: FileNotFoundError), which an exception of
    the code's own subclass of OSError never is: the tests' ``except TimeoutError`` must not
    catch it. Raises TypeError when ``kind`` cannot be made so (an exception group is valid
    only as its constructor makes it)."""
    if _is_group(kind):
        raise TypeError(kind)
    new = _building(kind, kind.__new__, kind)  # no arguments: OSError chooses no subclass
    if type(new) is not kind:
        raise TypeError(kind)
    oserror = issubclass(kind, OSError) and 2 <= len(args) <= 5
    BaseException.args.__set__(new, args[:2] if oserror else args)
    if oserror:
        for field, value in zip(_OSERROR_FIELDS, args):  # as OSError's constructor sets them
            if field is not None:
                OSError.__dict__[field].__set__(new, value)
    return new


def _handled_exception():
    return sys.exc_info()[1]


sys_exception = getattr(sys, "exception", _handled_exception)  # Python 3.11+: sys.exception


def _unhandled(function, args, kwargs):
    """``function(*args, **kwargs)`` called while the other side handles an exception, with a
    fresh one of the runner's handled instead: the exception being handled is per thread, so
    a bare ``raise`` in the code called from the tests' ``except`` block re-raised the tests'
    own object into the code, uncopied (and its class with it). As in Python without one, a
    bare ``raise`` then raises ``RuntimeError``; the new exceptions' ``__context__`` is that
    one, which holds no other."""
    try:
        raise RuntimeError("No active exception to reraise")
    except RuntimeError as fresh:
        fresh.__context__ = None
        fresh.__traceback__ = None
        return function(*args, **kwargs)


_GRAVEYARD: list = []  # emptied caches, kept alive until the code's next turn (see below)


def forget_caches() -> None:
    """Empty the caches of the allowed modules that the code fills with keys of its choosing.

    ``re`` and ``strptime`` cache what they compile under the arguments given: a key whose
    class says it equals everything (``class Z(str): __eq__ = lambda *a: True``) would hand the
    tests a pattern or a format the code chose. (struct's formats are made exact where the
    code passes them, ``_child_builtins._exact_format``; re's template cache and typing's
    caches are removed in the worker, see ``harden_modules``.) Emptied before the tests run,
    after every call of a code function and before every call of a function of the tests by
    the code. What they held is not released here (a key's finaliser would be code of the
    untrusted side running now, and could fill them again): the entries wait in a graveyard
    that the code's next call empties, while the code is current."""
    modules = _MODULES
    regex = modules.get("re")
    if regex is not None:  # swapped, not copied: nothing is hashed or sized
        namespace = vars(regex)
        for name in ("_cache", "_cache2"):  # _cache2: Python 3.12+
            cache = namespace.get(name)
            if cache:
                _GRAVEYARD.append(cache)
                namespace[name] = {}  # re's functions read the module's globals at each call
    strptime = modules.get("_strptime")
    if strptime is not None and strptime._regex_cache:
        _GRAVEYARD.append(strptime._regex_cache)
        strptime._regex_cache = {}


def sided_random(membrane, code_random, tests_random):
    """What ``statistics`` finds as its global ``random`` (``NormalDist.samples`` draws from
    ``random.gauss``, from Python 3.13 ``random.random``): the tests' generator on the tests'
    turn, the code's on the code's. The real module's functions are bound to the code's
    generator, which the code can seed and steer; the tests' inputs must come from theirs (see
    ``_child_builtins.tests_view``).
    The membrane stays in a closure: the object has no attribute of its own to walk."""

    class SidedRandom:
        __slots__ = ()

        def __getattr__(self, name):  # the names statistics reads (3.13: random), no other
            if name != "gauss" and name != "Random" and name != "random":
                raise AttributeError(name)
            return getattr(tests_random if membrane.tests_turn else code_random, name)

    _child_os.freeze_types([SidedRandom])  # made in a child: not a class of the run
    return SidedRandom()


LOST = ("le bac à sable n'a pas pu rendre la main aux tests après un appel (mémoire épuisée ?) : "
        "le reste de l'exécution n'est pas évalué")


class TurnLost(BaseException):
    """Raised where a change of turn could not be completed (see :attr:`Membrane.lost`)."""


def _names_of(function) -> dict:
    """``__name__``, ``__qualname__`` and ``__doc__`` of a function of the code, or of what
    ``functools`` made of one (``lru_cache``, ``cache``: a C type whose names its
    ``update_wrapper`` wrote into the object's dictionary), as exact strings; read without
    running anything of the code's (no attribute lookup through its classes)."""
    kind = type(function)
    if kind is types.FunctionType:
        namespace = {attr: types.FunctionType.__dict__[attr].__get__(function)
                     for attr in ("__name__", "__qualname__", "__doc__")}
    else:
        descriptor = None if of_the_run(kind) \
            else type.__dict__["__dict__"].__get__(kind).get("__dict__")
        if type(descriptor) is not types.GetSetDescriptorType:
            return {}
        namespace = descriptor.__get__(function)
        if type(namespace) is not dict:
            return {}
        namespace = {key: value for key, value in namespace.items()
                     if type(key) is str and key in ("__name__", "__qualname__", "__doc__")}
    return {attr: value for attr, value in namespace.items()
            if type(value) is str or (attr == "__doc__" and value is None)}


class Membrane:
    """The crossings of one run (built by the worker, copied by each child; see the module).

    ``views``: the code's module views by name, ``test_views`` the tests' (the tests hand a
    module over: the code gets its own view of it).
    """

    def __init__(self, views: dict, test_views: dict, program_lines: list[str]):
        self.failed: list[str] = []  # the tests' failed assertions, in French
        self.escaped = None  # exceptions that left the tests' functions: (exc, older) chain
        self.program_lines = program_lines  # the assertion program's source (see _interrupted_assert)
        self.assert_lines: set | None = None  # its lines inside an assert, found when needed
        self.decimal = None  # the decimal module, once the run separates the contexts
        self.contexts: dict = {}  # side ("code", "tests") -> its decimal context
        self.tests_turn = False  # whose turn it is (the code's first: it is loaded)
        # Set when a change of turn failed halfway (the code exhausted the memory, say): the
        # tests might go on in the code's decimal context, with its caches. The rest of the
        # run is then void (_child._run aborts it). Raised as made here: nothing to allocate.
        self.lost: str | None = None
        self.lost_error = TurnLost(LOST)
        self.kept: list = []  # the code's callables handed to the tests (code_function)
        self.tests_kept: list = []  # the tests' callables and iterators handed to the code
        self.stand_ins: dict = {}  # id(exception class) -> (its stand-in, the class)
        self.stood_for: dict = {}  # id(a stand-in) -> the class it stands for
        # id(the tests' copy of an exception of the code) -> (the code's exception, the copy):
        # raised back into the code (through a function of the tests), it is the code's again
        self.originals: dict = {}
        self.tests_originals: dict = {}  # the same, for the tests' exceptions the code holds
        failed = self.failed

        def refuse_new(cls, *args, **kwargs):
            if _BUILDING and _BUILDING[-1] is cls and not self.tests_turn:
                _BUILDING[-1] = None  # the runner making one (once: see _BUILDING)
                return _past_stand_ins(cls, "__new__", self._stand_in_new)(cls, *args, **kwargs)
            name = str.__str__(type.__dict__["__name__"].__get__(cls))
            if id(cls) not in self.made_stand_ins:  # a class derived from a stand-in
                if self.tests_turn:  # the tests' subclass of the code's class
                    return _past_stand_ins(cls, "__new__", self._stand_in_new)(cls, *args, **kwargs)
                # The code's subclass of a class of the tests: Python would run the tests'
                # constructor, which never runs on the code's turn; and on its way back the
                # object would be an exception of the tests' class the tests did not make.
                message = (f"{name} dérive d'une classe d'exception de l'autre côté du bac à "
                           "sable : elle s'attrape, mais ni elle ni ses sous-classes ne se "
                           "créent ici")
                failed.append(message)
                raise TypeError(message)
            original = self.code_classes.get(id(cls))
            if original is not None and self.tests_turn:
                # the tests make the code's exception (raise Retry()): made by the code's own
                # class, on its turn, and handed over as the stand-in of what it made
                make = self.constructors.get(id(cls))
                if make is None:
                    make = self.constructors[id(cls)] = self.code_function(
                        original, name, makes_exception=True)
                made = make(*args, **kwargs)
                if _in_mro(type(made), cls):  # Python initialises it next (stand_in_init)
                    self.made_by_code[id(made)] = made  # initialised already: by the code's
                return made
            message = (f"{name} est une classe d'exception de l'autre côté du bac à sable : "
                       f"elle s'attrape (except {name}) mais ne se crée pas ici")
            failed.append(message)  # written down: an except of the tests cannot hide it
            raise TypeError(message)

        self._stand_in_new = staticmethod(refuse_new)
        self.made_by_code: dict = {}  # id -> the object (alive: its id stays its own)

        def stand_in_init(instance, *args, **kwargs):
            if self.made_by_code.pop(id(instance), None) is instance:
                return
            cls = type(instance)
            if self.tests_turn and id(cls) not in self.made_stand_ins:
                # The tests' subclass of the code's class (class Later(Retry)): Python runs
                # the code's __init__ on it. The code's class makes one here, on its turn, and
                # what it made (arguments, fields, attributes, str() and repr() texts) is
                # copied into the tests' object, which the code never holds.
                for base in _MRO(cls)[1:]:
                    original = self.code_classes.get(id(base))
                    if original is None:
                        continue
                    make = self.constructors.get(id(base))
                    if make is None:
                        make = self.constructors[id(base)] = self.code_function(
                            original, str.__str__(type.__dict__["__name__"].__get__(base)),
                            makes_exception=True)
                    made = make(*args, **kwargs)
                    if issubclass(type(made), BaseException):
                        BaseException.args.__set__(instance, BaseException.args.__get__(made))
                        _copy_fields(made, instance, lambda value, field: value)
                        texts = BaseException.__dict__["__dict__"].__get__(made)
                        into = BaseException.__dict__["__dict__"].__get__(instance)
                        for key in _TEXTS.values():
                            if key in texts:
                                into[key] = texts[key]
                        entry = self.originals.get(id(made))
                        if entry is not None and entry[1] is made:
                            # raised into the code, it is the exception the code made
                            _remember(self.originals, instance, entry[0])
                        return
                    break
            _past_stand_ins(cls, "__init__", stand_in_init)(instance, *args, **kwargs)

        self._stand_in_init = stand_in_init
        self.code_classes: dict = {}  # id(the stand-in of a class of the code) -> that class
        self.made_stand_ins: set = set()  # ids of the stand-ins made (kept in stand_ins)
        self.constructors: dict = {}  # id(such a stand-in) -> its class, wrapped for the tests
        self.code_views: dict = {}  # id of a tests' view -> the code's view
        self.test_views: dict = {}  # id of a code's view -> the tests' view
        self.code_view_ids: set = set()
        self.test_view_classes: set = set()  # ids of the tests' own view classes
        self.add_views(views, test_views)

    def add_views(self, views: dict, test_views: dict) -> None:
        for name, view in test_views.items():
            code_view = views[name]
            self.code_views[id(view)] = code_view
            self.test_views[id(code_view)] = view
            self.code_view_ids.add(id(code_view))
            if view is not code_view:
                self.test_view_classes.add(id(type(view)))

    # --- the decimal contexts -------------------------------------------------------------

    def separate_contexts(self) -> None:
        """The code keeps the context it has; the tests get a fresh default one. Nothing when
        ``decimal`` is not loaded. The code cannot change the precision the tests compute
        with (``decimal.getcontext().prec = 1`` at load time, or inside a call). The tests'
        turn begins."""
        self.tests_turn = True
        decimal = _MODULES.get("decimal")
        if decimal is None:
            return
        self.decimal = decimal
        self.contexts["code"] = decimal.getcontext()
        decimal.setcontext(decimal.Context(  # the defaults, spelled out: DefaultContext is
            prec=28, rounding=decimal.ROUND_HALF_EVEN, Emin=-999999, Emax=999999, capitals=1,
            clamp=0, flags=[], traps=[decimal.InvalidOperation, decimal.DivisionByZero,
                                      decimal.Overflow]))  # mutable

    # --- code to tests --------------------------------------------------------------------

    def for_tests(self, value, name: str):
        """What the tests get for a value of the code: a function wrapped, plain data copied,
        a module view replaced by the tests' own (read-only; the tests' ``random`` has its own
        generator), anything else (classes, objects) hidden behind a French refusal."""
        view = self.test_views.get(id(value))
        if view is not None:
            return view
        if is_class(value):
            if of_the_run(value) and _in_mro(value, BaseException) \
                    and _nearest_stdlib_class(value) is not None:
                # ``except SoldeInsuffisant`` in the tests: the class its raised exceptions
                # reach them as (see exception_for_tests)
                return self.stand_in_of(value)
            return hidden(name, value, self.failed)
        if callable(value):
            return self.code_function(value, name)
        try:
            return to_plain(value, name)
        except PlainValueError:
            return hidden(name, value, self.failed)

    def code_function(self, function, name: str, makes_exception: bool = False):
        """Wrap a function of the untrusted code for the tests: it gets what the tests hand
        over (:meth:`to_code`), runs in the code's own decimal context, and the tests only
        ever see plain copies of what it returns (:meth:`exception_for_tests` for what it
        raises). A ``StopIteration`` it raises becomes an error: it would otherwise end the
        test's loop (``all(map(f, ...))``) as if all were done.

        The code's objects die before the tests take over again: what it returned, what it
        kept in its arguments, its exception and its frames are released while the code's
        context is current, and the cyclic collector runs only during the code's calls, so
        that no finaliser (``__del__``) of the code runs in the tests' context."""
        membrane = self
        contexts = self.contexts
        # Kept alive to the end of the run: held only by this wrapper, which the tests may
        # drop (a dict entry overwritten), the code's object would die on the tests' turn,
        # and its __del__ run in their decimal context.
        self.kept.append(function)
        # Few distinct objects on the common path (plain arguments, no decimal): in a forked
        # child, each first touch of an object copies its page.

        def call(*args, **kwargs):
            try:  # one copy of all the arguments: f(l, b=l) gets one list twice, as in Python
                if kwargs:
                    args, kwargs = to_plain([[*args], kwargs], "l'argument")
                elif all(is_scalar_type(type(value)) for value in args):
                    args = [*args]
                else:
                    args = to_plain([*args], "l'argument")
            except PlainValueError:  # each by itself (a copy of what is not plain data)
                args = membrane._handed_arguments(args, name)
                if kwargs:
                    kwargs = membrane._handed_arguments(kwargs, name)
            decimal = membrane.decimal
            if decimal is not None:
                contexts["tests"] = decimal.getcontext()
                decimal.setcontext(contexts["code"])
            escaped = membrane.escaped

            def turn():
                # the code's turn: its call, then what it returned or raised read (its
                # __str__ runs here), all with no exception of the tests' handled (_unhandled)
                plain = failure = None
                try:
                    if _GRAVEYARD:
                        _GRAVEYARD.clear()  # old cache entries of the code die on its turn
                    result = function(*args, **kwargs)
                    try:
                        plain = membrane.exception_for_tests(result) if makes_exception \
                            else to_plain(result, f"la valeur renvoyée par {name}")
                    except PlainValueError as exc:
                        membrane.failed.append(_caught_refusal(exc))
                        failure = exc
                    result = None  # the code's object dies here, while the code is current
                except (StopIteration, StopAsyncIteration) as exc:
                    failure = RuntimeError(f"{name} a levé {type_name(exc)}, ce qui arrêterait "
                                           "la boucle du test : c'est compté comme une erreur")
                    membrane.failed.append(str(failure))  # an error even if the tests catch it
                except:  # noqa: E722 - every exception, whatever its class's __mro__ claims (a
                    # metaclass's mro() can leave BaseException out: `except BaseException`
                    # would not match, and the tests would get the code's own object)
                    try:
                        failure = membrane.exception_for_tests(sys.exc_info()[1])
                    except:  # noqa: E722 - no copy (memory exhausted): nothing of it crosses
                        failure, membrane.lost = None, LOST
                return plain, failure

            membrane.tests_turn = False
            gc_enable()
            try:
                plain, failure = turn() if sys_exception() is None else _unhandled(turn, (), {})
            finally:
                args = kwargs = None
                membrane._back_to_tests(decimal, escaped)
            if membrane.lost:
                raise membrane.lost_error
            if failure is not None:
                raise failure
            return plain

        for attr, value in _names_of(function).items():  # the tests read them, as in Python
            setattr(call, attr, value)
        return call

    def _back_to_tests(self, decimal, escaped) -> None:
        """The tests' turn again, after a call of the code's function: the collector off first,
        the code's previous decimal context released while it is still current, the tests'
        context back, the caches emptied, the cut-short asserts judged. Never half done:
        whatever fails here (the code may have exhausted the memory) voids the rest of the
        run (:attr:`lost`)."""
        contexts = self.contexts
        try:
            gc_disable()
            if decimal is not None:
                current = decimal.getcontext()
                if current is contexts["tests"]:
                    self.failed.append("le code a gardé le contexte decimal des tests")
                # Nothing of the code dies during a change of turn: its previous context waits
                # in the graveyard (its __del__ could install another context, which the next
                # setcontext would release with the tests' context already current); the one
                # setcontext replaces is held by contexts["code"].
                _GRAVEYARD.append(contexts["code"])
                contexts["code"] = current
                current = None
                decimal.setcontext(contexts["tests"])
            self.tests_turn = True
            forget_caches()
            if self.escaped is not escaped:
                self._record_escaped(escaped)
        except:  # noqa: E722 - whatever it was
            self.lost = LOST
            self.tests_turn = True

    def _handed_arguments(self, args, name: str):
        """The tests' arguments for the code's function ``name`` (a list, or a dict of keyword
        arguments), by :meth:`to_code`; a refusal is written down before it is raised."""
        try:
            if type(args) is dict:
                return {key: self.to_code(value, name, key) for key, value in args.items()}
            return [self.to_code(value, name, index) for index, value in enumerate(args, 1)]
        except PlainValueError as exc:
            self.failed.append(_caught_refusal(exc))
            raise

    # --- tests to code --------------------------------------------------------------------

    def to_code(self, value, name: str, where=None):
        """What the code receives for ``value``, handed over by the tests (see the module).

        ``name`` and ``where`` say what the value is, for a refusal: the argument ``where``
        (a position or a keyword) of the code's function ``name``, or, without ``where``,
        ``name`` is the whole description."""
        try:
            return to_plain(value, "l'argument")
        except PlainValueError:
            pass
        what = name if where is None else f"l'argument {where} de {name}"
        kind = type(value)
        if is_class(value):
            if of_the_run(value) or id(value) in self.test_view_classes:
                raise _refusal(what, value, "est")
            return value
        view = self.code_views.get(id(value))
        if view is not None:
            return view
        if callable(value):
            return self.callback(value)
        if hasattr(kind, "__next__"):
            return self._handed_items(value, f"un élément donné par {what}")
        if of_the_run(kind):
            raise _refusal(what, kind, "est un objet de")
        memo, originals = self._walk(value, what)
        try:
            copied = copy.deepcopy(value, memo)
        except Exception:  # noqa: BLE001 - a generator inside a list, a lock...
            raise PlainValueError(f"{what} ne peut pas être copié (il contient un objet que "
                                  f"copy ne sait pas copier) : les tests passent au code {HANDED}."
                                  ) from None
        self._check_copy(copied, originals, what, self.code_view_ids)
        return copied

    def _walk(self, value, what: str):
        """Refuse ``value`` if it reaches a class of the run; else ``(memo, originals)``: the
        memo for its deep copy, which puts a callback in place of each callable inside it and
        the code's view in place of a module, and the ids of the objects it reaches."""
        memo: dict = {}
        rebuilt: list = []

        def visit(obj) -> bool:
            kind = type(obj)
            if is_class(obj):
                if of_the_run(obj) or id(obj) in self.test_view_classes:
                    raise _refusal(what, obj, "contient")
                return False
            view = self.code_views.get(id(obj))
            if view is not None:
                memo[id(obj)] = view
                return False
            if callable(obj):  # a function, a bound method, a callable object: called
                memo[id(obj)] = self.callback(obj)
                return False
            if of_the_run(kind):
                raise _refusal(what, kind)
            if _flags(kind) & _child_os._HEAPTYPE and "__deepcopy__" in _dict(kind):
                # A class of the standard library whose copies share the object itself
                # (Fraction: "my components are immutable", yet its slots can be set): a new
                # one, from its reduction.
                rebuilt.append(obj)
            return not issubclass(kind, _OPAQUE)

        seen = _reach(value, visit)
        for obj in rebuilt:
            memo[id(obj)] = copy._reconstruct(obj, None, *obj.__reduce_ex__(4))
        memo[id(memo)] = [value]  # deepcopy's keep-alive list, made here: ids stay unique
        return memo, seen

    @staticmethod
    def _check_copy(copied, originals: set, what: str, views: set) -> None:
        """Refuse a copy that still holds a changeable object of the original: ``deepcopy``
        returns some objects as they are (a builtin method's object, an ``re.Match``, what a
        class's ``__deepcopy__`` chooses to share)."""
        immutable = {id(cls) for cls in _IMMUTABLE}  # ids: a class is never hashed in a window
        for module_name, class_name in _IMMUTABLE_STDLIB:
            module = _MODULES.get(module_name)
            cls = getattr(module, class_name, None) if module is not None else None
            if cls is not None:
                immutable.add(id(cls))

        def visit(obj) -> bool:
            kind = type(obj)
            if is_class(obj) or kind is types.FunctionType or id(obj) in views:
                return False  # classes checked by the walk; the callbacks; the code's views
            if id(obj) in originals and id(kind) not in immutable:
                raise _shared_refusal(what, obj)
            return not issubclass(kind, _OPAQUE)

        _reach(copied, visit)

    def callback(self, function):
        """A function the code can call in place of a callable of the tests (see the module).

        The tests' function runs in the tests' decimal context, with the caches emptied and
        the cyclic collector off. An exception leaving it is first put on
        :attr:`escaped`, with no call (at the recursion limit a call would fail): the code's
        function wrapper, back at the tests' depth, decides whether an assert was cut short."""
        what = "la valeur renvoyée par une fonction des tests"
        membrane, contexts = self, self.contexts
        # Kept alive to the end of the run: held only by what the code holds, the tests' object
        # (a generator and its finally block, a localcontext) would die on the code's turn,
        # when the code drops it, and run there, in the code's decimal context.
        self.tests_kept.append(function)

        def call_tests(*args, **kwargs):
            kwargs = {str.__str__(key): value for key, value in kwargs.items()}  # exact names:
            try:  # no __eq__ of the code; one copy of plain arguments, sharing kept
                args, kwargs = to_plain([[*args], kwargs], "un argument donné par le code")
            except PlainValueError:
                args = [membrane.for_tests(value, "un argument donné par le code")
                        for value in args]
                kwargs = {key: membrane.for_tests(value, "un argument donné par le code")
                          for key, value in kwargs.items()}
            decimal = membrane.decimal
            # Every change of turn with the collector off: setcontext allocates, and a
            # collection there would run the code's finalisers in the tests' context. The
            # collector is put back as it was found: this may run inside a change of turn
            # (a finaliser of the code, released there, calling a function of the tests).
            collecting = gc_isenabled()
            gc_disable()
            try:
                if decimal is not None:  # its previous one waits in the graveyard (see above)
                    _GRAVEYARD.append(contexts["code"])
                    contexts["code"] = decimal.getcontext()
                forget_caches()  # what the code has cached must not reach the tests' function
                if decimal is not None:
                    decimal.setcontext(contexts["tests"])
            except:  # noqa: E722 - still the code's turn: nothing of the tests has run
                if collecting:
                    gc_enable()
                raise
            membrane.tests_turn = True
            try:
                try:
                    result = function(*args, **kwargs) if sys_exception() is None \
                        else _unhandled(function, args, kwargs)
                except:  # noqa: E722 - every exception (see code_function), raised below as a copy
                    replacement = sys.exc_info()[1]
                    try:
                        membrane.escaped = (replacement, membrane.escaped)
                    except:  # noqa: E722 - it could not be judged: the run is void
                        membrane.lost = LOST
                else:
                    replacement = None
            finally:
                try:
                    if decimal is not None:
                        contexts["tests"] = decimal.getcontext()
                        decimal.setcontext(contexts["code"])
                except:  # noqa: E722 - the code would go on in the tests' context
                    membrane.lost = LOST
                membrane.tests_turn = False
                if collecting:
                    gc_enable()
            if membrane.lost:
                raise membrane.lost_error
            if replacement is not None:
                # outside the handler: the tests' exception is not the new one's __context__
                raise membrane.exception_for_code(replacement)
            try:
                return membrane.to_code(result, what)
            except PlainValueError as exc:  # written down: the code's except cannot hide it
                membrane.failed.append(_caught_refusal(exc))
                raise

        return call_tests

    def _handed_items(self, source, what: str):
        """The tests' iterator ``source`` as the code gets it: each item taken by a callback
        (in the tests' context) and handed over by :meth:`to_code`. A generator of the tests
        also takes what the code sends, throws or closes it with, as in Python (a function
        that closes the iterator it is given closes the tests' generator)."""
        self.tests_kept.append(source)  # its finally never runs on the code's turn (callback)
        step = self.callback(source.__next__)
        if type(source) is not types.GeneratorType:
            return HandedIterator(step)
        membrane = self

        def throw(*args):
            exc = args[0] if len(args) == 1 else (args[1] if len(args) > 1 and args[1] is not None
                                                   else args[0])
            if is_class(exc) and issubclass(exc, BaseException):
                exc = exc()
            if not issubclass(type(exc), BaseException):
                raise TypeError("throw() attend une exception")
            handed = membrane.exception_for_tests(exc)  # on the code's turn, as it raised it
            return membrane.callback(lambda: source.throw(handed))()

        return HandedGenerator(step, self.callback(source.send), throw,
                               self.callback(source.close))

    def _record_escaped(self, until) -> None:
        """Judge the exceptions that left functions of the tests called by the code, from
        :attr:`escaped` back to ``until`` (see :meth:`callback`): an assert they cut short, a
        recursion limit or a memory error count as a failed assertion."""
        chain, self.escaped = self.escaped, until
        while chain is not until and type(chain) is tuple:
            exc, chain = chain
            line = self._interrupted_assert(exc)
            if line is not None:
                self.failed.append(f"l'assertion ligne {line} du test n'a pas pu finir "
                                   f"({type_name(exc)}) dans une fonction des tests appelée "
                                   "par le code")
            elif issubclass(type(exc), (RecursionError, MemoryError)):
                self.failed.append(f"une fonction des tests appelée par le code n'a pas pu "
                                   f"finir ({type_name(exc)})")

    def exception_for_tests(self, exc: BaseException) -> BaseException:
        """A new exception for the tests in place of ``exc``, raised by the code: of the
        nearest class of the standard library in its class's MRO, with plain copies of its
        arguments, and its traceback with the code's frames cleared (their variables released
        now, while the code is current; the line numbers stay for the report)."""
        original = self.tests_originals.get(id(exc))
        if original is not None and original[1] is exc:  # the tests' own, back
            _changes_back(exc, original[0], original[2], to_plain, self.tests_kept)
            return self._with_code_frames_cleared(exc, original[0])
        kind = _nearest_stdlib_class(type(exc))
        if kind is None:
            new = _unmatched(exc, "le code")
            self.failed.append(str(new))
            return new
        if issubclass(kind, (StopIteration, StopAsyncIteration)):  # its class may hide it
            message = (f"{type_name(exc)} levée par le code, ce qui arrêterait la boucle du "
                       "test : c'est compté comme une erreur")
            self.failed.append(message)
            return RuntimeError(message)
        try:  # converting may run the code (a key's __hash__), which may raise anything
            if _is_group(kind):  # its exceptions cross one by one
                handed = (to_plain(_GROUP_MESSAGE(exc), "le message du groupe"),
                          [self.exception_for_tests(inner) for inner in _GROUP_EXCEPTIONS(exc)])
            else:
                handed = _with_file_names(exc, kind, tuple(
                    to_plain(arg, "l'argument de l'exception") for arg in _args(exc)),
                    lambda name: to_plain(name, "le nom de fichier de l'exception"))
        except:  # noqa: E722 - whatever the class of what it raised
            handed = (f"{type_name(exc)} levée par le code",)
        new = self._standing_in(exc, kind, handed, text=True)
        _remember(self.originals, new, exc)
        return self._with_code_frames_cleared(exc, new)

    def _with_code_frames_cleared(self, exc: BaseException, new: BaseException) -> BaseException:
        """``new``, given ``exc``'s traceback with the code's frames cleared (their variables
        released now, while the code is current; the line numbers stay for the report)."""
        tb = _traceback(exc)
        frames = []
        suspended = False
        open_window()  # reading the runner's own traceback objects: nothing is released here
        try:
            while type(tb) is types.TracebackType:
                frame = tb.tb_frame
                code = frame.f_code
                if code.co_filename in ("<solution>", "<eval>"):
                    frames.append(frame)
                    suspended = suspended or bool(code.co_flags & _RESUMABLE)
                tb = tb.tb_next
        finally:
            close_window()
        if suspended:
            # A generator's frame keeps its variables when cleared (clearing only closes the
            # generator): held by this exception's traceback, they would die when the tests
            # drop it, on their turn. Kept alive to the end of the run instead.
            self.kept.append(new)
        # Outside the window: clearing a frame releases its variables, and their finalisers
        # (or a suspended generator's finally) are code of the untrusted side, which must never
        # run inside a window (it allows compile and exec).
        for frame in frames:
            try:
                frame.clear()
            except RuntimeError:  # still running (a generator of the code, say)
                pass
        frames = None
        _set_traceback(new, _traceback(exc))
        return new

    def exception_for_code(self, exc: BaseException) -> BaseException:
        """A new exception for the code in place of ``exc``, raised by the tests' code: of the
        nearest class of the standard library in its class's MRO, with arguments handed over
        by :meth:`to_code` (their text when they cannot be). The tests' copy of an exception of
        the code is the code's own exception again."""
        original = self.originals.get(id(exc))
        if original is not None and original[1] is exc:
            # the code's own again (with what the tests changed on their copy); raised back
            # unchanged, it is the tests' object again
            _changes_back(exc, original[0], original[2], self.to_code, _GRAVEYARD)
            _remember(self.tests_originals, original[0], exc)
            return original[0]
        new = self._exception_for_code(exc)
        _remember(self.tests_originals, new, exc)  # raised back to the tests: theirs again
        return new

    def _exception_for_code(self, exc: BaseException) -> BaseException:
        kind = _nearest_stdlib_class(type(exc))
        if kind is None:
            new = _unmatched(exc, "les tests")
            self.failed.append(str(new))
            return new
        args = _args(exc)
        try:
            if _is_group(kind):
                handed = (self.to_code(_GROUP_MESSAGE(exc), "le message du groupe"),
                          [self.exception_for_code(inner) for inner in _GROUP_EXCEPTIONS(exc)])
            else:
                handed = _with_file_names(exc, kind, tuple(
                    self.to_code(arg, "l'argument d'une exception des tests") for arg in args),
                    lambda name: self.to_code(name, "un nom de fichier"))
        except PlainValueError:
            handed = (f"{type_name(exc)} levée par les tests",)
        return self._standing_in(exc, kind, handed)

    def stand_in_of(self, cls, kind=None, record: bool = False):
        """The stand-in class of the exception class ``cls`` of the run (made once per run,
        under its parents' stand-ins), or ``kind`` itself when none can be made. ``record``:
        ``cls`` is the tests' (their exception on its way to the code), and its stand-in
        becomes ``cls`` again on the way back."""
        found = self.stand_ins.get(id(cls))
        if found is not None:
            if record and id(found[0]) in self.made_stand_ins:  # never a class of the other side
                self.stood_for[id(found[0])] = cls
            return found[0]
        # a stand-in itself (the tests' copy of the code's class, forgotten in originals): on
        # the other side, the class it stands for
        original = self.code_classes.get(id(cls)) or self.stood_for.get(id(cls))
        if original is not None:
            return original
        if kind is None:
            kind = _nearest_stdlib_class(cls)
        ancestors = _run_exception_parents(cls)
        for parent in ancestors:
            # a class derived from a stand-in (the tests' subclass of the code's class, as they
            # hold it) is, on the other side, the class that stand-in stands for: never a base
            # of a class the runner makes (its metaclass, the other side's, would make it)
            original = self.code_classes.get(id(parent)) or self.stood_for.get(id(parent))
            if original is not None:
                self.stand_ins[id(cls)] = (original, cls)
                return original
        try:
            parents = [self.stand_in_of(parent) for parent in ancestors]
            stand_in = _stand_in_class(cls, kind, [p for p in parents if p is not kind and
                                                   id(p) in self.made_stand_ins],
                                       self._stand_in_new, self._stand_in_init)
        except:  # noqa: E722 - a name or a base type refuses: the stdlib class itself
            stand_in = kind
        self.stand_ins[id(cls)] = (stand_in, cls)
        if stand_in is not kind:
            self.made_stand_ins.add(id(stand_in))
            if record:
                self.stood_for[id(stand_in)] = cls
            elif not (type(_module(cls)) is str and str.__eq__(_module(cls), TESTS_MODULE)):
                self.code_classes[id(stand_in)] = cls
        return stand_in

    def _standing_in(self, exc: BaseException, kind, handed: tuple,
                     text: bool = False) -> BaseException:
        """``exc`` rebuilt for the other side: an exception of :func:`_stand_in_class` when its
        class is of the run (else of its own stdlib class), holding ``handed``; with ``text``
        (the code's exception, read now, on its turn), the text its own ``__str__`` gives."""
        cls = type(exc)
        if text and id(cls) not in self.made_stand_ins \
                and any(id(base) in self.stood_for for base in _MRO(cls)[1:]):
            # the code's subclass of a class of the tests, made despite refuse_new (its own
            # __new__ never calls the stand-in's): on the tests' side it would be an
            # exception of their class that their constructor never made
            name = type_name(exc)
            refused = RuntimeError(f"{name} dérive d'une classe d'exception des tests : une "
                                   "exception de cette classe ne traverse pas vers les tests "
                                   "(c'est compté comme une erreur)")
            self.failed.append(str(refused))
            return refused
        # The stand-in of a class of the tests, coming back from the code (raised by a
        # function of the tests the code called): the tests' own class again, made without
        # its constructor (nothing runs on this turn but the standard library's).
        original = self.stood_for.get(id(cls)) if text else None
        target = original if original is not None else kind if cls is kind \
            else self.stand_in_of(cls, kind, record=not text)
        new = None
        made_here = id(target) in self.made_stand_ins
        # the tests' own class: made without its constructor (on the code's turn)
        theirs = original is not None or (text and not made_here and target is not kind)
        makers = (_exactly, _made) if theirs else (_made, _exactly)
        if _is_group(target):  # a group is valid only made by its class
            makers = (_made,)
        for make in makers:
            try:  # a constructor may want other arguments (JSONDecodeError wants 3)
                new = make(target, handed)
                break
            except:  # noqa: E722
                pass
        if new is None:
            new = _rebuilt(kind, handed)
        convert = (lambda value, field: to_plain(value, f"l'attribut {field} de l'exception")) \
            if text else (lambda value, field: self.to_code(value, "un attribut d'une exception"))
        _copy_fields(exc, new, convert)
        if text:  # what the instance holds but could not hand over: hidden, not the class's
            own = BaseException.__dict__["__dict__"].__get__(exc)
            into = BaseException.__dict__["__dict__"].__get__(new)
            for key in list(own):
                if type(key) is str and not key.startswith("__") and key not in into:
                    into[key] = hidden(f"l'attribut {key} de l'exception", own[key], self.failed)
        if text and made_here and type(new) is target:
            for method, convert in (("__str__", str), ("__repr__", repr)):
                if _defines(cls, method):
                    try:  # the code's own method, on its turn
                        value = convert(exc)
                        value = str.__str__(value) if issubclass(type(value), str) else _RAISED
                    except:  # noqa: E722 - str(e) raises for the tests too
                        value = _RAISED
                    BaseException.__dict__["__dict__"].__get__(new)[_TEXTS[method]] = value
        return new

    # --- the tests' assertions ------------------------------------------------------------

    def _interrupted_assert(self, exc: BaseException):
        """The line of the tests' ``assert`` that ``exc`` interrupted, or None: a frame of the
        tests in its traceback stopped on a line of an ``assert`` (found from the program's
        source the first time; no untrusted code runs in the window)."""
        lines = self.assert_lines
        if lines is None:
            lines = self.assert_lines = _assert_lines("\n".join(self.program_lines))
        if not lines:
            return None
        tb = BaseException.__traceback__.__get__(exc)
        found = None
        open_window()  # the runner's own traceback objects: exact types
        try:
            while type(tb) is types.TracebackType:
                frame = tb.tb_frame
                if frame.f_code.co_filename == "<tests>" and tb.tb_lineno in lines:
                    found = tb.tb_lineno
                tb = tb.tb_next
        finally:
            close_window()
        return found


def _assert_lines(source: str) -> set:
    """The lines of the ``assert`` statements of ``source`` (the tests', already checked)."""
    import ast

    if not source:
        return set()
    open_window()  # ast.parse compiles: trusted text, no untrusted code runs
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    finally:
        close_window()
    return {line for node in ast.walk(tree) if type(node) is ast.Assert
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
