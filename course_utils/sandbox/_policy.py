"""What the sandbox allows: the import allow-list, shared by the caller and the child.

Data and one function (:func:`preload`, called by the warm worker or a spawned child before any
untrusted code runs); importing this module does nothing.
"""

from __future__ import annotations

# Modules the untrusted code may import (through read-only views, see _child_builtins).
ALLOWED_MODULES = frozenset(
    {
        "abc", "array", "base64", "binascii", "bisect", "cmath", "collections",
        "collections.abc", "copy", "dataclasses", "datetime", "decimal", "difflib", "enum",
        "fractions", "functools", "graphlib", "hashlib", "heapq", "io", "itertools", "json",
        "keyword", "math", "numbers", "operator", "queue", "random", "re", "statistics",
        "string", "struct", "textwrap", "time", "typing", "unicodedata",
    }
)

# Public names removed from a module's view (escape hatches), or the only names it keeps.
HIDDEN_NAMES = {
    "string": frozenset({"Formatter"}),  # Formatter.get_field walks attributes by name
    "time": frozenset({"tzset"}),
    # enum's pickling helpers: pickle_by_enum_name returns the real getattr, as a value
    "enum": frozenset({"pickle_by_enum_name", "pickle_by_global_name"}),
}
ONLY_NAMES = {"io": frozenset({"StringIO", "BytesIO"})}

# Modules the warm worker imports once (every run inherits them). The other allowed modules
# are imported by the child that needs them (its code or tests import them), before strict
# mode: preloading them all would double the cost of every fork. ``time`` is left out for its
# lazy ``_strptime`` (with ``calendar``, ``locale`` and ``datetime``: 0.7 MB more for every
# fork to copy), which few runs need.
CORE_MODULES = frozenset(
    {
        "abc", "array", "bisect", "cmath", "collections", "collections.abc", "copy", "enum",
        "functools", "heapq", "io", "itertools", "json", "keyword", "math", "numbers",
        "operator", "random", "re", "string", "struct", "typing",
    }
)

# Modules some functions import lazily (strptime, codecs), which strict mode would refuse:
# imported with the core, or with the module that needs them.
LAZY_DEPENDENCIES = {
    "": ("encodings.ascii", "encodings.latin_1", "encodings.utf_16", "encodings.utf_32",
         "encodings.cp1252", "encodings.unicode_escape"),
    "time": ("_strptime",),
    "datetime": ("_strptime",),
    "unicodedata": ("encodings.idna",),
}
if __import__("sys").version_info >= (3, 12):  # runtime-checkable protocols' isinstance
    LAZY_DEPENDENCIES["typing"] = ("inspect",)

USER_MODULE = "solution"  # the __name__ of the untrusted code's namespace
TESTS_MODULE = "tests"  # the __name__ of the tests' namespace


def preload(names=None) -> dict:
    """Import allowed modules (default: the core) and their lazy dependencies.

    Returns ``{name: module}`` for the allowed ones among them. Functions of these modules
    import others lazily (``Counter.most_common`` imports ``heapq``): those must be loaded
    before strict mode, which refuses any import that reads a file.
    """
    import importlib

    wanted = set(CORE_MODULES if names is None else names) & ALLOWED_MODULES
    loaded = {name: importlib.import_module(name) for name in sorted(wanted)}
    for name in ("", *sorted(wanted)):
        for dependency in LAZY_DEPENDENCIES.get(name, ()):
            try:
                importlib.import_module(dependency)
            except ImportError:  # an encoding missing on this platform is not an error
                pass
    return loaded
