"""Child side: the state of the allowed modules that the code and the tests share cannot change.

The code and the tests use the same classes of the standard library. The worker makes those
classes immutable (``_child_os.freeze_types``): no attribute of theirs can be rebound. What such
an attribute *holds* could still change in place, and so could the members of their enums:

- ``textwrap.TextWrapper.unicode_whitespace_trans[32] = ''`` would change what the tests'
  ``textwrap.fill`` computes; an enum's ``_member_map_`` or ``_value2member_map_`` would give
  the tests another member;
- ``re.ASCII._value_ = re.IGNORECASE.value`` would change the flag the tests pass to ``re``.

:func:`seal_shared_state`, called where the allowed modules are hardened (in the worker, and in
a child for a module its job imports, before the classes are frozen), closes both:

- a class attribute holding a ``dict``, ``list``, ``set`` or ``bytearray`` is replaced by a
  read-only equivalent (a ``mappingproxy`` over a copy, a tuple, a ``frozenset``, ``bytes``), at
  any depth inside it;
- the members of the allowed modules' enums, and the objects the modules export (``typing``'s
  special forms, whose ``_getitem`` the code could replace, ``typing.List``...) refuse
  attribute writes (their class gets a ``__setattr__`` and ``__delattr__`` that refuse for
  them, and write as before for any other object), and an enum's map from values to members
  cannot change (:class:`SealedMap`): a ``Flag`` makes the member of a combined value
  (``re.I | re.M``) again at each use instead of storing it where both sides would find it.

Only the classes the modules export (and the classes nested in them, and the classes of the
enum members they export) are concerned: the code reaches nothing else of a module.
"""

from __future__ import annotations

import enum
import types

def _read_only(value, depth: int = 0):
    """``value`` with every ``dict``/``list``/``set``/``bytearray`` in it made read-only."""
    kind = type(value)
    if depth > 20:
        return value
    if kind is dict:
        return types.MappingProxyType({key: _read_only(item, depth + 1)
                                       for key, item in value.items()})
    if kind is list or kind is tuple:
        return tuple(_read_only(item, depth + 1) for item in value)
    if kind is set:
        return frozenset(value)
    if kind is bytearray:
        return bytes(value)
    return value


def _changeable(value) -> bool:
    kind = type(value)
    if kind in (dict, list, set, bytearray):
        return True
    return kind is tuple and any(_changeable(item) for item in value)


_MAPS: dict = {}  # id of a SealedMap -> its private dictionary (reachable from here only)


class SealedMap:
    """An enum's map from values to members that never changes (not a ``dict``: none of
    ``dict``'s own methods, called unbound, can write into it).

    ``Flag`` stores each member it makes for a combined value (``re.I | re.M``) in this map,
    and would hand the same object to the code and the tests: here it is made again at each
    use (``setdefault`` and item assignment store nothing)."""

    __slots__ = ("__weakref__",)

    def __init__(self, data: dict):
        if id(self) in _MAPS:  # made once: called again, it would swap the whole map
            raise TypeError("cette table d'une énumération ne change pas dans le bac à sable")
        _MAPS[id(self)] = dict(data)

    def __getitem__(self, key):
        return _MAPS[id(self)][key]

    def get(self, key, default=None):
        return _MAPS[id(self)].get(key, default)

    def __contains__(self, key):
        return key in _MAPS[id(self)]

    def __iter__(self):
        return iter(tuple(_MAPS[id(self)]))

    def __len__(self):
        return len(_MAPS[id(self)])

    def keys(self):
        return tuple(_MAPS[id(self)])

    def values(self):
        return tuple(_MAPS[id(self)].values())

    def items(self):
        return tuple(_MAPS[id(self)].items())

    def setdefault(self, key, default=None):
        data = _MAPS[id(self)]
        return data[key] if key in data else default

    def __setitem__(self, key, value):
        pass  # Flag's own write for a negative value: not kept either


_SHARED: set = set()  # ids of the sealed objects (alive for good: held by modules' classes)


