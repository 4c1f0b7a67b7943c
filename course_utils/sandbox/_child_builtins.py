"""The untrusted code's world: restricted builtins, read-only module views, captured output.

* Builtins: a fresh dict per namespace, without ``exec``, ``compile``, ``open``, ``globals``,
  ``vars``, ... ; ``getattr``/``setattr``/``delattr``/``hasattr`` refuse the names the static
  check refuses; ``eval`` re-runs the static check on its string (HumanEval/160's canonical
  solution needs ``eval``); ``print`` writes into a capped buffer that nothing ever parses.
* ``__import__`` returns a read-only *view* of an allowed module: only its public names, never
  a module object (no ``random._os``, no ``collections._sys``, no ``__loader__``, no
  ``from json import decoder`` fallback to ``sys.modules``). Writing to a view raises.
* ``str.format`` reached through an attribute is checked: a template that walks attributes
  (``"{0.__class__}"``) is refused at run time too.
"""

from __future__ import annotations

import builtins as _builtins
import operator as _operator
import sys
from types import ModuleType

from course_utils.sandbox import _child_os
from course_utils.sandbox._child_os import is_class
from course_utils.sandbox._child_audit import (
    close_window,
    distrust_code,
    _shown,
    open_window,
    strict_mode,
    trust_code,
    trust_generated,
)
from course_utils.sandbox._crossing import of_the_run
from course_utils.sandbox._generated import problem as generated_problem
from course_utils.sandbox._plain import type_name
from course_utils.sandbox._policy import ALLOWED_MODULES, HIDDEN_NAMES, ONLY_NAMES, TESTS_MODULE, USER_MODULE
from course_utils.sandbox._rewrite import (DELATTR_HELPER, FORMAT_HELPER, HELPERS, INIT_HELPER,
                                           SETATTR_HELPER, CodeRefused, compile_untrusted)
from course_utils.sandbox._shared_state import _HELD, held, register_held_objects, seal_shared_state
from course_utils.sandbox._static import attribute_refusal, format_refusal, name_refusal

_MODULES = sys.modules  # the real table: a running child's sys.modules is emptied (_child._serve)
_FUNCTION = type(lambda: None)
_real_getattr = _builtins.getattr
_real_setattr, _real_delattr = _builtins.setattr, _builtins.delattr
_real_eval = _builtins.eval
_MISSING = object()
_FORMAT_NAMES = ("format", "format_map")
_STR_FORMATS = (str.format, str.format_map)

REMOVED = frozenset(
    {
        "eval", "exec", "compile", "open", "input", "breakpoint", "help", "globals", "locals",
        "vars", "exit", "quit", "copyright", "credits", "license", "__import__", "__loader__",
        "__spec__", "__name__", "__doc__", "__package__", "getattr", "setattr", "delattr",
        "hasattr", "print",
    }
)


def exact_str(value, what: str = "le nom") -> str:
    """``value`` as an exact ``str`` (a subclass cannot run code through its methods)."""
    if type(value) is str:
        return value
    if issubclass(type(value), str):
        return str.__str__(value)
    raise TypeError(f"{what} doit être une chaîne de caractères")


# --- attribute access -----------------------------------------------------------------

def _refuse_attribute(name) -> str:
    name = exact_str(name, "le nom d'attribut")
    reason = attribute_refusal(name)
    if reason:
        raise AttributeError(reason)
    return name


def checked_format(obj, attr: str):
    """``obj.format`` / ``obj.format_map`` for untrusted code: templates are checked first.

    It reads those two attributes and no other: the code can get hold of this helper (a
    dictionary it hands ``eval`` receives the builtins), and a reader of any attribute would
    open ``__globals__`` of every function of the runner."""
    attr = exact_str(attr)
    if attr not in _FORMAT_NAMES:
        raise AttributeError(f"attribut interdit dans le bac à sable par ce moyen : {attr[:60]}")
    if is_class(obj) and issubclass(obj, str):
        method = _real_getattr(str, attr)

        def unbound(template, *args, **kwargs):
            if issubclass(type(template), str):
                template = _checked_template(template)
            return method(template, *args, **kwargs)

        return unbound
    if issubclass(type(obj), str) and any(_real_getattr(type(obj), attr) is unbound
                                          for unbound in _STR_FORMATS):
        return _real_getattr(_checked_template(obj), attr)  # str's own method, checked
    value = _real_getattr(obj, attr)  # a str subclass's own format: the code's function
    if any(value is unbound for unbound in _STR_FORMATS):  # e.g. super(S, S).format
        return checked_format(str, attr)
    owner = _real_getattr(value, "__self__", None)  # e.g. super(S, s).format
    if issubclass(type(owner), str) and attr in _FORMAT_NAMES:
        _checked_template(owner)
    return value


_super_self = super.__self__.__get__


def _initialised(target) -> None:
    """Refuse to run ``__init__`` again on ``target`` unless it is of the run: an object made
    before the run (a ``property`` of a module's class, an enum's value map, a ``Struct``) is
    shared with the tests, and its initialiser rewrites it in place."""
    kind = type(target)  # the real class: __class__ could lie
    if not of_the_run(target if is_class(target) else kind):
        raise TypeError(f"__init__ ne peut pas réinitialiser un objet de type {type_name(target)} "
                        "dans le bac à sable : créez-en un nouveau (seuls les objets des classes "
                        "de votre code se réinitialisent)")


def checked_init(obj):
    """``obj.__init__`` for untrusted code: only an object of a class of the run (the code's
    or the tests') may be initialised again. ``super().__init__(...)`` and
    ``Base.__init__(self, ...)`` in the code's own classes work as usual."""
    method = _real_getattr(obj, "__init__")
    owner = _real_getattr(method, "__self__", None)  # bound: the object it initialises
    if owner is not None and type(owner) is not ModuleType:
        _initialised(owner)
        if issubclass(type(obj), super):  # super().__init__: the object it is bound to
            _initialised(_super_self(obj))
        return method
    # Unbound, whatever ``obj`` was (Base.__init__, super(S, S).__init__): the object to
    # initialise is the first positional argument, and it must be there (``self=`` given by
    # name would be initialised unchecked).

    def unbound(*args, **kwargs):
        if not args:
            raise TypeError("__init__ : l'objet à initialiser doit être le premier argument")
        _initialised(args[0])
        return method(*args, **kwargs)

    return unbound


def _checked_template(template) -> str:
    template = str.__str__(template)
    reason = format_refusal(template)
    if reason:
        raise ValueError(reason)
    return template


def getattr(obj, name, default=_MISSING):  # noqa: A001 - the sandbox's own builtin
    name = _refuse_attribute(name)
    if name in _FORMAT_NAMES:
        return checked_format(obj, name)
    if name == "__init__":
        return checked_init(obj)
    if default is _MISSING:
        return _real_getattr(obj, name)
    return _real_getattr(obj, name, default)


def hasattr(obj, name):  # noqa: A001
    return _builtins.hasattr(obj, _refuse_attribute(name))


def setattr(obj, name, value):  # noqa: A001
    name = _written_name(name)
    _check_write(obj, name)
    _builtins.setattr(obj, name, value)


def delattr(obj, name):  # noqa: A001
    name = _written_name(name)
    _check_write(obj, name)
    _builtins.delattr(obj, name)


def _check_write(obj, name: str) -> None:
    """Refuse a write of the code to an object the allowed modules hold (``statistics.mean
    .__name__``, ``textwrap.fill.x``, the ``__doc__`` of a module's ``property``): shared
    with the tests, and neither an audit event nor a guard of its type sees such a write.
    What the code made itself (its functions, a ``functools.partial``, a ``property`` of its
    class) is its own."""
    if held(obj):
        raise AttributeError(f"refusé dans le bac à sable : {name} d'un objet de la bibliothèque "
                             f"standard ({type_name(obj)}, partagé avec les tests) ne change pas")




def _free_name(key) -> bool:
    """A name a namespace the code hands over may hold: an exact string (a name is also found
    under a str subclass's key, or any key that hashes and compares like it), and not one of
    the runner's helpers (__sandbox...), which the rewritten code calls by name."""
    return type(key) is str and not key.startswith("__sandbox")


_CHECKED_NAMES: set = set()  # attribute names the static rules accept (exact strings)


def _written_name(name) -> str:
    """``name`` as :func:`_refuse_attribute` accepts it, remembered (a pure function of the
    exact string; at most 10,000 names kept)."""
    if type(name) is str and name in _CHECKED_NAMES:
        return name
    name = _refuse_attribute(name)
    if len(_CHECKED_NAMES) < 10_000:
        _CHECKED_NAMES.add(name)
    return name


def _checked_setattr():
    """``obj.name = value`` of the untrusted code (arguments in the order Python evaluates
    them, see _rewrite): :func:`_check_write` first. ``name`` is a constant of the code, read
    by the static check; it can also call this helper itself (the builtins it hands ``eval``
    hold it), hence the same checks as ``setattr``, and exactly three positional arguments:
    what it uses is bound here, in a closure (defaults would be the caller's to replace: a
    set of its own skipped both checks). ``self.x = v`` costs a call and two set lookups."""
    names, held_ones, identity, real_set = _CHECKED_NAMES, _HELD, object.__hash__, _real_setattr

    def checked_setattr(value, obj, name, /) -> None:
        if type(name) is not str or name not in names:
            name = _written_name(name)
        if identity(obj) in held_ones:
            _check_write(obj, name)
        real_set(obj, name, value)

    checked_setattr.__doc__ = _checked_setattr.__doc__
    return checked_setattr


checked_setattr = _checked_setattr()


def checked_delattr(obj, name: str, /) -> None:
    """``del obj.name`` of the untrusted code: :func:`_check_write` first."""
    name = _written_name(name)
    _check_write(obj, name)
    _real_delattr(obj, name)


def _checked_names(*names) -> tuple:
    """The names, as the exact strings that were checked: those are what is used (a ``str``
    subclass would pass the check as one name and be looked up as another, through its
    ``__hash__`` and ``__eq__``)."""
    exact = tuple(exact_str(name, "le nom d'attribut") for name in names)
    for name in exact:
        for part in name.split("."):
            _refuse_attribute(part)
            if part in _FORMAT_NAMES or part == "__init__":
                raise AttributeError(f"attribut interdit dans le bac à sable par ce moyen : {part}")
    return exact


