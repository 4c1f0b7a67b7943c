"""Plain data: the only values the sandbox compares, moves between processes and prints.

Plain data is built from the exact built-in types ``None``, ``bool``, ``int``, ``float``,
``complex``, ``str``, ``bytes``, ``range``, ``list``, ``tuple``, ``dict``, ``set``,
``frozenset``, ``collections.OrderedDict`` (kept apart from ``dict``: two of them compare in
their order, as in Python) and ``collections.Counter`` (its ``==`` ignores zero counts, its
``<=`` is inclusion). Their comparison and hashing run no Python code that untrusted code could
redefine, so ``==`` between two plain values cannot be forged.

:func:`to_plain` copies a value into plain data without calling any of its methods: instances
of subclasses of those types (a ``str`` subclass whose ``__eq__`` always answers ``True``) are
read through the base type's own slots; any other object (a class instance, a generator, a
function) is refused with :class:`PlainValueError`. :func:`encode` and :func:`decode` carry plain
data through JSON (the decoder accepts nothing else), and :func:`compare` applies one comparison
operator to two plain values.
"""

from __future__ import annotations

import re

import operator
from collections import Counter, OrderedDict, defaultdict

MAX_DEPTH = 100
MAX_ITEMS = 1_000_000  # values in one plain copy (a bigger result is refused, not compared)


class PlainValueError(Exception):
    """A value that is not plain data where plain data is required (French message)."""


_NONE = type(None)
# Types are compared by identity (``is``), never with ``in`` or ``==`` on a tuple of types: a
# class whose metaclass says it equals ``int`` must not pass for one. Written out rather than
# looked up by ``id()``: in the child, every ``id()`` call is an audit event.


def is_scalar_type(kind) -> bool:
    """``kind`` is exactly one of the plain scalar types (identity only)."""
    return (kind is str or kind is int or kind is float or kind is bool or kind is _NONE
            or kind is complex or kind is bytes or kind is range)


MAX_SAME_HASH = 32  # values sharing one hash in a set or dict the supervisor rebuilds
# An object's address, as object's own hash computes it (unique among living objects; a list,
# whose hash is refused, still has it): what id() gives, without its audit event.
_address = object.__hash__
# The NaN copied from each NaN of a subclass of float or complex (a NaN is not equal to
# itself: only its identity makes `x in [x]` hold), for the process's life: a child's is one run.
_NAN_COPIES: dict = {}

# A defaultdict keeps its type when its factory is one of these (a missing key gives what
# Python gives: defaultdict(int)['z'] is 0); with any other factory it is copied as a dict.
PLAIN_FACTORIES = {"int": int, "float": float, "complex": complex, "bool": bool, "str": str,
                   "bytes": bytes, "list": list, "tuple": tuple, "dict": dict, "set": set,
                   "frozenset": frozenset}
_DEFAULT_FACTORY = defaultdict.default_factory.__get__


def _factory_name(factory) -> str | None:
    """The name of a plain factory, by identity only (no __eq__ or __hash__ of it is called)."""
    for name, plain in PLAIN_FACTORIES.items():
        if factory is plain:
            return name
    return None

_CONVERT_SCALAR = (  # read a subclass instance through its base type's own slots
    (int, int.__int__),
    (float, float.__float__),
    (complex, lambda c: complex(complex.real.__get__(c), complex.imag.__get__(c))),
    (str, str.__str__),
    # bytes' own item slot, never the buffer protocol: from Python 3.12 (PEP 688) a class's
    # __buffer__ method is its buffer, so memoryview(b) would run the code and copy what it says
    (bytes, lambda b: bytes.__getitem__(b, slice(None))),
)


def type_name(value) -> str:
    """Name of ``value``'s type, read without calling anything the value defines."""
    try:
        name = type.__dict__["__name__"].__get__(type(value))
    except TypeError:  # a class whose metaclass's MRO hides type (see _child_os.is_class)
        return "?"
    return name if type(name) is str else "?"


def _kept_every_key(copied, item, base, what: str):
    """``copied``, the rebuilt dict or set, if it kept as many keys as ``item`` (read through
    ``base``): keys of str or int subclasses with their own hash and equality, copied down to
    their base values, may merge (``{S('a'): 5, 'a': 2}`` would arrive as ``{'a': 2}``)."""
    if len(copied) != base.__len__(item):
        raise PlainValueError(f"{what} : des clés distinctes deviennent égales une fois copiées "
                              "(sous-classes de str ou int à égalité propre) : renvoyez des "
                              "clés simples")
    return copied