def _write_guards(cls):
    """``(__setattr__, __delattr__)`` for ``cls`` refusing writes on the shared objects (ids
    in :data:`_SHARED`: the enum members, the instances a module exports or its classes hold);
    any other object of the class (one a ``Flag`` makes for a combined value, a ``TypeVar`` of
    the code) is written as the class would write it."""
    setter, deleter = cls.__setattr__, cls.__delattr__
    registered = _SHARED

    def __setattr__(self, name, value):
        if id(self) in registered:
            raise AttributeError(f"objet partagé en lecture seule dans le bac à sable : {name}")
        setter(self, name, value)

    def __delattr__(self, name):
        if id(self) in registered:
            raise AttributeError(f"objet partagé en lecture seule dans le bac à sable : {name}")
        deleter(self, name)

    return __setattr__, __delattr__


def _cache_inversions(cls) -> None:
    """``~member`` for every member of a Flag: ``Flag.__invert__`` caches the result on the
    member (``_inverted_``), a write the sealed member would refuse."""
    done: set = set()
    while True:
        pending = [m for m in (*cls._member_map_.values(), *cls._value2member_map_.values())
                   if id(m) not in done]
        if not pending:
            return
        for member in pending:
            done.add(id(member))
            try:
                ~member
            except (ValueError, TypeError):
                pass


def _classes(exported: dict) -> list:
    """The classes in ``exported`` (module name -> what the module exports), those nested in
    them, and the classes of the objects exported (enum members...)."""
    found, seen = [], set()
    pending = []
    for values in exported.values():
        for value in values:
            pending.append(value if isinstance(value, type) else type(value))
    while pending:
        cls = pending.pop()
        if not isinstance(cls, type) or id(cls) in seen:
            continue
        seen.add(id(cls))
        found.append(cls)
        pending.extend(value for value in vars(cls).values() if isinstance(value, type))
    return found


def _exported_instances(exported: dict, classes: list) -> dict:
    """``{class: [objects]}``: the objects the modules export, or their ``classes`` hold in
    their namespaces, that are instances of a Python class of the standard library
    (``typing.Union``, ``typing.List``, ``dataclasses.MISSING``, the ``enum.property`` behind
    every member's ``value`` and ``name``...): shared by the two sides, with attributes of
    their own."""
    from course_utils.sandbox._child_os import _HEAPTYPE

    found: dict = {}
    held = [value for cls in classes if not _is_enum(cls) for value in vars(cls).values()]
    for value in (*(value for values in exported.values() for value in values), *held):
        kind = type(value)
        if isinstance(value, (type, types.FunctionType, types.ModuleType)) \
                or not kind.__flags__ & _HEAPTYPE:
            continue
        found.setdefault(kind, {})[id(value)] = value
    return {kind: list(objects.values()) for kind, objects in found.items()}


def _is_enum(cls) -> bool:
    return isinstance(cls, enum.EnumMeta) and bool(cls._member_names_)


def seal_shared_state(exported: dict) -> int:
    """Make the shared state of what the modules export read-only (``exported``: module name
    -> its exports; see the module); return how many attributes were replaced. Classes
    already immutable are left alone (sealed before they were frozen)."""
    from course_utils.sandbox._child_os import _HEAPTYPE, _IMMUTABLETYPE

    replaced = 0
    classes = _classes(exported)
    instances = _exported_instances(exported, classes)
    known = set(map(id, classes))
    classes += [kind for kind in instances if id(kind) not in known]
    for cls in classes:
        flags = cls.__flags__
        if not flags & _HEAPTYPE:
            continue
        is_enum = _is_enum(cls)
        shared = [*cls._member_map_.values(), *cls._value2member_map_.values()] if is_enum \
            else instances.get(cls, [])
        if is_enum and issubclass(cls, enum.Flag) and not flags & _IMMUTABLETYPE:
            _cache_inversions(cls)
            shared = [*cls._member_map_.values(), *cls._value2member_map_.values()]
        # A class sealed already (in the worker) takes the new objects into its guards.
        sealed = "__sandbox_sealed__" in vars(cls)
        if shared and (sealed or not flags & _IMMUTABLETYPE):
            _SHARED.update(map(id, shared))
        if flags & _IMMUTABLETYPE:
            continue
        if shared and not sealed:
            setter, deleter = _write_guards(cls)
            type.__setattr__(cls, "__setattr__", setter)
            type.__setattr__(cls, "__delattr__", deleter)
            type.__setattr__(cls, "__sandbox_sealed__", True)
        for attr, value in list(vars(cls).items()):
            if attr.startswith("__") and attr.endswith("__"):
                continue
            if is_enum and attr == "_value2member_map_" and type(value) is dict:
                type.__setattr__(cls, attr, SealedMap(value))
                replaced += 1
            elif _changeable(value):
                type.__setattr__(cls, attr, _read_only(value))
                replaced += 1
    return replaced