def attrgetter(attr, *attrs):
    """``operator.attrgetter`` that refuses the attributes the static check refuses.

    It returns a closure, not the ``operator.attrgetter`` object: ``type(...)`` of that object
    would be the unchecked constructor."""
    real = _operator.attrgetter(*_checked_names(attr, *attrs))

    def get(obj):
        return real(obj)

    return get


def methodcaller(name, /, *args, **kwargs):
    """``operator.methodcaller`` that refuses the methods the static check refuses (a closure,
    for the same reason as :func:`attrgetter`)."""
    real = _operator.methodcaller(*_checked_names(name), *args, **kwargs)

    def call(obj):
        return real(obj)

    return call


# --- stdlib functions that read attributes by name, or generate code ----------------------

def _untrusted_owner(obj) -> bool:
    """True when ``obj`` is a function, class or instance defined by the untrusted code."""
    function_module = type(_exports).__dict__["__module__"].__get__
    if type(obj) is type(_exports):
        module = function_module(obj)
    else:
        cls = obj if is_class(obj) else type(obj)
        module = type.__dict__["__dict__"].__get__(cls).get("__module__")
    return type(module) is str and module in (USER_MODULE, TESTS_MODULE)


def _wrapper_names(names, defaults) -> tuple:
    names = tuple(exact_str(name, "le nom d'attribut") for name in names)
    for name in names:
        if name not in defaults:
            reason = name_refusal(name)
            if reason:
                raise AttributeError(reason)
    return names


def _wrapped_into(wrapper, wrapped, assigned: tuple, updated: tuple):
    """The writes of ``update_wrapper``, for names already checked. A function of the code's,
    or of the tests', lends its attributes as they are; anything else (a class's namespace, a
    function of the runner's or of the standard library) lends copies of its dictionaries,
    and no ``__dict__`` at all."""
    own = type(wrapped) is _FUNCTION and _untrusted_owner(wrapped)
    for name in assigned:
        try:
            value = _real_getattr(wrapped, name)
        except AttributeError:
            continue
        if not own and type(value) is dict:
            value = dict(value)
        _builtins.setattr(wrapper, name, value)
    if own:
        for name in updated:
            _real_getattr(wrapper, name).update(_real_getattr(wrapped, name, {}))
    _builtins.setattr(wrapper, "__wrapped__", wrapped)
    return wrapper


def _functools_wrappers():
    import functools

    real_update = functools.update_wrapper
    assignments = frozenset(functools.WRAPPER_ASSIGNMENTS)  # names, docs, annotations
    updates = frozenset(functools.WRAPPER_UPDATES)  # __dict__, merged only (see below)

    def update_wrapper(wrapper, wrapped, assigned=functools.WRAPPER_ASSIGNMENTS,
                       updated=functools.WRAPPER_UPDATES):
        """``functools.update_wrapper`` written out: it copies no forbidden attribute
        (``__globals__``, and ``__dict__`` given as an assignment: the real one would hand
        over any object's namespace), only onto an object of the untrusted code, and a
        dictionary of an object that is not the code's as a copy."""
        assigned = _wrapper_names(assigned, assignments)
        updated = _wrapper_names(updated, updates)
        if not _untrusted_owner(wrapper):
            raise TypeError("functools.update_wrapper : l'enveloppe doit être définie par votre "
                            "code dans le bac à sable")
        return _wrapped_into(wrapper, wrapped, assigned, updated)

    def wraps(wrapped, assigned=functools.WRAPPER_ASSIGNMENTS, updated=functools.WRAPPER_UPDATES):
        assigned = _wrapper_names(assigned, assignments)
        updated = _wrapper_names(updated, updates)
        return functools.partial(update_wrapper, wrapped=wrapped, assigned=assigned,
                                 updated=updated)

    update_wrapper.__doc__ = real_update.__doc__
    return update_wrapper, wraps


def _stdlib_update_wrapper(real_update):
    """``update_wrapper`` as functools itself calls it (``lru_cache``, ``cache``,
    ``singledispatch``, the real ``wraps`` that typing and dataclasses use): on a wrapper the
    standard library has just made, but for any object the code hands it. The real one merges
    ``wrapped.__dict__`` into the wrapper: ``functools.lru_cache(enum.Enum)`` handed the code
    the namespace of a class shared with the tests, descriptors included. In strict mode a
    namespace is merged only from a function of the code or of the tests, other dictionaries
    arrive as copies, and only the names functools itself assigns are accepted."""
    import functools

    assignments = frozenset(functools.WRAPPER_ASSIGNMENTS)
    updates = frozenset(functools.WRAPPER_UPDATES)

    def update_wrapper(wrapper, wrapped, assigned=functools.WRAPPER_ASSIGNMENTS,
                       updated=functools.WRAPPER_UPDATES):
        if not strict_mode():
            return real_update(wrapper, wrapped, assigned, updated)
        assigned = _wrapper_names(assigned, assignments)
        updated = _wrapper_names(updated, updates)
        return _wrapped_into(wrapper, wrapped, assigned, updated)

    update_wrapper.__doc__ = real_update.__doc__
    update_wrapper.__wrapped_by_sandbox__ = True
    return update_wrapper


def _identifier(name, what: str) -> str:
    """An exact ``str`` that is a plain identifier (pasted into generated source)."""
    import keyword

    name = exact_str(name, what)
    if not name.isidentifier() or keyword.iskeyword(name) or attribute_refusal(name):
        raise ValueError(f"{what} invalide dans le bac à sable : {name[:60]!r}")
    return name


def guarded_namedtuple(real):
    """``collections.namedtuple`` on exact, validated arguments, its code compiled in a window."""
    import sys as _sys

    def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
        typename = _identifier(typename, "nom de namedtuple")
        if issubclass(type(field_names), str):
            field_names = str.__str__(field_names).replace(",", " ").split()
        names = [exact_str(name, "nom de champ") for name in field_names]
        rename = bool(rename is True)
        if not rename:
            names = [_identifier(name, "nom de champ") for name in names]
        defaults = None if defaults is None else tuple(defaults)
        if module is None:
            module = _sys._getframe(1).f_globals.get("__name__", USER_MODULE)
        module = exact_str(module, "module")
        open_window()  # nothing below runs untrusted code: every argument is exact
        try:
            return real(typename, names, rename=rename, defaults=defaults, module=module)
        finally:
            close_window()

    namedtuple.__doc__ = real.__doc__
    namedtuple.__wrapped_by_sandbox__ = True
    return namedtuple


def _checked_fields(cls) -> None:
    """Field names of a dataclass are pasted into source: exact identifiers only, read where
    dataclasses reads them (``cls.__dict__``, which a metaclass could answer otherwise than
    the class's real namespace, is refused unless it is that namespace)."""
    if not is_class(cls):
        raise TypeError("dataclass s'applique à une classe")
    namespace = type.__dict__["__dict__"].__get__(cls)
    mro = type.__dict__["__mro__"].__get__(cls)
    # dataclasses reads cls.__dict__, cls.__mro__ and getattr(base, "__dataclass_fields__"):
    # a metaclass (of the class or of a base) that answers such reads itself could answer
    # the check and dataclasses differently. Refused; then those reads run no code.
    for klass in mro:
        for meta in type.__dict__["__mro__"].__get__(type(klass)):
            if meta is type or meta is object:
                continue
            own = type.__dict__["__dict__"].__get__(meta)
            if any(name in own for name in _LYING_META):
                raise TypeError("dataclass : une métaclasse redéfinit la lecture des attributs "
                                "de ses classes : refusé dans le bac à sable")
    annotations = namespace.get("__annotations__", {})
    if type(annotations) is not dict:
        raise TypeError("dataclass : __annotations__ doit être un dictionnaire")
    for name in list(dict.keys(annotations)):
        _identifier(name, "nom de champ")
    for base in mro[1:]:  # the fields dataclasses inherits, read as it reads them
        inherited = _real_getattr(base, "__dataclass_fields__", None)
        if inherited is None:
            continue
        if type(inherited) is not dict or any(
                _field_name_problem(field, _FIELD_CLASS[0]) for field in dict.values(inherited)):
            raise TypeError("dataclass : champs hérités refusés dans le bac à sable (des Field "
                            "nommés d'identifiants simples seulement)")


_LYING_META = ("__getattr__", "__getattribute__", "__dict__", "__mro__", "__dataclass_fields__",
               "__dataclass_params__")


_FIELD_CLASS: list = [None]  # dataclasses.Field, once dataclasses is loaded


def _dataclass_wrappers(module):
    import sys as _sys

    real_dataclass = vars(module).get("__sandbox_real_dataclass__", module.dataclass)
    module.__sandbox_real_dataclass__ = real_dataclass  # idempotent: wrapped once
    real_make = module.make_dataclass
    code = real_make.__code__  # read here, in the worker: not in strict mode
    takes_module = "module" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    _FIELD_CLASS[0] = module.Field

    def dataclass(cls=None, /, **options):
        def wrap(cls):
            _checked_fields(cls)
            if options.get("init", True) is False and is_class(cls) \
                    and type.__dict__["__dict__"].__get__(cls).get("__doc__") is None:
                # dataclasses writes a missing docstring from inspect.signature(cls), which for
                # an initialiser of the interpreter's parses its text signature (compile:
                # refused): the class's name instead
                type.__setattr__(cls, "__doc__", str.__str__(type.__dict__["__name__"].__get__(cls)))
            return real_dataclass(cls, **options)

        return wrap if cls is None else wrap(cls)

    def make_dataclass(cls_name, fields, **options):
        cls_name = _identifier(cls_name, "nom de classe")
        checked = []
        for item in fields:
            if issubclass(type(item), str):
                checked.append(_identifier(item, "nom de champ"))
            else:
                item = tuple(item)
                checked.append((_identifier(item[0], "nom de champ"), *item[1:]))
        # The class is the code's, as if written with ``class``: types.new_class would name
        # its own module, and the audit hook refuses writes to a class of the standard library.
        namespace = options.get("namespace")
        caller = _sys._getframe(1).f_globals.get("__name__", USER_MODULE)
        options["namespace"] = {"__module__": caller, **(namespace or {})}
        if takes_module:  # Python 3.12+ names the module itself: the caller's frame is ours
            options.setdefault("module", caller)
        return real_make(cls_name, checked, **options)

    # make_dataclass decorates the class it builds with the module's own ``dataclass``: the
    # checks of the wrapper (inherited fields, metaclasses) must run there too.
    module.dataclass = dataclass
    dataclass.__doc__, make_dataclass.__doc__ = real_dataclass.__doc__, real_make.__doc__
    return dataclass, make_dataclass


