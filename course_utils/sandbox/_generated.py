"""Child side: the shape check of source code ``dataclasses`` generates from the untrusted code.

``dataclasses`` writes the methods of a class as source text and executes it (``exec``), pasting
field names into it as they are. Those names come from the untrusted code (its annotations, but
also the ``Field`` objects of its base classes, which it can rewrite at any time), so the text
is untrusted too, and it is compiled and run inside a trusted window, with the real builtins.
Checking the names beforehand cannot be made airtight (the code can rename a field between the
check and the generation); checking the text that is about to run can.

:func:`problem` parses the text and accepts it only if it has the shape ``dataclasses`` gives
its methods: one ``def __create_fn__(...)`` without defaults returning one inner function (or,
from Python 3.13, all of a class's in a tuple) whose defaults and annotations are plain
names, and whose body only assigns attributes, compares, builds tuples and f-strings, and
calls the few functions ``dataclasses`` calls (``type``, ``hash``, ``super(...).__setattr__``,
``object.__setattr__``, ``__post_init__``, default factories, ``FrozenInstanceError``).
Anything else (a call to any other function, a lambda, a subscript, a comprehension, a
star...) is refused before the window opens: text injected through a field name cannot run.
"""

from __future__ import annotations

import ast
import re

from course_utils.sandbox._child_audit import close_window, open_window
from course_utils.sandbox._static import attribute_refusal

# A default factory: _dflt_x up to Python 3.11, __dataclass_dflt_x__ after.
_FACTORY = re.compile(r"(?:_dflt_[A-Za-z_][A-Za-z0-9_]*|__dataclass_dflt_[A-Za-z_][A-Za-z0-9_]*__)\Z")
_CALLED_NAMES = frozenset({"type", "hash", "super", "FrozenInstanceError"})
_SELF_NAMES = frozenset({"self", "__dataclass_self__"})
_EXPRESSIONS = (ast.Name, ast.Constant, ast.Attribute, ast.Tuple, ast.Set, ast.Compare,
                ast.BoolOp, ast.IfExp, ast.BinOp, ast.JoinedStr, ast.FormattedValue, ast.Call)
_CONTEXT_FREE = (ast.Load, ast.Store, ast.cmpop, ast.boolop, ast.operator)
_FORBIDDEN = frozenset({"__import__", "__build_class__", "exec", "eval", "compile", "open",
                        "globals", "locals", "vars", "getattr", "setattr", "delattr",
                        "breakpoint", "input", "help"})


def problem(source) -> str | None:
    """Why ``source`` is not code ``dataclasses`` generates (French), or None if it is."""
    if type(source) is not str:
        return "le code généré n'est pas du texte"
    open_window()  # parsing is an audited compile; it runs nothing
    try:
        tree = ast.parse(source, filename="<code généré par dataclasses>")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "le code généré ne se lit pas"
    finally:
        close_window()
    if len(tree.body) != 1 or type(tree.body[0]) is not ast.FunctionDef:
        return "forme inattendue"
    outer = tree.body[0]
    if outer.name != "__create_fn__" or not _plain_parameters(outer.args, outer=True) \
            or outer.decorator_list or outer.returns is not None or not outer.body:
        return "forme inattendue"
    *inners, last = outer.body
    # one method returned (up to Python 3.12), or all of a class's in a tuple (3.13)
    returned = [last.value] if type(last) is ast.Return and type(last.value) is ast.Name \
        else last.value.elts if type(last) is ast.Return and type(last.value) is ast.Tuple \
        else None
    if returned is None or len(returned) != len(inners) \
            or any(type(inner) is not ast.FunctionDef or type(name) is not ast.Name
                   or name.id != inner.name for inner, name in zip(inners, returned)):
        return "forme inattendue"
    for inner in inners:
        if not _plain_decorators(inner.decorator_list) \
                or not _plain_parameters(inner.args, outer=False) \
                or not (inner.returns is None or type(inner.returns) is ast.Name):
            return "paramètres inattendus"
        for index, statement in enumerate(inner.body):
            if type(statement) is ast.Return and index != len(inner.body) - 1:
                return "instruction après un return"
            reason = _statement(statement)
            if reason:
                return reason
    for node in ast.walk(tree):  # the names dataclasses writes, never the interpreter's
        if type(node) is ast.Name and (node.id == "__builtins__" or node.id.startswith("__sandbox")
                                       or node.id in _FORBIDDEN):
            return f"nom inattendu ({node.id})"
    return None


def _plain_decorators(decorators: list) -> bool:
    """None, or the one dataclasses puts on ``__repr__`` (Python 3.13):
    ``@__dataclasses_recursive_repr()``."""
    return all(type(node) is ast.Call and type(node.func) is ast.Name
               and node.func.id == "__dataclasses_recursive_repr"
               and not node.args and not node.keywords for node in decorators)