_STAND_FOR: dict = {}  # id of a ModuleStandIn -> the module it stands for (reachable from here)


class ModuleStandIn:
    """What the standard library finds in ``sys.modules`` while the untrusted code runs.

    Some of it looks a module up by a name the code chooses and then uses that module's
    ``__dict__``: ``enum.global_enum`` writes into ``sys.modules[cls.__module__].__dict__``
    (the code's metaclass can say any module), ``Enum._convert_`` reads every global of the
    module it is given, ``dataclasses`` and ``typing`` take globals the same way (and
    ``exec`` would put the real builtins in them). A stand-in's ``__dict__`` is a new empty
    dict at each use (what is written there stays nowhere, reads find nothing), and its other
    attributes read through to the module (``dataclasses`` asks for
    ``sys.modules['typing'].ClassVar``). Only the allowed modules have one: any other name is
    not found."""

    __slots__ = ()

    def __init__(self, module):
        _STAND_FOR[id(self)] = module

    @property
    def __dict__(self):  # a new, empty namespace at each use: nothing written there stays
        return {}

    def __getattr__(self, name):
        return getattr(_STAND_FOR[id(self)], name)


def stand_in_modules(table: dict, modules: dict) -> None:
    """Add to ``table`` a :class:`ModuleStandIn` for each of these allowed modules."""
    for name, module in modules.items():
        if name not in table:
            table[name] = ModuleStandIn(module)



# Every object the allowed modules hold (their globals, their classes' namespaces, what those
# hold in turn: functions, properties, partials, markers), by identity: alive for good, held by the
# modules. The code may not write their attributes (_child_builtins._check_write): a function's
# type takes no guard, and no audit event reports such a write.
_HELD: set = set()
# An object's identity as object's own hash gives it (its address, rotated: distinct for live
# objects, well spread in a set): no audit event (id() raises one, whose hook runs Python code
# at every attribute write), no method of the object's class.
_identity = object.__hash__
_WALKED: set = set()  # the modules walked already (a job's imports walk only the new ones)
_VALUES = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset, type(...))


def register_held_objects(modules: dict) -> int:
    """Record the objects ``modules`` (name -> module) hold, at any depth through classes,
    functions' ``__wrapped__`` and the descriptors' functions; return how many are known."""
    import types as _types

    seen: set = set()
    pending = [value for name, module in modules.items() if name not in _WALKED
               for value in list(getattr(module, "__dict__", {}).values())]
    _WALKED.update(modules)
    while pending:
        value = pending.pop()
        if id(value) in seen or type(value) in _VALUES or isinstance(value, _types.ModuleType):
            continue
        seen.add(id(value))
        if isinstance(value, type):
            pending.extend(type.__dict__["__dict__"].__get__(value).values())
            continue
        _HELD.add(_identity(value))
        kind = type(value)
        if kind is staticmethod or kind is classmethod:
            pending.append(value.__func__)
        elif kind is property:
            pending.extend(part for part in (value.fget, value.fset, value.fdel) if part)
        elif kind is _types.FunctionType:
            wrapped = value.__dict__.get("__wrapped__")
            if wrapped is not None:
                pending.append(wrapped)
    return len(_HELD)


def held(obj) -> bool:
    """Whether ``obj`` is one of the allowed modules' own objects (see register_held_objects)."""
    return _identity(obj) in _HELD