def _field_name_problem(field, field_class, of_a_str: bool = False) -> str | None:
    """Why ``field`` cannot be read by name for the code (None: it can). ``of_a_str``: the
    dataclass derives from ``str``, whose ``format`` an unset field named so would read."""
    if type(field) is not field_class:  # an object posing as a Field, its name a property
        return f"{_shown(field)} au lieu d'un Field"
    name = field_class.name.__get__(field)
    if type(name) is not str or not _plain_identifier(name) or (of_a_str and name_refusal(name)):
        return _shown(name)
    return None


def _named_fields(fields_of, field_class):
    """``fields_of(obj)`` (``dataclasses``' own lookup of the Field objects), refusing what is
    not a real Field, or a Field whose name the static check would refuse: ``asdict`` and
    ``astuple`` read each field with the real ``getattr`` under its name (a Field's name is
    fixed once set, see :func:`_seal_field_names`)."""
    def checked(obj):
        found = fields_of(obj)
        of_a_str = issubclass(obj if is_class(obj) else type(obj), str)
        for field in found:
            problem = _field_name_problem(field, field_class, of_a_str)
            if problem is not None:
                raise TypeError(f"dataclass : champ refusé dans le bac à sable ({problem})")
        return found

    return checked


def _guarded_replace(real, module):
    """``dataclasses.replace`` written out over one reading of the fields: the real one reads
    ``__dataclass_fields__`` again (a property of the code's can answer differently after a
    check) and each field with the real ``getattr``; here each name is checked where it is
    used, and read with the sandbox's ``getattr``."""
    field_class, classvar, initvar = module.Field, module._FIELD_CLASSVAR, module._FIELD_INITVAR
    missing = module.MISSING

    def replace(obj, /, **changes):
        table = _real_getattr(type(obj), "__dataclass_fields__", None)
        if type(table) is not dict:
            raise TypeError("replace() should be called on dataclass instances")
        for field in list(table.values()):
            problem = _field_name_problem(field, field_class)
            if problem is not None:
                raise TypeError(f"dataclass : champ refusé dans le bac à sable ({problem})")
            name = field.name
            if field._field_type is classvar:
                continue
            if not field.init:
                if name in changes:
                    raise ValueError(f"field {name} is declared with init=False, it cannot be "
                                     "specified with replace()")
                continue
            if name not in changes:
                if field._field_type is initvar and field.default is missing:
                    raise ValueError(f"InitVar {name!r} must be specified with replace()")
                changes[name] = getattr(obj, name)  # the sandbox's getattr: checked again
        return type(obj)(**changes)

    replace.__doc__ = real.__doc__
    return replace


def _seal_field_names(field_class) -> None:
    """A ``dataclasses.Field`` is named once (``None`` until dataclasses names it), with a name
    the static check allows: renamed later, ``asdict`` or ``replace`` would read any attribute
    under it with the real ``getattr``."""
    member = field_class.name
    setter = field_class.__setattr__
    if _builtins.hasattr(setter, "__wrapped_by_sandbox__"):
        return

    def __setattr__(self, attr, value):
        if attr == "name" and strict_mode():
            try:
                current = member.__get__(self)
            except AttributeError:
                current = None
            if type(current) is str:
                raise AttributeError("champ de dataclass déjà nommé dans le bac à sable")
            if value is not None and (type(value) is not str or not _plain_identifier(value)):
                raise AttributeError(f"nom de champ refusé dans le bac à sable : {_shown(value)}")
        setter(self, attr, value)

    __setattr__.__wrapped_by_sandbox__ = True
    type.__setattr__(field_class, "__setattr__", __setattr__)


def _seal_user_string(user_string) -> None:
    """``UserString.format``/``format_map`` call ``self.data.format`` from the standard
    library, where the code's ``x.format`` is not rewritten: the template is checked first,
    as :func:`checked_format` checks a string's."""
    if _builtins.hasattr(user_string.format, "__wrapped_by_sandbox__"):
        return

    def format(self, /, *args, **kwds):  # noqa: A001 - UserString's own name
        return _checked_template(self.data).format(*args, **kwds)

    def format_map(self, mapping):
        return _checked_template(self.data).format_map(mapping)

    format.__wrapped_by_sandbox__ = format_map.__wrapped_by_sandbox__ = True
    type.__setattr__(user_string, "format", format)
    type.__setattr__(user_string, "format_map", format_map)


def _uncached_stdlib_functions() -> None:
    """Every function of a standard library module that an ``lru_cache`` keeps answers for,
    by argument: replaced by the function itself. Such a cache looks its keys up by equality
    and is shared by the code and the tests: a key of the code's whose ``__eq__`` runs on the
    tests' turn, or says it equals theirs, answers for them (``re``'s templates; from Python
    3.12 ``fractions``' hash of every Fraction). A cache without arguments is left alone, and
    typing's own caches are keyed by identity instead (:func:`_typing_caches_by_identity`)."""
    import functools

    cache_type = type(functools.lru_cache()(lambda: None))
    for name, module in list(sys.modules.items()):
        if type(module) is not ModuleType or name.startswith("course_utils") \
                or name in ("typing", "builtins", "sys", "__main__"):
            continue
        namespace = vars(module)
        for attr, value in list(namespace.items()):
            if type(value) is not cache_type:
                continue
            function = _builtins.getattr(value, "__wrapped__", None)
            code = _builtins.getattr(function, "__code__", None)
            if code is None or not (code.co_argcount or code.co_flags & 0x0C):  # *args, **kw
                continue
            function.cache_clear = lambda: None  # what purge functions call
            namespace[attr] = function


def _seal_user_copies(user_dict, user_list) -> None:
    """``UserDict.__copy__`` and ``UserList.__copy__`` make ``cls.__new__(cls)`` and write
    into its ``__dict__``: a ``__new__`` of the code's subclass returning an object shared
    with the tests (an enum member, ``typing.List``) had the code's attributes written into
    it, past its seal. Written out here: the new object must be exactly of the copied
    object's class (a class of the code's: no shared object is), and its own dictionary is
    written through the real descriptor."""
    if _builtins.hasattr(vars(user_dict).get("__copy__"), "__wrapped_by_sandbox__"):
        return

    def copier(copy_data):
        def __copy__(self):
            cls = type(self)
            inst = cls.__new__(cls)
            if type(inst) is not cls:
                raise TypeError(f"copie refusée dans le bac à sable : {type_name(cls)}.__new__ "
                                "ne rend pas un objet neuf de sa classe")
            source, target = _own_dict(self), _own_dict(inst)
            target.update(source)
            target["data"] = copy_data(source["data"])  # a copy, as the real one makes
            return inst

        __copy__.__wrapped_by_sandbox__ = True
        return __copy__

    type.__setattr__(user_dict, "__copy__", copier(lambda data: data.copy()))
    type.__setattr__(user_list, "__copy__", copier(lambda data: data[:]))


def _plain_identifier(name: str) -> bool:
    """An identifier the static check allows: what a field name may be (it is pasted into
    generated source)."""
    import keyword

    return name.isidentifier() and not keyword.iskeyword(name) and attribute_refusal(name) is None


# The builtins of the methods dataclasses generates: never the real ones (exec would put them
# in an empty globals dict, and every generated method would carry them in __globals__). The
# code's own builtins once a world is built (set_generated_builtins), else what the generated
# methods call.
_GENERATED_BUILTINS: list = [{name: _builtins.__dict__[name]
                              for name in ("type", "hash", "super", "object", "NotImplemented",
                                           "BaseException", "TypeError", "AttributeError")}]


def set_generated_builtins(table: dict) -> None:
    """The builtins the generated methods run with: the code's (``World``)."""
    _GENERATED_BUILTINS[0] = table


def _builtins_filled(namespace) -> None:
    """What CPython's ``eval`` and ``exec`` do first, before they look at their source or raise
    an audit event: a globals dict without ``__builtins__`` gets the builtins of the frame that
    called them. Called by the standard library (typing's ``ForwardRef._evaluate`` on a dict
    the code passes, an import's ``exec`` on a module's namespace), those are the real ones,
    left in the code's dict even when the source is then refused. In strict mode it gets the
    code's builtins instead."""
    if issubclass(type(namespace), dict) and not dict.__contains__(namespace, "__builtins__"):
        # A copy, as the code's own eval gives: the table itself is also the builtins of the
        # methods dataclasses generates for the tests (a hash of the code's in their __hash__)
        dict.__setitem__(namespace, "__builtins__", dict(_GENERATED_BUILTINS[0]))


def _stdlib_eval_exec():
    """``eval`` and ``exec`` as the modules of the standard library see them (a global of each
    module, in front of the interpreter's): :func:`_builtins_filled` in strict mode, then the
    real function. Outside strict mode (the worker, an import before the run) they are the
    real ones, called in the caller's frame."""
    real_eval, real_exec = _builtins.eval, _builtins.exec

    def _namespaces(globals, locals):
        if globals is None:
            if strict_mode():  # the frame's own globals: no stdlib module calls them so
                raise TypeError("eval/exec sans espace de noms refusé dans le bac à sable")
            frame = sys._getframe(2)
            return frame.f_globals, (frame.f_locals if locals is None else locals)
        if strict_mode():
            _builtins_filled(globals)
        return globals, locals

    def eval(source, globals=None, locals=None, /):
        globals, locals = _namespaces(globals, locals)
        return real_eval(source, globals, locals)

    def exec(source, globals=None, locals=None, /, **kwargs):
        globals, locals = _namespaces(globals, locals)
        return real_exec(source, globals, locals, **kwargs)

    eval.__doc__, exec.__doc__ = real_eval.__doc__, real_exec.__doc__
    eval.__wrapped_by_sandbox__ = exec.__wrapped_by_sandbox__ = True
    return eval, exec


_STDLIB_EVAL_EXEC = _stdlib_eval_exec()