def to_plain(value, what: str = "la valeur"):
    """Return ``value`` as plain data (the object itself when it already is), or raise.

    ``what`` names the value in the French error message (e.g. ``"f(3)"``).
    """
    kind = type(value)
    if (kind is str or kind is int or kind is float or kind is bool or kind is _NONE
            or kind is complex or kind is bytes or kind is range):  # the common case, inline
        return value
    budget = [MAX_ITEMS]
    # Containers met twice are copied once: a list the value holds twice ([[0] * w] * h, a
    # classic bug the tests look for) is still one list in the copy, and a cycle is a cycle.
    copies: dict = {}

    def convert(item, depth):
        budget[0] -= 1
        if budget[0] < 0:
            raise PlainValueError(f"{what} : donnée trop grande pour être comparée")
        kind = type(item)
        if (kind is str or kind is int or kind is float or kind is bool or kind is _NONE
                or kind is complex or kind is bytes or kind is range):
            return item
        if depth > MAX_DEPTH:
            raise PlainValueError(f"{what} : donnée trop profondément imbriquée")
        key = _address(item)  # not id(): in a child every id() call is an audit event
        if key in copies:
            return copies[key][0]
        if kind is list:
            copied: list = []
            copies[key] = (copied, item)  # the original kept alive: its id stays its own
            copied.extend([convert(x, depth + 1) for x in item])
            return copied
        if kind is tuple:
            copied = tuple([convert(x, depth + 1) for x in item])
            copies[key] = (copied, item)
            return copied
        if kind is dict:
            copied = {}
            copies[key] = (copied, item)
            for k, v in item.items():
                copied[convert(k, depth + 1)] = convert(v, depth + 1)
            return _kept_every_key(copied, item, dict, what)
        if kind is set or kind is frozenset:
            items = [convert(x, depth + 1) for x in item]
            # A set copied from the set keeps its table, hence its order (list(s) says the
            # same after the copy); rebuilt from a list only if an element was converted.
            same = all(new is old for new, old in zip(items, item))
            source = item if same else items
            copied = set(source) if kind is set else frozenset(source)
            copies[key] = (copied, item)
            return _kept_every_key(copied, item, kind, what)
        # Subclasses of plain types: read the value through the base type, never the subclass.
        # issubclass on the real type: an object cannot fake it with a __class__ property.
        for base, read in _CONVERT_SCALAR:
            if issubclass(kind, base):
                copied = read(item)
                if copied != copied:  # a NaN: one object gives one NaN, in every copy of it
                    found = _NAN_COPIES.get(key)
                    if found is None:
                        found = _NAN_COPIES[key] = (copied, item)  # the original kept alive
                    return found[0]
                return copied
        # A subclass's copy is kept in the memo too: [Ligne([0] * w)] * h is one row repeated.
        if issubclass(kind, list):
            copied = []
            copies[key] = (copied, item)
            copied.extend([convert(x, depth + 1) for x in list.__iter__(item)])
            return copied
        for base in (tuple, set, frozenset):
            if issubclass(kind, base):
                copied = base([convert(x, depth + 1) for x in base.__iter__(item)])
                copies[key] = (copied, item)
                return copied if base is tuple else _kept_every_key(copied, item, base, what)
        if issubclass(kind, Counter) and issubclass(kind, OrderedDict):
            # Neither copy compares as Python does: Python's == follows the class's own MRO
            raise PlainValueError(f"{what} est un objet de type {type_name(item)}, à la fois "
                                  "Counter et OrderedDict : renvoyez l'un ou l'autre")
        if issubclass(kind, OrderedDict):  # kept as such: two compare in their order
            copied = OrderedDict()
            copies[key] = (copied, item)
            for k, v in OrderedDict.items(item):
                copied[convert(k, depth + 1)] = convert(v, depth + 1)
            return _kept_every_key(copied, item, dict, what)
        if issubclass(kind, Counter):  # kept as such: Counter({'a': 0}) == Counter()
            copied = Counter()
            copies[key] = (copied, item)
            for k, v in dict.items(item):
                dict.__setitem__(copied, convert(k, depth + 1), convert(v, depth + 1))
            return _kept_every_key(copied, item, dict, what)
        if kind is defaultdict and _factory_name(_DEFAULT_FACTORY(item, defaultdict)) is not None:
            # exactly: a subclass's own __missing__ would not be the copy's
            copied = defaultdict(_DEFAULT_FACTORY(item, defaultdict))
            copies[key] = (copied, item)
            for k, v in dict.items(item):
                dict.__setitem__(copied, convert(k, depth + 1), convert(v, depth + 1))
            return _kept_every_key(copied, item, dict, what)
        if issubclass(kind, dict):
            copied = {}
            copies[key] = (copied, item)
            for k, v in dict.items(item):
                copied[convert(k, depth + 1)] = convert(v, depth + 1)
            return _kept_every_key(copied, item, dict, what)
        raise PlainValueError(
            f"{what} est un objet de type {type_name(item)} : seules les données simples "
            "(nombres, chaînes, listes, tuples, dictionnaires, ensembles, None, booléens) "
            "sont comparées dans le bac à sable"
        )

    try:
        return convert(value, 0)
    except RecursionError:
        raise PlainValueError(f"{what} : donnée trop profondément imbriquée") from None
    except TypeError as exc:  # e.g. an unhashable key met while rebuilding a dict or set
        raise PlainValueError(f"{what} : donnée non comparable ({exc})") from None