def _plain_parameters(arguments: ast.arguments, outer: bool) -> bool:
    """Parameters without ``*args``/``**kwargs``; defaults and annotations plain names (none
    at all for the outer function)."""
    if arguments.vararg is not None or arguments.kwarg is not None or arguments.posonlyargs:
        return False
    parameters = [*arguments.args, *arguments.kwonlyargs]
    defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
    annotations = [p.annotation for p in parameters if p.annotation is not None]
    if outer:
        return not defaults and not annotations
    return all(type(node) is ast.Name for node in (*defaults, *annotations))


def _statement(node) -> str | None:
    kind = type(node)
    if kind is ast.Pass:
        return None
    if kind is ast.Assign:
        if len(node.targets) != 1 or not _attribute_of_self(node.targets[0]):
            return "affectation inattendue"
        return _expression(node.value)
    if kind is ast.Expr:
        return _expression(node.value) if type(node.value) is ast.Call else "instruction inattendue"
    if kind is ast.Return:
        return None if node.value is None else _expression(node.value)
    if kind is ast.If:
        return _expression(node.test) or next(
            (reason for reason in map(_statement, [*node.body, *node.orelse]) if reason), None)
    if kind is ast.Raise:
        if node.cause is not None or node.exc is None:
            return "instruction inattendue"
        return _expression(node.exc)
    return "instruction inattendue"


def _attribute_of_self(node) -> bool:
    return (type(node) is ast.Attribute and type(node.value) is ast.Name
            and node.value.id in _SELF_NAMES)


def _expression(node) -> str | None:
    """Walk an expression: only the node kinds listed, and only the calls dataclasses makes."""
    for child in ast.walk(node):
        kind = type(child)
        if kind is ast.Call:
            if not _allowed_call(child):
                return "appel inattendu"
        elif kind is ast.FormattedValue:
            if child.conversion not in (-1, ord("r")):
                return "conversion inattendue"
        elif kind is ast.Attribute:
            if not _allowed_attribute(child):
                return f"attribut inattendu ({child.attr[:40]})"
        elif not (kind in _EXPRESSIONS or isinstance(child, _CONTEXT_FREE)):
            return f"construction inattendue ({kind.__name__})"
    return None


_OWNERS = frozenset({"self", "other", "__dataclass_self__", "__dataclass_builtins_object__"})
_METHOD_NAMES = frozenset({"__class__", "__post_init__", "__setattr__", "__delattr__"})


def _allowed_attribute(node: ast.Attribute) -> bool:
    """The attributes dataclasses' methods read: a field or one of a few methods of ``self``
    or ``other`` (one level: a field named ``a.__globals__`` would read further), and
    ``self.__class__.__qualname__``; ``super(...).__setattr__`` (its call is checked)."""
    owner, attr = node.value, node.attr
    if type(owner) is ast.Name:
        return owner.id in _OWNERS and (attr in _METHOD_NAMES or attribute_refusal(attr) is None)
    if type(owner) is ast.Attribute:
        return (attr == "__qualname__" and owner.attr == "__class__"
                and type(owner.value) is ast.Name and owner.value.id in _SELF_NAMES)
    return type(owner) is ast.Call and attr in ("__setattr__", "__delattr__")


def _allowed_call(node: ast.Call) -> bool:
    """The calls of dataclasses' methods, argument shapes included."""
    if node.keywords:
        return False
    function, args = node.func, node.args
    kinds = [type(arg) for arg in args]
    if type(function) is ast.Name:
        name = function.id
        if name == "type":  # type(self) is cls
            return kinds == [ast.Name] and args[0].id in _SELF_NAMES
        if name == "hash":  # hash((self.x,self.y,))
            return kinds == [ast.Tuple]
        if name == "super":  # super(cls, self).__setattr__(name, value)
            return kinds == [ast.Name, ast.Name] and args[1].id in _SELF_NAMES
        if name == "FrozenInstanceError":
            return kinds == [ast.JoinedStr]
        return _FACTORY.match(name) is not None and not args  # a default factory
    if type(function) is not ast.Attribute:
        return False
    owner, attribute = function.value, function.attr
    if type(owner) is ast.Name and owner.id == "__dataclass_builtins_object__":
        # __dataclass_builtins_object__.__setattr__(self,'x',value) (frozen classes)
        return (attribute == "__setattr__" and len(args) == 3 and kinds[0] is ast.Name
                and args[0].id in _SELF_NAMES and kinds[1] is ast.Constant
                and type(args[1].value) is str and attribute_refusal(args[1].value) is None
                and kinds[2] is not ast.Starred)
    if type(owner) is ast.Name and owner.id in _SELF_NAMES:  # self.__post_init__(a,b)
        return attribute == "__post_init__" and all(kind is ast.Name for kind in kinds)
    return (type(owner) is ast.Call and type(owner.func) is ast.Name and owner.func.id == "super"
            and attribute in ("__setattr__", "__delattr__")
            and all(kind is ast.Name for kind in kinds))