def _shadow_eval_exec() -> None:
    """Every module of the standard library loaded so far finds :data:`_STDLIB_EVAL_EXEC`
    under the names ``eval`` and ``exec`` (a global it defines itself is left alone:
    dataclasses' is :func:`_generated_exec`). The sandbox's own modules keep the real ones."""
    for name, module in list(sys.modules.items()):
        if type(module) is not ModuleType or name.startswith("course_utils") \
                or name in ("builtins", "sys", "__main__"):
            continue
        namespace = vars(module)
        for attr, guard in zip(("eval", "exec"), _STDLIB_EVAL_EXEC):
            if attr not in namespace:
                namespace[attr] = guard


_REPLACED_CACHES: list = []  # the lru caches of re removed above (to check they stay unused)


class _FrozenWrites:
    """``object`` as the methods dataclasses generate for a frozen class reach it
    (``__dataclass_builtins_object__.__setattr__(self, name, value)``): the write goes past
    every guard of the object's class, so it is made only into an object of a class of the run
    (``B.__init__(re.IGNORECASE, 0)``, ``self=`` a typing form, rewrote what the tests read)."""

    __slots__ = ()

    @staticmethod
    def __setattr__(obj, name, value):
        if not of_the_run(type(obj)):
            raise TypeError(f"dataclass figée : {type_name(obj)} n'est pas une classe de votre "
                            "code, son objet ne s'initialise pas ainsi dans le bac à sable")
        object.__setattr__(obj, name, value)

    @staticmethod
    def __delattr__(obj, name):
        if not of_the_run(type(obj)):
            raise TypeError(f"dataclass figée : {type_name(obj)} n'est pas une classe de votre code")
        object.__delattr__(obj, name)


_COMPILED_REFS: list = []  # code objects of forward references: trusted, so kept alive


def _forward_ref_compile(source, filename, mode, flags=0, dont_inherit=False, optimize=-1,
                         **kwargs):
    """``compile`` as ``typing.ForwardRef`` calls it (``List['Node']``, ``Optional['Arbre']``):
    in strict mode the text is an expression of the code's, checked as its source is (a
    string would otherwise carry ``().__class__...`` past the static check), compiled in a
    window, and trusted for typing's later ``eval``."""
    if not strict_mode():
        return _builtins.compile(source, filename, mode, flags, dont_inherit, optimize, **kwargs)
    source = exact_str(source, "la référence de type")
    if mode != "eval" or flags or kwargs:
        raise SyntaxError("compile : seules des références de type sont compilées ici")
    open_window()  # parsing and compiling an exact string runs no untrusted code
    try:
        code = compile_untrusted(source, "<string>", "eval")
    except CodeRefused:
        code = None
    finally:
        close_window()
    if code is None:  # refused by the static check: compiled outside a window, the audit
        # hook refuses it and writes it down (an except of the code's cannot hide it)
        return _builtins.compile(source, filename, mode, flags, dont_inherit, optimize)
    _COMPILED_REFS.append(code)
    trust_code(code)
    return code


def _generated_exec(source, globals=None, locals=None, /):
    """``exec`` for ``dataclasses``' generated source: its shape is checked, then it is
    compiled and run in a window (defining the generator function runs nothing else), in a
    namespace of its own whose builtins are the code's (dataclasses passes the globals of the
    class's module, or an empty dict that exec would fill with the real builtins)."""
    reason = generated_problem(source)
    if reason is not None:
        raise TypeError(f"dataclass : code généré refusé dans le bac à sable ({reason}) ; "
                        "les noms de champs doivent être de simples identifiants")
    scope = {"__builtins__": _GENERATED_BUILTINS[0]}
    open_window()
    try:  # dont_inherit: this module's future flags would turn the annotations into strings
        code = _builtins.compile(source, "<dataclasses>", "exec", dont_inherit=True)
        _builtins.exec(code, scope, locals)
    finally:
        close_window()
    made = locals.get("__create_fn__") if type(locals) is dict else None
    if made is not None:  # dataclasses calls it next, with the values the text names
        locals["__create_fn__"] = _creating(made)


def _creating(made):
    """``__create_fn__`` as dataclasses calls it: a frozen class's methods write through
    ``object.__setattr__`` past any guard of the object's class, so they get
    :class:`_FrozenWrites` in its place; what it returns (a method, or from Python 3.13 all a
    class's in a tuple) is registered as generated (dataclasses reads their signatures)."""
    def create(*args, **values):
        if values.get("__dataclass_builtins_object__") is object:
            values["__dataclass_builtins_object__"] = _FrozenWrites
        made_now = made(*args, **values)
        for function in made_now if type(made_now) is tuple else (made_now,):
            trust_generated(function)
        return made_now

    return create


def _guarded_abc_register(real):
    """``abc``'s ``register`` refusing, in strict mode, a virtual subclass for an ABC the
    untrusted code did not define (``numbers.Integral.register(float)`` would make the tests'
    ``isinstance(2.5, numbers.Integral)`` true)."""
    def _abc_register(cls, subclass):
        if strict_mode():
            module = type.__dict__["__dict__"].__get__(cls).get("__module__")
            if not (type(module) is str and module in (USER_MODULE, TESTS_MODULE)):
                raise TypeError("register refusé dans le bac à sable : seules les classes "
                                "abstraites de votre code acceptent des sous-classes virtuelles")
        return real(cls, subclass)

    _abc_register.__wrapped_by_sandbox__ = True
    return _abc_register


def _fresh_only(make):
    """``make``, refusing to hand back an object that existed before the call.

    ``copy._reconstruct`` writes a reduction's state into whatever its callable returns
    (``__dict__.update``, ``__setstate__``, items appended): a callable returning a shared
    object (an enum member, an alias of ``typing``) would let a reduction of the code rewrite
    it, past every ``__setattr__``. An object just made is referenced by this frame alone."""
    getrefcount = sys.getrefcount

    def made(*args):
        obj = make(*args)
        if getrefcount(obj) > 2:  # this frame's name, and getrefcount's own argument
            raise TypeError("copie refusée dans le bac à sable : elle modifierait un objet qui "
                            "existait déjà")
        return obj

    return made


def _identity_key(value):
    """A cache key made of ids (tuples walked): no ``__eq__`` or ``__hash__`` of an argument
    is ever called, so no argument can pass for another."""
    if type(value) is tuple:
        return ("t",) + tuple(_identity_key(item) for item in value)
    return id(value)


def _identity_cache(function, size: int = 512):
    """``function`` cached by the identity of its arguments; what it was called with is kept
    alive with the result (an id is not reused while its object lives). Full: not cached."""
    table: dict = {}

    def cached(*args, **kwargs):
        if kwargs:
            return function(*args, **kwargs)
        key = _identity_key(args)
        found = table.get(key)
        if found is not None:
            return found[1]
        result = function(*args)
        if len(table) < size:
            table[key] = (args, result)
        return result

    cached.cache_clear = table.clear
    return cached


def _typing_caches_by_identity(typing) -> None:
    """``typing``'s caches of subscriptions (``List[int]``, ``Union[int, str]``) keyed by the
    identity of the arguments.

    They are ``lru_cache``s keyed by the arguments' equality: a class of the code whose
    metaclass says it equals ``int`` made ``Union[Z, str]`` the answer to the tests'
    ``Union[int, str]``, and emptying them after each call would free the code's objects (their
    finalisers) at the wrong time. Each cached function (``_tp_cache``'s ``inner``) gets an
    identity cache instead; the worker fills it with what its rehearsal subscribes, and every
    child inherits that."""
    caches = {id(clear.__self__): clear.__self__
              for clear in _builtins.getattr(typing, "_cleanups", ())
              if _builtins.hasattr(clear, "__self__")}
    for clear in _builtins.getattr(typing, "_cleanups", ()):
        clear()
    for value in list(vars(typing).values()):
        if isinstance(value, type):  # methods: _GenericAlias.__getitem__, Generic...
            items = list(vars(value).values())
        else:  # the special forms' own function: Literal, Union, Optional...
            items = [_builtins.getattr(value, "_getitem", None)]
        for item in items:
            function = _builtins.getattr(item, "__func__", item)
            for cell in _builtins.getattr(function, "__closure__", None) or ():
                try:
                    contents = cell.cell_contents
                except ValueError:  # an empty cell
                    continue
                if id(contents) in caches:
                    cell.cell_contents = _identity_cache(contents.__wrapped__)
    # Python 3.12+: inner() finds its cache in the module's _caches, keyed by the function
    by_function = vars(typing).get("_caches")
    if type(by_function) is dict:
        for function, cached in list(by_function.items()):
            if id(cached) in caches:
                by_function[function] = _identity_cache(cached.__wrapped__)


def _count_prefixes_aside(html_diff) -> None:
    """``difflib.HtmlDiff`` numbers its tables in a class attribute it rewrites at each table
    (``HtmlDiff._default_prefix += 1``), which the frozen class refuses: the count is kept in
    a closure instead (the anchors stay unique, the class stays immutable)."""
    counter = [html_diff._default_prefix]

    def _make_prefix(self):
        number = counter[0]
        counter[0] += 1
        self._prefix = [f"from{number}_", f"to{number}_"]

    _make_prefix.__wrapped_by_sandbox__ = True
    type.__setattr__(html_diff, "_make_prefix", _make_prefix)


_ALIAS_FIELDS = frozenset({"_name", "_inst", "_nparams", "_paramspec_tvars", "_typevar_types"})
# The special names typing's aliases set as they are made (3.10 to 3.13), once: no other (a
# __doc__ or __name__ set on List[int], which typing's cache hands to both sides, reached the
# tests).
_ALIAS_DUNDERS = frozenset({"__origin__", "__args__", "__parameters__", "__module__",
                            "__metadata__", "__slots__"})


def _seal_enum_convert(enum_module) -> None:
    """``EnumType._convert_`` refused in strict mode (the standard library uses it at import).

    It reads ``sys.modules[module].__dict__``, or the ``__dict__`` of any ``source`` object, with
    the real lookup, and sorts the values it keeps, which hands each of them to the ``__eq__``
    of a value of the code's: any object's namespace reached the code (the runner's functions'
    attributes, and through them its globals)."""
    meta = getattr(enum_module, "EnumType", None) or enum_module.EnumMeta  # EnumMeta: 3.10
    convert = vars(meta).get("_convert_")
    if convert is None or _builtins.hasattr(convert, "__wrapped_by_sandbox__"):
        return

    def _convert_(cls, *args, **kwargs):
        if strict_mode():
            raise TypeError("refusé dans le bac à sable : Enum._convert_ lit l'espace de noms "
                            "d'un module ou d'un objet")
        return convert(cls, *args, **kwargs)

    _convert_.__wrapped_by_sandbox__ = True
    type.__setattr__(meta, "_convert_", _convert_)