def truth(value, plain: bool = False) -> bool:
    """Truth value of a plain copy of ``value`` (an object cannot lie through ``__bool__``);
    with ``plain``, ``value`` already is plain data."""
    if type(value) is bool:
        return value
    return bool(value if plain else to_plain(value, "la condition"))


def _contains(item, container) -> bool:
    """``item in container``, on a range in constant time: CPython compares a range element by
    element with anything but an int (``2.5 in range(10**18)`` would hold the caller for
    ever). A float or complex equals an int only when it is integral; nothing else plain does.
    """
    if type(container) is not range:
        return item in container
    kind = type(item)
    if kind is int or kind is bool:
        return item in container
    if kind is float:
        return item.is_integer() and int(item) in container
    if kind is complex:
        return item.imag == 0 and item.real.is_integer() and int(item.real) in container
    return False


_OPS = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
    "in": _contains, "not in": lambda a, b: not _contains(a, b),
}

_ORDER = {op: _OPS[op] for op in ("==", "!=", "<", "<=", ">", ">=")}

OP_SYMBOLS = {
    ast_name: symbol
    for ast_name, symbol in (
        ("Eq", "=="), ("NotEq", "!="), ("Lt", "<"), ("LtE", "<="), ("Gt", ">"), ("GtE", ">="),
        ("In", "in"), ("NotIn", "not in"), ("Is", "is"), ("IsNot", "is not"),
    )
}


def compare(op: str, left, right, plain: bool = False) -> bool:
    """``left op right`` on plain copies; ``is`` compares the objects themselves. With
    ``plain``, both already are plain data (the supervisor's decoded values): not copied."""
    if op == "is":
        return left is right
    if op == "is not":
        return left is not right
    if is_scalar_type(type(left)) and is_scalar_type(type(right)) and op in _ORDER:
        try:
            return _ORDER[op](left, right)  # exact built-in scalars: nothing to copy
        except TypeError:
            pass
    if plain:
        a, b = left, right
    else:
        a = to_plain(left, "la valeur comparée")
        b = to_plain(right, "la valeur comparée")
    try:
        result = _OPS[op](a, b)
    except (TypeError, ValueError, OverflowError) as exc:  # 300 in b"abc": ValueError
        raise PlainValueError(f"comparaison impossible : {describe(a)} {op} {describe(b)} "
                              f"({exc})") from None
    return bool(result)


MAX_INT_HEX = 1 << 22  # hexadecimal digits of an int sent (some 5 million decimal digits)


def describe(value, limit: int = 200) -> str:
    """Short ``repr`` of a plain value, cut at ``limit`` characters, at a cost bounded by
    ``limit`` for containers (a list of a million items is not written out to be cut)."""
    if type(value) is int and not -_BIG_INT < value < _BIG_INT:  # no decimal repr past 4,300
        return f"<entier de {len(format(value, 'x')) * 1.2041:.0f} chiffres environ>"
    try:
        text = _repr_prefix(value, limit + 1)
    except (RecursionError, ValueError):
        text = f"<{type_name(value)}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


