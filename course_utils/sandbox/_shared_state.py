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
- the members of the allowed modules' enums refuse attribute writes (their class gets a
  ``__setattr__`` and ``__delattr__`` that refuse). A ``Flag`` creates members for combined
  values on demand and stores them in its value map: every combination of its flags is created
  first (``re.I | re.M`` then finds its member), then the map is sealed like the rest.

Only the classes the modules export (and the classes nested in them, and the classes of the
enum members they export) are concerned: the code reaches nothing else of a module.
"""

from __future__ import annotations

import enum
import types

_MAX_FLAG_BITS = 12  # a Flag with more distinct bits is not completed in advance (none is)


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


def _refuse_write(self, name, value=None):
    raise AttributeError(f"membre d'énumération en lecture seule dans le bac à sable : {name}")


def _complete_flag(cls) -> None:
    """Create every member of a Flag for the combinations of its flags (see the module)."""
    mask = getattr(cls, "_flag_mask_", 0)
    if type(mask) is not int or mask <= 0 or mask.bit_count() > _MAX_FLAG_BITS:
        return
    bits = [1 << index for index in range(mask.bit_length()) if mask >> index & 1]
    for combination in range(1 << len(bits)):
        value = sum(bit for index, bit in enumerate(bits) if combination >> index & 1)
        try:
            cls(value)
        except (ValueError, TypeError):
            pass


def _classes(modules: dict) -> list:
    """The classes the allowed ``modules`` export, those nested in them, and the classes of
    the enum members they export."""
    from course_utils.sandbox._child_builtins import _exports

    found, seen = [], set()
    pending = []
    for name, module in modules.items():
        for value in _exports(name, module).values():
            pending.append(value if isinstance(value, type) else type(value))
    while pending:
        cls = pending.pop()
        if not isinstance(cls, type) or id(cls) in seen:
            continue
        seen.add(id(cls))
        found.append(cls)
        pending.extend(value for value in vars(cls).values() if isinstance(value, type))
    return found


def seal_shared_state(modules: dict) -> int:
    """Make the shared state of these modules' classes read-only (see the module); return how
    many attributes were replaced. Classes already immutable are left alone (sealed before
    they were frozen)."""
    from course_utils.sandbox._child_os import _HEAPTYPE, _IMMUTABLETYPE

    replaced = 0
    for cls in _classes(modules):
        flags = cls.__flags__
        if not flags & _HEAPTYPE or flags & _IMMUTABLETYPE:
            continue
        if isinstance(cls, enum.EnumMeta) and cls._member_names_:
            if issubclass(cls, enum.Flag):
                _complete_flag(cls)
            if "__setattr__" not in vars(cls):
                type.__setattr__(cls, "__setattr__", _refuse_write)
                type.__setattr__(cls, "__delattr__", _refuse_write)
        for attr, value in list(vars(cls).items()):
            if attr.startswith("__") and attr.endswith("__"):
                continue
            if _changeable(value):
                type.__setattr__(cls, attr, _read_only(value))
                replaced += 1
    return replaced