def _fresh_members(enum_module) -> None:
    """An enum's members are objects its ``__new__`` makes: in strict mode one that returns an
    object the allowed modules hold (``statistics.mean``) is refused, since enum writes the
    member's ``_value_``, ``_name_`` and ``__objclass__`` on it, for the tests too."""
    meta = getattr(enum_module, "EnumType", None) or enum_module.EnumMeta  # EnumMeta: 3.10
    found = vars(meta).get("_find_new_")
    method = _real_getattr(found, "__func__", None)  # a classmethod (3.11+) or a staticmethod (3.10)
    if method is None or _builtins.hasattr(method, "__wrapped_by_sandbox__"):
        return

    def fresh_only(new):
        def __new__(cls, *args, **kwargs):
            member = new(cls, *args, **kwargs)
            if strict_mode() and held(member):
                raise TypeError("refusé dans le bac à sable : le __new__ d'une énumération doit "
                                "créer ses membres (pas rendre un objet de la bibliothèque "
                                "standard, partagé avec les tests)")
            return member
        return __new__

    def _find_new_(*args):
        new, save_new, use_args = method(*args)
        return fresh_only(new), save_new, use_args

    _find_new_.__wrapped_by_sandbox__ = True
    type.__setattr__(meta, "_find_new_",
                     (classmethod if type(found) is classmethod else staticmethod)(_find_new_))


def _refusing_init(init, refuse_held):
    """abc's abstract class and static methods' ``__init__``, refusing a held function (its
    originals bound in a closure: a default argument would be the caller's to replace)."""
    def __init__(self, callable):  # noqa: A002 - abc's own parameter name
        refuse_held(callable)
        init(self, callable)

    __init__.__wrapped_by_sandbox__ = True
    return __init__


def _guard_abstract_marks(abc) -> None:
    """``abc.abstractmethod`` (and the abstract class and static methods) mark their function
    ``__isabstractmethod__``: in strict mode, not a function the allowed modules hold (the
    tests' ABCs would take statistics.mean for abstract)."""
    real = abc.abstractmethod
    if _builtins.hasattr(real, "__wrapped_by_sandbox__"):
        return

    def refuse_held(funcobj):
        if strict_mode() and held(funcobj):
            raise TypeError("refusé dans le bac à sable : une fonction de la bibliothèque "
                            "standard (partagée avec les tests) ne devient pas abstraite")

    def abstractmethod(funcobj):
        refuse_held(funcobj)
        return real(funcobj)

    abstractmethod.__doc__ = real.__doc__
    abstractmethod.__wrapped_by_sandbox__ = True
    abc.abstractmethod = abstractmethod
    for name in ("abstractclassmethod", "abstractstaticmethod"):
        cls = _real_getattr(abc, name, None)
        init = vars(cls).get("__init__") if cls is not None else None
        if init is None or _builtins.hasattr(init, "__wrapped_by_sandbox__"):
            continue

        type.__setattr__(cls, "__init__", _refusing_init(init, refuse_held))


def _seal_typing_internals(typing) -> None:
    """No class of the run subclasses typing's machinery, and ``get_type_hints`` takes no
    namespace the code may not read (called once, before the classes are frozen).

    ``_Final`` only asks for a ``_root`` keyword: ``class F(typing.ForwardRef, _root=True)``
    gave the code an ``_evaluate`` that ``get_type_hints`` calls with the ``__globals__`` of
    whatever function the object's ``__wrapped__`` names (the real builtins were in them);
    a subclass of ``_GenericAlias`` forwarded attribute reads to an origin of the code's.
    In strict mode, subclassing ``_Final`` is refused (typing makes its own classes at
    import), and ``get_type_hints`` of an object whose ``__wrapped__`` chain ends on a
    function that is not the code's or the tests' evaluates in an empty namespace."""
    final = _builtins.getattr(typing, "_Final", None)
    hook = vars(final).get("__init_subclass__") if final is not None else None
    if hook is not None and not _builtins.hasattr(
            _builtins.getattr(hook, "__func__", hook), "__wrapped_by_sandbox__"):
        original = hook.__func__

        def __init_subclass__(cls, /, *args, **kwds):
            if strict_mode():
                raise TypeError("refusé dans le bac à sable : les classes internes de typing "
                                "ne se dérivent pas")
            return original(cls, *args, **kwds)

        __init_subclass__.__wrapped_by_sandbox__ = True
        type.__setattr__(final, "__init_subclass__", classmethod(__init_subclass__))
    real_hints = _builtins.getattr(typing, "get_type_hints", None)
    if real_hints is None or _builtins.hasattr(real_hints, "__wrapped_by_sandbox__"):
        return

    def get_type_hints(obj, globalns=None, localns=None, include_extras=False):
        if strict_mode():
            # typing would find the namespaces itself: a function's __globals__ at the end of
            # any __wrapped__ chain, vars() of each class in a __mro__ a metaclass can make
            # up, and hand them to an object posing as a ForwardRef (through __class__). In
            # strict mode a string annotation cannot be evaluated anyway (compiling it is
            # refused): the namespaces are the caller's own, or empty.
            globalns = {} if globalns is None else globalns
            localns = {} if localns is None else localns
            # Copies: a ForwardRef evaluated in one namespace for both keeps its value (one in
            # an alias typing's cache shares, List['X'], would hand the code's value to the
            # tests), and a string annotation, compiled with the rewrite, calls the runner's
            # helpers by name (__sandbox_format__): no namespace of the code answers for them.
            globalns, localns = _without_helpers(globalns), _without_helpers(localns)
        return real_hints(obj, globalns, localns, include_extras)

    get_type_hints.__wrapped_by_sandbox__ = True
    get_type_hints.__doc__ = real_hints.__doc__
    typing.get_type_hints = get_type_hints


def _without_helpers(namespace) -> dict:
    """A new dict of ``namespace``'s items under free names only (:func:`_free_name`)."""
    return {key: value for key, value in dict(namespace).items() if _free_name(key)}


def _seal_typing_aliases(typing) -> None:
    """A ``typing`` alias (``List[int]``, ``Literal['x']``...) keeps the fields it was made
    with: in strict mode a field it has cannot be set again or deleted, and nothing else is
    added to it.

    ``_GenericAlias.__reduce__`` looks its ``_name`` up in typing's globals: an alias renamed
    ``__builtins__`` copied to the real builtins. And the aliases a cache hands to both sides
    (``List[int]``) would carry a change of the code to the tests."""
    base = _builtins.getattr(typing, "_BaseGenericAlias", None)
    if base is None or _builtins.hasattr(base.__setattr__, "__wrapped_by_sandbox__"):
        return
    setter, deleter = base.__setattr__, base.__delattr__
    instance_dict = object.__getattribute__

    def fixed(self, attr) -> bool:
        # A field is set once (by typing, as it makes the alias); no other attribute is ever
        # added (one shadowing a method, copy_with, __mro_entries__, would run the code's
        # function where the tests use an alias the cache shares with them).
        if not strict_mode():
            return False
        if type(attr) is not str:
            return True
        field = attr in _ALIAS_FIELDS or attr in _ALIAS_DUNDERS
        return not field or attr in instance_dict(self, "__dict__")

    public = frozenset(_builtins.getattr(typing, "__all__", ()))

    def __setattr__(self, attr, value):
        if fixed(self, attr):
            raise AttributeError(f"alias de typing en lecture seule dans le bac à sable : {attr}")
        if attr == "_name" and value is not None and strict_mode() \
                and not (type(value) is str and value in public):
            # __reduce__ looks the name up in typing's globals: an alias the code makes, named
            # __loader__, handed copy (and a memo the code gave it) typing's module loader.
            raise AttributeError(f"nom d'alias de typing refusé dans le bac à sable : "
                                 f"{_shown(value)}")
        setter(self, attr, value)

    def __delattr__(self, attr):
        if fixed(self, attr):
            raise AttributeError(f"alias de typing en lecture seule dans le bac à sable : {attr}")
        deleter(self, attr)

    __setattr__.__wrapped_by_sandbox__ = True
    type.__setattr__(base, "__setattr__", __setattr__)
    type.__setattr__(base, "__delattr__", __delattr__)


def _a_namespace(value) -> bool:
    """True for a module, a module's globals or the builtins: what a reduction must not carry
    (an item looked up in one is any name of that module)."""
    if type(value) is ModuleType:
        return True
    if type(value) is not dict:
        return False
    if value is _builtins.__dict__:
        return True
    return any(value is _builtins.getattr(module, "__dict__", None)
               for module in list(_MODULES.values()))


def _seal_abcs(meta) -> None:
    """The ABCs of the standard library answer without the classes of the run (called once,
    in the worker, before the classes are frozen).

    ``issubclass(float, numbers.Integral)`` asks every subclass of ``Integral`` in turn
    (``_abc``'s C code calls ``__subclasses__``): a subclass of the code's (any route makes
    one: a class statement, ``type(...)``, ``ABCMeta(...)``) would answer yes through its
    ``__subclasshook__``, its own registry or its metaclass, and the ABC would cache it, for
    the tests too. In strict mode a stdlib ABC's ``__subclasses__`` leaves the classes of the
    run out: a class of the code is still an ``Integral`` by its own bases, but speaks for no
    other. Its registry cannot be cleared (``_abc_registry_clear`` would forget ``int``)."""
    from course_utils.sandbox._crossing import of_the_run

    import _abc

    subclasses = type.__dict__["__subclasses__"]
    registry_clear = meta._abc_registry_clear
    subclass_check = meta.__dict__["__subclasscheck__"]
    reset_caches = _abc._reset_caches

    def __subclasscheck__(cls, subclass):
        # A stdlib ABC caches the classes it was asked about in sets of weak references,
        # compared by their classes' ``==``: a class of the run left there (its metaclass
        # choosing its hash) would be asked ``==`` by the tests' own checks, on their turn
        # (``random.sample`` asks Sequence, ``Counter`` Mapping). Its answer is not kept.
        try:
            return subclass_check(cls, subclass)
        finally:
            if strict_mode() and is_class(subclass) and of_the_run(subclass) \
                    and not of_the_run(cls):
                reset_caches(cls)

    def __subclasses__(cls):
        found = subclasses(cls)
        if strict_mode() and not of_the_run(cls):
            return [sub for sub in found if not of_the_run(sub)]
        return found

    def _abc_registry_clear(cls):
        if strict_mode() and not of_the_run(cls):
            raise TypeError("refusé dans le bac à sable : le registre d'une classe abstraite de "
                            "la bibliothèque standard ne se vide pas")
        return registry_clear(cls)

    type.__setattr__(meta, "__subclasses__", __subclasses__)
    type.__setattr__(meta, "_abc_registry_clear", _abc_registry_clear)
    type.__setattr__(meta, "__subclasscheck__", __subclasscheck__)