_BRACKETS = ((list, "[", "]"), (tuple, "(", ")"), (set, "{", "}"), (dict, "{", "}"),
             (frozenset, "frozenset({", "})"), (OrderedDict, "OrderedDict([", "])"),
             (Counter, "Counter({", "})"))


def _repr_prefix(value, limit: int) -> str:
    """``repr(value)`` for plain data, or a prefix of it at least ``limit`` characters long."""
    kind = type(value)
    for container, opening, closing in _BRACKETS:
        if kind is container:  # identity: see the note at the top
            break
    else:
        if kind is defaultdict:
            head: dict = {}
            for key, item in value.items():  # at most limit items: the cost stays bounded
                if len(head) >= limit:
                    break
                head[key] = item
            return f"defaultdict({value.default_factory!r}, {_repr_prefix(head, limit)})"
        if kind is str and len(value) > 4 * limit:
            head = value[:limit]  # the same quotes as the whole string's repr, or the whole
            if ("'" in value and '"' not in value) == ("'" in head and '"' not in head):
                return repr(head)
        return repr(value)
    if not value:
        return repr(value)
    parts, size = [opening], len(opening)
    items = value.items() if kind is dict or kind is OrderedDict or kind is Counter else value
    for index, item in enumerate(items):
        if index:
            parts.append(", ")
            size += 2
        if kind is dict or kind is Counter:
            piece = _repr_prefix(item[0], limit - size) + ": " + _repr_prefix(item[1], limit - size)
        elif kind is OrderedDict:
            piece = "(" + _repr_prefix(item[0], limit - size) + ", " \
                + _repr_prefix(item[1], limit - size) + ")"
        else:
            piece = _repr_prefix(item, limit - size)
        parts.append(piece)
        size += len(piece)
        if size >= limit:
            return "".join(parts)
    if kind is tuple and len(value) == 1:
        parts.append(",")
    parts.append(closing)
    return "".join(parts)


# JSON carrying: natives for None/bool/int/float/str, two-item tagged lists for the rest.
#
# One identity crosses too: a NaN's. Python's ``==`` and ``in`` on containers take an object as
# equal to itself before comparing it, and a NaN is the one plain value not equal to itself:
# ``x in [x]`` holds for the NaN ``x``, and not for a NaN equal in every other way. A test's
# probes are sent one by one; each distinct NaN object (a float, or a complex with a NaN part)
# of a run is sent as its number in that run, and the caller decodes a number to one object.


_BIG_INT = 10 ** 4000  # from here on an int is sent in hexadecimal (linear, and unlimited)


# What the caller decodes costs it about as much CPU per JSON list as the child spent to write
# it, and a container the value holds many times ([set()] * 100_000) is written out each time:
# a run's probes send at most this many units (a list, a dict's pair, a tagged value such as
# inf or a big int: one each; what the caller rebuilds at a higher cost counts more, see
# _DECODE_WEIGHT): some 0.2 s of the caller, on top of its planning (at most 0.3 s).
MAX_SENT_CONTAINERS = 100_000

# Measured caller CPU per unit, against a list's 1.6 us: a set, a frozenset or a complex
# about 2.5 us, an OrderedDict or a Counter 3 us, a defaultdict 4 us.
_DECODE_WEIGHT = {set: 2, frozenset: 2, complex: 2, OrderedDict: 2, Counter: 2, defaultdict: 3}


class RunEncoding:
    """A run's encoding: the NaN objects it has sent, numbered (each kept alive: its id is
    never reused), and the containers it may still send."""

    def __init__(self):
        self.numbers: dict[int, int] = {}
        self.kept: list = []
        self.containers = MAX_SENT_CONTAINERS

    def number(self, value) -> int:
        key = id(value)
        found = self.numbers.get(key)
        if found is None:
            found = self.numbers[key] = len(self.kept)
            self.kept.append(value)
        return found

    def spend(self, count: int = 1) -> None:
        self.containers -= count
        if self.containers < 0:
            raise PlainValueError(f"valeurs trop volumineuses pour être comparées (plus de "
                                  f"{MAX_SENT_CONTAINERS} listes, tuples, ensembles, "
                                  "dictionnaires ou paires de dictionnaire dans les tests "
                                  "d'expressions de l'exécution) : comparez-les dans un "
                                  "programme d'assertions")