copy_deepcopy: list = [None]  # copy.deepcopy, set where _guarded_reconstruct is installed
_GETSET = type(type.__dict__["__dict__"])
_WRITE_HOOKS = ("__setattr__", "__delattr__", "__getattr__", "__getattribute__")


def _class_attribute(obj, name: str):
    """``obj.name`` as its class defines it, bound to ``obj`` itself: read in the dicts of its
    class's MRO, never through ``obj`` (a super() or a bound method answers for another object,
    an alias forwards to its origin, an instance attribute could name anything). None if
    absent; TypeError if it is not a function or a descriptor."""
    for base in type.__dict__["__mro__"].__get__(type(obj)):
        found = type.__dict__["__dict__"].__get__(base).get(name, _MISSING)
        if found is _MISSING:
            continue
        bind = _real_getattr(type(found), "__get__", None)
        if bind is None:
            raise TypeError(f"copie refusée dans le bac à sable : {name} n'est pas une méthode")
        return bind(found, obj, type(obj))
    return None


def _unhooked(obj) -> None:
    """Raise unless no class of the standard library in ``obj``'s MRO hooks attribute access:
    copy writes state past ``__setattr__`` (a seal, typing's aliases, enum members), and a
    class that forwards attribute reads answers for another object."""
    for base in type.__dict__["__mro__"].__get__(type(obj)):
        if base is object or of_the_run(base):
            continue
        generic = _child_os.generic_attribute_access(base)
        if generic is None:  # not CPython: by the names its class defines
            names = type.__dict__["__dict__"].__get__(base)
            generic = not any(hook in names for hook in _WRITE_HOOKS)
        if not generic:
            raise TypeError("copie refusée dans le bac à sable : elle écrirait dans un objet "
                            f"de type {type_name(obj)} sans passer par ses garde-fous")


def _own_dict(obj) -> dict:
    """``obj``'s own attribute dict (see :func:`_unhooked`), through the real ``__dict__``
    descriptor of its class."""
    _unhooked(obj)
    for base in type.__dict__["__mro__"].__get__(type(obj)):
        descriptor = type.__dict__["__dict__"].__get__(base).get("__dict__")
        if descriptor is not None:
            if type(descriptor) is not _GETSET:
                raise TypeError("copie refusée dans le bac à sable : __dict__ redéfini")
            return descriptor.__get__(obj, type(obj))
    raise TypeError(f"copie refusée dans le bac à sable : un objet de type {type_name(obj)} "
                    "n'a pas d'attributs")


def _written_as_copy_would(y, memo, state, listiter, dictiter, deepcopy) -> None:
    """The end of ``copy._reconstruct`` (CPython 3.11), each write made into ``y`` itself:
    ``__setstate__`` and ``append`` read from its class (:func:`_class_attribute`), the state
    dict into its own dict (:func:`_own_dict`), items by ``y[key] = value``."""
    deep = memo is not None
    if state is not None:
        if deep:
            state = deepcopy(state, memo)
        setstate = _class_attribute(y, "__setstate__")
        if setstate is not None:
            setstate(state)
        else:
            slotstate = None
            if issubclass(type(state), tuple) and len(state) == 2:  # (dict, slots), as copy
                state, slotstate = tuple.__getitem__(state, 0), tuple.__getitem__(state, 1)
            if state is not None:
                dict.update(_own_dict(y), state)
            if slotstate is not None:  # written by name with setattr: names the code chose
                # the pairs read once, checked and written as read (a setter run by one write
                # could change the dict before the next)
                pairs = list(dict.items(slotstate)) if type(slotstate) is dict else None
                if pairs is None or any(type(key) is not str or name_refusal(key)
                                        for key, _value in pairs):
                    raise TypeError("copie refusée dans le bac à sable : elle écrirait un "
                                    "attribut interdit")
                _unhooked(y)
                for key, value in pairs:
                    _builtins.setattr(y, key, value)
    if listiter is not None:
        append = _class_attribute(y, "append")
        if append is None:
            raise TypeError(f"copie refusée dans le bac à sable : {type_name(y)} sans append")
        for item in listiter:
            append(deepcopy(item, memo) if deep else item)
    if dictiter is not None:
        for key, value in dictiter:
            if deep:
                key, value = deepcopy(key, memo), deepcopy(value, memo)
            y[key] = value


def _guarded_reconstruct(real):
    """``copy._reconstruct`` that refuses what a reduction would read or write by name.

    ``copy.copy``/``deepcopy`` call whatever an object's reduction returns, and C reductions
    return the real ``getattr``: a bound method reduces to ``getattr(self, its function's
    __name__)``, a name the code chooses (``f.__name__ = "__globals__"``). The slot state of a
    reduction is written back with ``setattr`` under names it chooses too. Both are checked
    like the code's own attribute accesses. And state is written only into an object the
    reduction's callable has just made (:func:`_fresh_only`).
    """
    def _reconstruct(x, memo, func, args, state=None, listiter=None, dictiter=None, **kwargs):
        if type(args) is tuple and any(_a_namespace(arg) for arg in args):
            raise TypeError("copie refusée dans le bac à sable : elle lirait un nom dans "
                            "l'espace de noms d'un module")
        if func is _builtins.getattr:
            name = args[1] if type(args) is tuple and len(args) == 2 else None
            if type(name) is not str or name_refusal(name):
                raise TypeError("copie refusée dans le bac à sable : elle lirait l'attribut "
                                f"{_shown(name)}")
        if not strict_mode() or (state is None and listiter is None and dictiter is None):
            return real(x, memo, func, args, state, listiter, dictiter, **kwargs)
        y = real(x, memo, _fresh_only(func), args, **kwargs)  # made, and in the memo; no write
        _written_as_copy_would(y, memo, state, listiter, dictiter,
                               kwargs.get("deepcopy") or copy_deepcopy[0])
        return y

    _reconstruct.__wrapped_by_sandbox__ = True
    return _reconstruct


def harden_modules(modules: dict) -> None:
    """Patch the real modules, in the worker or a child, before any untrusted code runs.

    ``collections.namedtuple`` (also used by ``typing.NamedTuple``) validates its arguments and
    compiles in a window; ``dataclasses``' code generator (``_create_fn``) compiles in a window
    and registers what it generates. Never called in the caller's process.
    """
    _child_os.seal_mapping_proxy()  # a read-only view hands its dictionary to no operand
    collections = modules.get("collections") or sys.modules.get("collections")
    if collections is not None and not _builtins.hasattr(collections.namedtuple, "__wrapped_by_sandbox__"):
        collections.namedtuple = guarded_namedtuple(collections.namedtuple)
    if collections is not None:
        _seal_user_string(collections.UserString)
        _seal_user_copies(collections.UserDict, collections.UserList)
    abc = modules.get("abc") or sys.modules.get("abc")
    if abc is not None and _builtins.hasattr(abc, "_abc_register") \
            and not _builtins.hasattr(abc._abc_register, "__wrapped_by_sandbox__"):
        abc._abc_register = _guarded_abc_register(abc._abc_register)
        _seal_abcs(abc.ABCMeta)
    copy = modules.get("copy") or sys.modules.get("copy")
    if copy is not None and not _builtins.hasattr(copy._reconstruct, "__wrapped_by_sandbox__"):
        copy_deepcopy[0] = copy.deepcopy
        copy._reconstruct = _guarded_reconstruct(copy._reconstruct)
    dataclasses = modules.get("dataclasses")
    if dataclasses is not None and vars(dataclasses).get("exec") is not _generated_exec:
        _seal_field_names(dataclasses.Field)
        checked_fields = _named_fields(dataclasses.fields, dataclasses.Field)
        checked_fields.__wrapped_by_sandbox__ = True
        checked_fields.__doc__ = dataclasses.fields.__doc__
        dataclasses.fields = checked_fields  # asdict and astuple call it for every level
        if callable(vars(dataclasses).get("_replace")):
            # Python 3.13: every dataclass's __replace__ (copy.replace) is this function, which
            # reads fields by name with the real getattr: the checked one in its place
            dataclasses._replace = _guarded_replace(dataclasses.replace, dataclasses)
        # The text dataclasses executes holds names the untrusted code chose (its fields, and
        # the Field objects of its base classes, which it can rename at any time): it runs in
        # a window only once its shape is checked (_generated), whatever the names were.
        dataclasses.exec = _generated_exec
    regex = modules.get("re") or sys.modules.get("re")
    # re caches compiled replacement templates under the (template, pattern) given: a template
    # of the code that says it equals any other would be handed to the tests. No cache: a
    # template is parsed at each use (microseconds), and forget_caches has one dictionary less
    # to empty after every call. (_compile_repl up to Python 3.11, _compile_template after.)
    for name in ("_compile_repl", "_compile_template"):
        cached = vars(regex).get(name) if regex is not None else None
        if cached is not None and _builtins.hasattr(cached, "cache_info"):
            uncached = cached.__wrapped__
            uncached.cache_clear = lambda: None  # re.purge() calls it
            _builtins.setattr(regex, name, uncached)
            _REPLACED_CACHES.append(cached)
    if regex is not None and _REPLACED_CACHES:
        # From Python 3.12 the C module _sre keeps the _compile_template it finds first: one
        # template compiled now makes it this one; if it kept the cached one (a template was
        # compiled before this hardening), that cache still answers: refuse to go on.
        used = [cache.cache_info().misses for cache in _REPLACED_CACHES]
        regex.sub("(x)", r"\1", "x")
        if [cache.cache_info().misses for cache in _REPLACED_CACHES] != used:
            raise RuntimeError("re : le cache des modèles de remplacement est encore utilisé")
    _shadow_eval_exec()
    _uncached_stdlib_functions()
    functools = sys.modules.get("functools")
    if functools is not None and not _builtins.hasattr(functools.update_wrapper,
                                                       "__wrapped_by_sandbox__"):
        # functools' own callers find the checked one among its globals (lru_cache,
        # singledispatch, wraps); the code's view exports the stricter _functools_wrappers.
        functools.update_wrapper = _stdlib_update_wrapper(functools.update_wrapper)
    typing = modules.get("typing") or sys.modules.get("typing")
    if typing is not None and _builtins.getattr(typing, "_cleanups", None):
        _typing_caches_by_identity(typing)
        typing._cleanups.clear()  # their lru caches are no longer used
    if typing is not None and abc is not None and "_abc_subclasscheck" in vars(typing):
        # Python 3.13's protocols call the ABCMeta.__subclasscheck__ typing kept at import,
        # not the one _seal_abcs installed: a class of the code stayed in a protocol's cache
        typing._abc_subclasscheck = type.__dict__["__dict__"].__get__(abc.ABCMeta)["__subclasscheck__"]
    if typing is not None:
        _seal_typing_aliases(typing)
        _seal_typing_internals(typing)
        typing.compile = _forward_ref_compile  # ForwardRef's own, found among its globals
        # typing's own callers (no_type_check_decorator) mark only what the run defines, too
        for attr in ("no_type_check", "final"):
            guarded = _WRAPPED.get(("typing", attr))
            if guarded is not None and vars(typing).get(attr) is not guarded:
                _builtins.setattr(typing, attr, guarded)
    enum_module = modules.get("enum") or sys.modules.get("enum")
    if enum_module is not None:
        _seal_enum_convert(enum_module)
        _fresh_members(enum_module)
    abc_module = modules.get("abc") or sys.modules.get("abc")
    if abc_module is not None:
        _guard_abstract_marks(abc_module)
    difflib = modules.get("difflib")
    if difflib is not None and not _builtins.hasattr(
            vars(difflib.HtmlDiff).get("_make_prefix"), "__wrapped_by_sandbox__"):
        _count_prefixes_aside(difflib.HtmlDiff)
    _build_lazy_tables(modules)
    # What their classes hold, their enum members, what they export and their own markers:
    # read-only.
    seal_shared_state({name: [*_exports(name, module).values(), *_own_markers(name, module)]
                       for name, module in modules.items()})
    # every module loaded, not only the allowed ones: their objects reach the code through
    # the allowed modules' (collections.abc's classes are _collections_abc's), and the
    # runner's own functions are held too
    register_held_objects(dict(sys.modules))


# Module globals that their module itself writes after its import (random.seed() sets
# _inst.gauss_next): not sealed.
_WRITTEN_BY_THEIR_MODULE = frozenset({("random", "_inst")})


def _own_markers(name: str, module) -> list:
    """The objects of a module's own classes held in its globals, private names included:
    dataclasses' ``_FIELD`` (what every Field's ``_field_type`` holds, and its ``repr``
    shows), enum's ``_auto_null`` (every ``auto()``'s value until it is set). The code
    reaches them through public attributes, and the tests read them the same way."""
    from course_utils.sandbox._child_os import _HEAPTYPE

    found = []
    for attr, value in list(vars(module).items()):
        kind = type(value)
        if (name, attr) in _WRITTEN_BY_THEIR_MODULE or is_class(value) \
                or not kind.__flags__ & _HEAPTYPE:
            continue
        owner = type.__dict__["__module__"].__get__(kind)
        if type(owner) is str and owner == name:
            found.append(value)
    return found


def _build_lazy_tables(modules: dict) -> None:
    """Build now the tables some functions build at their first call, and keep in their
    module for both sides: ``base64.b85decode`` publishes its table before filling it, so a
    ``MemoryError`` the code provoked halfway left an empty one for the tests; from Python
    3.13 ``random.seed`` of a string imports ``_sha2`` once (refused after the lock-down)."""
    base64 = modules.get("base64")
    if base64 is not None:
        for function in ("b85decode", "b85encode", "a85decode", "a85encode", "b32decode",
                         "b32encode", "b32hexdecode", "b32hexencode"):
            if _builtins.hasattr(base64, function):
                _builtins.getattr(base64, function)(b"")
    random = modules.get("random") or sys.modules.get("random")
    if random is not None:
        random.Random().seed("")


def _special_exports(name: str, module) -> dict:
    if name == "functools":
        update_wrapper, wraps = _functools_wrappers()
        return {"update_wrapper": update_wrapper, "wraps": wraps}
    if name == "dataclasses":
        dataclass, make_dataclass = _dataclass_wrappers(module)
        return {"dataclass": dataclass, "make_dataclass": make_dataclass,
                "replace": _guarded_replace(module.replace, module)}
    if name == "decimal":
        # The C module makes every new Context from the real DefaultContext: the code gets a
        # copy, so that it cannot change the defaults of the tests' contexts.
        import copy as _copy

        return {"DefaultContext": _copy.deepcopy(module.DefaultContext)}
    if name == "collections":
        namedtuple = module.namedtuple
        if not _builtins.hasattr(namedtuple, "__wrapped_by_sandbox__"):
            namedtuple = guarded_namedtuple(namedtuple)
        return {"namedtuple": namedtuple}
    return {}


def _exact_format(fmt):
    """A struct format as an exact ``str`` or ``bytes`` (read through the base type, no method
    of a subclass called): struct caches what it compiles under the format given, and a format
    of the code that says it equals another would hand that one's Struct to the tests."""
    kind = type(fmt)
    if kind is str or kind is bytes:
        return fmt
    if issubclass(kind, str):
        return str.__str__(fmt)
    if issubclass(kind, bytes):
        return bytes.__getitem__(fmt, slice(None))
    return fmt  # not a format: struct says so


def _struct_function(real):
    def exact(fmt, *args):
        return real(_exact_format(fmt), *args)

    exact.__name__ = exact.__qualname__ = real.__name__
    exact.__doc__ = real.__doc__
    return exact


_WRAPPED = {("operator", "attrgetter"): attrgetter, ("operator", "methodcaller"): methodcaller}
for _name in ("pack", "unpack", "calcsize", "iter_unpack", "pack_into", "unpack_from"):
    _WRAPPED[("struct", _name)] = _struct_function(_builtins.getattr(__import__("struct"), _name))


def _own_only(decorator):
    """A typing decorator that only marks (``__no_type_check__``, ``__final__``...) what the
    run defines: a function of the standard library is shared with the tests, and their
    get_type_hints would read the mark. Anything else is returned as it is."""
    def guarded(arg):
        if not strict_mode() or _untrusted_owner(arg):
            return decorator(arg)
        return arg

    guarded.__doc__ = decorator.__doc__
    return guarded


def _no_type_check(arg):
    """``typing.no_type_check`` for the untrusted code: the real one marks every attribute of
    a class whose ``__qualname__`` and ``__module__`` (ordinary lookups, which a metaclass
    answers) match the class's: ``typing.IO.read``, held by a class posing as ``typing.IO``,
    was marked for the tests too. Here a class of the run is marked with the functions of its
    own namespace that the run defined (by their exact module) and its nested classes of the
    run; anything else goes to :func:`_own_only`'s decorator."""
    if not (strict_mode() and is_class(arg) and of_the_run(arg)):
        if strict_mode() and not is_class(arg) and type(arg) is not _FUNCTION:
            # an object, not a class: the real one walks it if isinstance(arg, type), which
            # a __class__ property answers, through the names its dir() and attributes give
            return arg
        return _NO_TYPE_CHECK[0](arg)
    pending, seen = [arg], set()
    while pending:
        cls = pending.pop()
        if id(cls) in seen or len(seen) > 1000:
            continue
        seen.add(id(cls))
        for value in list(type.__dict__["__dict__"].__get__(cls).values()):
            function = value.__func__ if type(value) in (staticmethod, classmethod) else value
            if type(function) is _FUNCTION:
                module = _FUNCTION.__dict__["__module__"].__get__(function)
                if type(module) is str and module in (USER_MODULE, TESTS_MODULE):
                    function.__no_type_check__ = True
            elif is_class(value) and of_the_run(value):
                pending.append(value)
        type.__setattr__(cls, "__no_type_check__", True)
    return arg


_NO_TYPE_CHECK: list = []


def _typing_decorators():
    typing = __import__("typing")
    _NO_TYPE_CHECK.append(_own_only(typing.no_type_check))
    _no_type_check.__doc__ = typing.no_type_check.__doc__
    _WRAPPED[("typing", "no_type_check")] = _no_type_check
    _WRAPPED[("typing", "final")] = _own_only(typing.final)
    real_transform = getattr(typing, "dataclass_transform", None)  # Python 3.11+
    if real_transform is None:
        return

    def dataclass_transform(**kwargs):
        return _own_only(real_transform(**kwargs))

    dataclass_transform.__doc__ = real_transform.__doc__
    _WRAPPED[("typing", "dataclass_transform")] = dataclass_transform


def _overloads_of(side: str):
    """``typing``'s ``overload``, ``get_overloads`` and ``clear_overloads`` for one side of
    the run (``side``: its module name): its registry is shared, keyed by the names a function
    gives of itself, and ``get_overloads`` hands back the objects registered, uncopied (the
    code registered an object posing as ``statistics.mean``, whose method the tests then
    called). Each side registers only its own exact functions and reads only those back; the
    code cannot clear the tests' entries. Empty before Python 3.11 (no registry)."""
    typing = __import__("typing")
    real_overload = _builtins.getattr(typing, "overload")
    real_get = _builtins.getattr(typing, "get_overloads", None)
    real_clear = _builtins.getattr(typing, "clear_overloads", None)
    if real_get is None or real_clear is None:
        return {}
    module_of = _FUNCTION.__dict__["__module__"].__get__

    def own(value) -> bool:
        if type(value) is staticmethod or type(value) is classmethod:
            value = value.__func__  # what overload keys it by, as typing does
        if type(value) is not _FUNCTION:
            return False
        module = module_of(value)
        return type(module) is str and module == side

    def overload(func):
        if own(func) or not strict_mode():
            return real_overload(func)
        return _builtins.getattr(typing, "_overload_dummy")  # what overload returns

    def get_overloads(func):
        return [found for found in real_get(func) if own(found)]

    def clear_overloads():
        if side == USER_MODULE and strict_mode():
            raise TypeError("refusé dans le bac à sable : le registre de typing.overload est "
                            "partagé avec les tests")
        real_clear()

    for wrapper, real in ((overload, real_overload), (get_overloads, real_get),
                          (clear_overloads, real_clear)):
        wrapper.__doc__ = real.__doc__
    return {"overload": overload, "get_overloads": get_overloads,
            "clear_overloads": clear_overloads}