_SURROGATE = re.compile('[\ud800-\udfff]')


def encode(value, identities: RunEncoding | None = None):
    """Plain value -> JSON-ready structure (assumes ``value`` came from :func:`to_plain`);
    with ``identities`` (the run's :class:`RunEncoding`), each NaN object as its number there,
    and each container counted against the run's budget."""
    kind = type(value)
    if kind is str:
        if value.isascii() or not _SURROGATE.search(value):
            return value
        # JSON would write a lone surrogate as \\uXXXX, and the caller's parser joins a high
        # and a low one into one character: '\\ud83d\\ude00' (two) would arrive as '😀' (one).
        if identities is not None:  # the caller rebuilds it character by character
            identities.spend(1 + len(value) // 8)
        return ["u", "".join([format(ord(char), "06x") for char in value])]  # code points
    if value is None or kind is bool:
        return value
    if kind is int:  # JSON writes an int in decimal, which CPython limits to 4,300 digits
        if -_BIG_INT < value < _BIG_INT:
            return value
        if identities is not None:
            identities.spend()
        return ["I", format(value, "x")]
    if kind is float:
        if value == value and value not in (float("inf"), float("-inf")):
            return value
        if identities is not None:
            identities.spend()  # a tagged list too
        if value != value:
            return ["F", "nan"] if identities is None else ["N", identities.number(value)]
        return ["F", repr(value)]
    if identities is not None:  # every list the caller will build: a dict's pairs too
        identities.spend((1 + (len(value) if issubclass(kind, dict) else 0))
                         * _DECODE_WEIGHT.get(kind, 1))
    if kind is list:
        return ["l", [encode(x, identities) for x in value]]
    if kind is tuple:
        return ["t", [encode(x, identities) for x in value]]
    if kind is set:
        return ["s", [encode(x, identities) for x in value]]
    if kind is frozenset:
        return ["fs", [encode(x, identities) for x in value]]
    if kind is dict:
        return ["d", [[encode(k, identities), encode(v, identities)] for k, v in value.items()]]
    if kind is OrderedDict:
        return ["od", [[encode(k, identities), encode(v, identities)] for k, v in value.items()]]
    if kind is Counter:
        return ["ct", [[encode(k, identities), encode(v, identities)] for k, v in value.items()]]
    if kind is defaultdict:
        return ["dd", [_factory_name(value.default_factory),
                       [[encode(k, identities), encode(v, identities)] for k, v in value.items()]]]
    if kind is bytes:
        return ["b", value.hex()]
    if kind is complex:
        parts = [encode(value.real, identities), encode(value.imag, identities)]  # counted
        if identities is not None and value != value:
            return ["cN", [*parts, identities.number(value)]]
        return ["c", parts]
    if kind is range:  # its bounds as ints are (hexadecimal past 4,300 digits)
        return ["r", [encode(value.start, identities), encode(value.stop, identities),
                      encode(value.step, identities)]]
    raise PlainValueError(f"valeur non transmissible : {type_name(value)}")


def _NAN() -> float:
    return float("nan")


def _few_collisions(items: list) -> list:
    """``items`` if a set or dict of them can be built in linear time, else ValueError.

    Values sent by the child could be chosen to share one hash (building their set would take
    quadratic time in the caller); the supervisor counts hashes first, in linear time.
    """
    if len(items) > MAX_SAME_HASH:
        counts: dict = {}
        for item in items:
            key = hash(item)  # plain values: hashed by the built-in types' own C code
            seen = counts.get(key, 0) + 1
            if seen > MAX_SAME_HASH:
                raise ValueError("valeur refusée : trop de collisions de hachage")
            counts[key] = seen
    return items


# What json.loads makes, besides lists: exact built-in types (the supervisor decodes only what
# json.loads returned, so a set of types is safe here, unlike on values of the code).
_JSON_SCALARS = frozenset({int, float, str, bool, _NONE})


def _identity(objects: dict | None, number, make):
    if type(number) is not int or not 0 <= number < 1 << 31:
        raise ValueError("valeur mal formée")
    if objects is None:
        return make()
    found = objects.get(number)
    if found is None:
        found = objects[number] = make()
    return found


_BUDGET = ("budget",)  # its key among a run's objects (JSON makes no tuple: no NaN number)
# What a run may make the caller build: twice what an honest child may send (its encoder
# spends MAX_SENT_CONTAINERS, see RunEncoding). A child whose Python layers were escaped
# writes its records itself: 16 MB of ["ct", []] cost the caller 2 s without this.
CALLER_BUDGET = 2 * MAX_SENT_CONTAINERS
_TAG_WEIGHT = {"s": 2, "fs": 2, "c": 2, "cN": 2, "od": 2, "ct": 2, "dd": 3}


def _charge(objects: dict | None, units: int) -> None:
    if objects is None:
        return
    left = objects.get(_BUDGET, CALLER_BUDGET) - units
    if left < 0:
        raise ValueError("plus de valeurs qu'une exécution n'en envoie")
    objects[_BUDGET] = left


def decode(data, depth: int = 0, objects: dict | None = None):
    """JSON structure -> plain value; raises ValueError on anything unexpected. ``objects``:
    the run's NaN objects by number (see :class:`RunEncoding`), filled as they come, and what
    is left of the run's budget (:data:`CALLER_BUDGET`)."""
    if depth > MAX_DEPTH + 2:
        raise ValueError("structure trop profonde")
    kind = type(data)
    if data is None or kind is bool or kind is int or kind is float or kind is str:
        return data
    if kind is not list or len(data) != 2 or type(data[0]) is not str:
        raise ValueError("valeur mal formée")
    tag, body = data
    weight = _TAG_WEIGHT.get(tag, 1)
    _charge(objects, weight * (1 + len(body)) if tag in ("d", "od", "ct") and type(body) is list
            else weight)
    if tag == "F" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "N":
        return _identity(objects, body, _NAN)
    if tag == "I" and type(body) is str and len(body) < MAX_INT_HEX:
        return int(body, 16)
    if tag == "cN" and type(body) is list and len(body) == 3:
        parts = [decode(part, depth + 1) for part in body[:2]]
        if not all(type(x) is float for x in parts) or parts[0] == parts[0] and parts[1] == parts[1]:
            raise ValueError("valeur mal formée")
        return _identity(objects, body[2], lambda: complex(*parts))
    if tag == "b" and type(body) is str:
        return bytes.fromhex(body)
    if tag == "r" and type(body) is list and len(body) == 3:
        bounds = [decode(x, depth + 1) for x in body]
        if not all(type(x) is int for x in bounds):
            raise ValueError("valeur mal formée")
        return range(*bounds)
    if tag == "u" and type(body) is str and len(body) % 6 == 0:
        return "".join([chr(int(body[i:i + 6], 16)) for i in range(0, len(body), 6)])
    if tag == "dd" and type(body) is list and len(body) == 2 and type(body[0]) is str \
            and body[0] in PLAIN_FACTORIES:
        copied = defaultdict(PLAIN_FACTORIES[body[0]])
        dict.update(copied, decode(["d", body[1]], depth, objects))
        return copied
    if type(body) is not list:
        raise ValueError("valeur mal formée")
    if tag in ("d", "od", "ct"):
        items = None
    elif _JSON_SCALARS.issuperset(map(type, body)):  # numbers and strings: already plain
        items = body  # (the types come from json.loads: exact built-in types)
    else:
        items = [decode(x, depth + 1, objects) for x in body]
    if tag == "l":
        return items
    if tag == "t":
        return tuple(items)
    if tag == "s":
        return set(_few_collisions(items))
    if tag == "fs":
        return frozenset(_few_collisions(items))
    if tag == "c" and len(items) == 2 and all(type(x) is int or type(x) is float for x in items):
        return complex(items[0], items[1])
    if tag in ("d", "od", "ct"):
        pairs = []
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError("valeur mal formée")
            pairs.append((decode(pair[0], depth + 1, objects), decode(pair[1], depth + 1, objects)))
        _few_collisions([key for key, _ in pairs])
        if tag == "ct":
            counter = Counter()
            for key, value in pairs:
                dict.__setitem__(counter, key, value)
            return counter
        return dict(pairs) if tag == "d" else OrderedDict(pairs)
    raise ValueError("valeur mal formée")