_typing_decorators()
_TESTS_OVERLOADS = _overloads_of(TESTS_MODULE)
for _name, _value in _overloads_of(USER_MODULE).items():
    _WRAPPED[("typing", _name)] = _value


# --- modules --------------------------------------------------------------------------

# The interpreter's own functions that the code's builtins replace or remove: a module that
# exported one as a value would hand it over as it is.
_REAL_DANGERS = tuple(_builtins.__dict__[name] for name in (
    "getattr", "setattr", "delattr", "hasattr", "eval", "exec", "compile", "open", "__import__",
    "vars", "globals", "locals", "breakpoint", "input", "help") if name in _builtins.__dict__) \
    + _STDLIB_EVAL_EXEC


def _exports(name: str, module) -> dict:
    """Public names of an allowed module, without modules, hidden names and escape hatches."""
    public = _real_getattr(module, "__all__", None)
    names = list(public) if public is not None else dir(module)
    only, hidden = ONLY_NAMES.get(name), HIDDEN_NAMES.get(name, ())
    exports = {}
    for attr in names:
        if attr.startswith("_") or attr in hidden or (only is not None and attr not in only):
            continue
        value = _real_getattr(module, attr, _MISSING)
        if value is _MISSING or isinstance(value, ModuleType) \
                or any(value is real for real in _REAL_DANGERS):
            continue
        exports[attr] = _WRAPPED.get((name, attr), value)
    special = _special_exports(name, module)
    exports.update((attr, value) for attr, value in special.items() if attr in exports)
    return exports


def build_views(modules: dict) -> dict:
    """``{module name: read-only view}`` for the allowed, loaded ``modules``.

    Built once, before any fork: every run starts from the same views. A view of a package
    exposes the views of its allowed submodules (``collections.abc``).
    """
    views: dict = {}
    for name in sorted((n for n in modules if n in ALLOWED_MODULES), key=lambda n: -n.count(".")):
        exports = _exports(name, modules[name])
        prefix = name + "."
        for other, view in views.items():
            if other.startswith(prefix) and "." not in other[len(prefix):]:
                exports[other[len(prefix):]] = view
        views[name] = make_module_view(name, exports)
    return views


def _mutable(value) -> bool:
    """A public value of an allowed module the code could change in place: across the
    allow-list, keyword's lists, hashlib's sets, decimal's three contexts."""
    kind = type(value)
    return kind in (list, dict, set, bytearray) or (kind.__name__ == "Context"
                                                    and kind.__module__ == "decimal")


def tests_view(name: str, shared, generator):
    """The tests' view of module ``name``: ``shared`` (the code's), unless the code could change
    what the tests would read through it. Then the view is the tests' own: ``random``'s
    functions (``random``, ``randint``, ``seed``...) are those of ``generator``, and public
    values that can change in place (``keyword.kwlist``, ``decimal.ExtendedContext``) are
    copies. Classes and constants are the same objects."""
    import copy

    module = sys.modules.get(name)
    if module is None:
        return shared
    exports = _exports(name, module)
    own = False
    if name == "typing" and _TESTS_OVERLOADS:  # the tests' own registry view (_overloads_of)
        exports.update((attr, value) for attr, value in _TESTS_OVERLOADS.items()
                       if attr in exports)
        own = True
    rebound = module._inst if name == "random" else None
    for attr, value in exports.items():
        if rebound is not None and _real_getattr(value, "__self__", None) is rebound:
            exports[attr], own = _real_getattr(generator, attr), True
        elif _mutable(value):
            exports[attr], own = copy.deepcopy(value), True
    return make_module_view(name, exports) if own else shared


def make_module_view(name: str, exports: dict):
    """A read-only object exposing ``exports`` as attributes, and nothing else.

    The values are class attributes (wrapped in ``staticmethod`` so that functions do not
    bind): reading one is as fast as reading a module attribute. Writing raises, on the
    object; on its class, the audit hook refuses it (``object.__setattr__``).
    """
    public = sorted(k for k, v in exports.items() if type(v).__module__ != __name__)

    def __getattr__(self, attr):
        if attr == "__all__":
            return list(public)
        raise AttributeError(f"le module {name} n'expose pas « {attr} » dans le bac à sable")

    def __setattr__(self, attr, value):
        raise AttributeError(f"module en lecture seule dans le bac à sable : {name}")

    def __delattr__(self, attr):
        raise AttributeError(f"module en lecture seule dans le bac à sable : {name}")

    body = {attr: staticmethod(value) for attr, value in exports.items()}
    body.update(__slots__=(), __getattr__=__getattr__, __setattr__=__setattr__,
                __delattr__=__delattr__, __dir__=lambda self: sorted(exports),
                __repr__=lambda self: f"<module '{name}' (bac à sable)>")
    return type("module", (), body)()


def make_importer(views: dict):
    """The sandbox's ``__import__``: the views of allowed modules, nothing else."""
    loaded = sys.modules

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002
        name = exact_str(name, "le nom de module")
        if level != 0:
            raise ImportError("import relatif interdit dans le bac à sable")
        if type(fromlist) is list and name in loaded and name not in views:
            # C code importing a dependency it needs (datetime.strptime -> _strptime) calls
            # __import__ (fromlist=[]) for its side effect, then reads sys.modules itself:
            # nothing to give. An import statement passes None or a tuple, never a list.
            return None
        if name not in views:
            if name in ALLOWED_MODULES:
                raise ImportError(f"module non préchargé dans le bac à sable : {name}", name=name)
            raise ImportError(f"module non autorisé dans le bac à sable : {name}", name=name)
        return views[name] if fromlist else views[name.partition(".")[0]]

    return __import__


# --- output ---------------------------------------------------------------------------

class OutputBuffer:
    """What the untrusted code prints: kept up to ``limit`` characters, never parsed."""

    def __init__(self, limit: int):
        self.limit, self.size, self.truncated, self.parts = limit, 0, False, []

    def write(self, text: str) -> None:
        room = self.limit - self.size
        if len(text) > room:
            self.truncated = True
            text = text[: max(room, 0)]
        if text:
            self.parts.append(text)
            self.size += len(text)

    def text(self) -> str:
        return "".join(self.parts) + ("\n… (sortie tronquée)" if self.truncated else "")


def make_print(output: OutputBuffer):
    def print(*args, sep=" ", end="\n", file=None, flush=False):  # noqa: A001
        sep = " " if sep is None else exact_str(sep, "sep")
        end = "\n" if end is None else exact_str(end, "end")
        text = sep.join([str(arg) for arg in args]) + end
        if file is not None:
            file.write(text)
        else:
            output.write(text)

    return print


# --- builtins -------------------------------------------------------------------------

def _unavailable(name: str, reason: str, error=PermissionError):
    def unavailable(*args, **kwargs):
        raise error(reason)

    unavailable.__name__ = unavailable.__qualname__ = name
    return unavailable


def _exit(code=None):
    raise SystemExit(code)


def make_builtins(views: dict, output: OutputBuffer, namespace: dict,
                  extra: dict | None = None) -> dict:
    """A fresh builtins dict for ``namespace`` (``eval`` without globals uses it)."""
    table = {k: v for k, v in vars(_builtins).items() if k not in REMOVED}

    def eval(source, globals=None, locals=None):  # noqa: A001, A002
        source = exact_str(source, "l'expression")
        open_window()  # parsing and compiling an exact string runs no untrusted code
        try:
            code = compile_untrusted(source, "<eval>", "eval")
        finally:
            close_window()
        if globals is None:
            scope = namespace
        elif type(globals) is dict:
            scope = globals
            given = scope.get("__builtins__", _MISSING)
            if given is _MISSING:
                scope["__builtins__"] = dict(table)  # a copy: the caller sees this dictionary
            elif type(given) is dict and all(map(_free_name, given)):
                # the builtins the code chose ({} for a calculator), as in Python, with the
                # helpers its rewritten code calls (x.format, attribute writes)
                scope["__builtins__"] = {**given, **{name: table[name] for name in HELPERS}}
            else:
                raise TypeError("eval : __builtins__ doit être un dictionnaire de noms")
        else:
            raise TypeError("eval : globals doit être un dictionnaire")
        if locals is not None and type(locals) is not dict:
            raise TypeError("eval : locals doit être un dictionnaire")
        # The rewritten code calls the runner's helpers by name (__sandbox_format__...): a
        # namespace the code hands over must not answer for them.
        # (every key an exact str: a name is also found under a str subclass's key, or any
        # key that hashes and compares like it)
        for given in (globals, locals):
            if given is not None and not all(map(_free_name, given)):
                raise ValueError("eval : les noms d'un espace de noms sont des chaînes, et les "
                                 "noms __sandbox… sont réservés au bac à sable")
        trust_code(code)  # only for the "exec" event of this call
        try:
            return _real_eval(code, scope, scope if locals is None else locals)
        finally:
            distrust_code(code)

    table.update(
        __import__=make_importer(views), print=make_print(output), eval=eval,
        getattr=getattr, setattr=setattr, delattr=delattr, hasattr=hasattr,
        exit=_exit, quit=_exit,
        input=_unavailable("input", "pas d'entrée standard dans le bac à sable", EOFError),
    )
    table[FORMAT_HELPER] = checked_format
    table[INIT_HELPER] = checked_init
    table[SETATTR_HELPER] = checked_setattr
    table[DELATTR_HELPER] = checked_delattr
    for name in ("exec", "compile", "open", "globals", "locals", "vars", "breakpoint", "help"):
        table[name] = _unavailable(name, f"fonction interdite dans le bac à sable : {name}")
    if extra:
        table.update(extra)
    return table


__all__ = ["CodeRefused", "OutputBuffer", "build_views", "make_builtins", "make_module_view",
           "make_importer", "exact_str", "checked_format", "checked_init",
           "set_generated_builtins"]
