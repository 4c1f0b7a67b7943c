"""Syntax-tree rewrites applied before compiling code inside the sandbox.

* Untrusted code: ``x.format`` and ``x.format_map`` become ``__sandbox_format__(x, "format")``,
  which checks the template at run time (a literal template was already read by the static
  check: this is the second layer); ``x.__init__`` becomes ``__sandbox_init__(x)``, which
  refuses to initialise again an object made before the run (a ``property`` of a module's
  class, shared with the tests, would otherwise be rewritten in place). Every attribute it
  writes or deletes goes through ``__sandbox_setattr__(value, x, "name")`` /
  ``__sandbox_delattr__(x, "name")`` (in Python's order: the value first), which refuse to
  change a function of the standard library (``statistics.mean.__name__``, shared with the
  tests; no audit event and no class guard sees such a write). Targets that unpack
  (``self.a, self.b = pair``), loop and ``with`` targets go through temporary names of the
  runner's, assigned in the order Python assigns them.
* Test code (expressions and assertion programs) additionally gets its comparisons and truth
  tests moved onto plain data: ``a == b`` becomes ``__sandbox_compare__(a, ("==",), (b,))``,
  ``assert t`` / ``if t`` / ``while t`` / ``not t`` / ``t and u`` evaluate
  ``__sandbox_truth__(t)``, and a failed ``assert`` calls ``__sandbox_fail__(line, message)``.
  An object whose ``__eq__`` or ``__bool__`` lies is thus never asked; ``assert`` also survives
  ``python -O``.

The helper names are dunder names, which the static check forbids in untrusted code, so the code
cannot redefine or call them itself.
"""

from __future__ import annotations

import ast
import warnings

from course_utils.sandbox._plain import OP_SYMBOLS
from course_utils.sandbox._static import analyse, parse_source

FORMAT_HELPER = "__sandbox_format__"
INIT_HELPER = "__sandbox_init__"
SETATTR_HELPER = "__sandbox_setattr__"
DELATTR_HELPER = "__sandbox_delattr__"
TEMP_PREFIX = "__sandbox_t"  # + a number + "__": the rewrites' temporary names
COMPARE_HELPER = "__sandbox_compare__"
CHAIN_PREFIX = "__sandbox_chain_"  # + a number: the middle operands of a chained comparison
TRUTH_HELPER = "__sandbox_truth__"
FAIL_HELPER = "__sandbox_fail__"


class CodeRefused(PermissionError):
    """Source refused by the static check (French reasons joined by « ; »)."""


def _pos(like: ast.AST) -> dict:
    """Position attributes of ``like``, for the nodes a rewrite creates in its place."""
    return {"lineno": like.lineno, "col_offset": like.col_offset,
            "end_lineno": like.end_lineno, "end_col_offset": like.end_col_offset}


_LOAD = ast.Load()


def _node(kind, pos: dict, **fields):
    """``kind(**fields, **pos)``, built at half the cost of the keyword constructor (and
    without its initialiser, which from Python 3.13 warns of the fields given only after)."""
    node = kind.__new__(kind)
    node.__dict__.update(fields)
    node.__dict__.update(pos)
    return node


def _call(name: str, args: list[ast.expr], like: ast.AST) -> ast.Call:
    pos = _pos(like)
    return _node(ast.Call, pos, func=_node(ast.Name, pos, id=name, ctx=_LOAD), args=args,
                 keywords=[])


_AST = ast.AST
_UNSEEN = object()
_TABLES: dict = {}  # per transformer class: {node class: visitor function, or None}


class _Transformer:
    """A lean ``ast.NodeTransformer``: the visitors below only ever replace a node by one node.

    It skips nodes that need no visit (names, constants, operators, contexts) without a call,
    and finds each node class's visitor once per transformer class: it rewrites HumanEval's
    test programs a third faster than ``ast.NodeTransformer``.
    """

    def __init__(self):
        self._table = _TABLES.setdefault(type(self), {})

    def _lookup(self, kind):
        """The visitor of node class ``kind`` (None: nothing to do inside or for the node)."""
        visitor = getattr(type(self), "visit_" + kind.__name__, None)
        if visitor is None and kind._fields and kind not in _LEAVES:
            visitor = _Transformer.generic_visit
        self._table[kind] = visitor
        return visitor

    def visit(self, node):
        visitor = self._table.get(type(node), _UNSEEN)
        if visitor is _UNSEEN:
            visitor = self._lookup(type(node))
        return node if visitor is None else visitor(self, node)

    def generic_visit(self, node):
        table, lookup = self._table, self._lookup
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for index, item in enumerate(value):
                    visitor = table.get(type(item), _UNSEEN)
                    if visitor is _UNSEEN:
                        if not isinstance(item, _AST):
                            continue
                        visitor = lookup(type(item))
                    if visitor is not None:
                        new = visitor(self, item)
                        if new is not item:
                            value[index] = new
            elif value is not None:
                visitor = table.get(type(value), _UNSEEN)
                if visitor is _UNSEEN:
                    if not isinstance(value, _AST):
                        continue
                    visitor = lookup(type(value))
                if visitor is not None:
                    new = visitor(self, value)
                    if new is not value:
                        setattr(node, name, new)
        return node

    def _display(self, node):
        if all(type(element) is ast.Constant for element in node.elts):
            return node  # a literal list of numbers or strings: nothing to rewrite inside
        return self.generic_visit(node)

    visit_List = visit_Tuple = visit_Set = _display


_LEAVES = frozenset({ast.Constant, ast.Name})  # nodes with fields but nothing to rewrite


class FormatRewriter(_Transformer):
    def visit_Attribute(self, node: ast.Attribute):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load):
            if node.attr in ("format", "format_map"):
                return _call(FORMAT_HELPER, [node.value, ast.Constant(node.attr, **_pos(node))],
                             node)
            if node.attr == "__init__":
                return _call(INIT_HELPER, [node.value], node)
        return node


def _writes_attribute(target) -> bool:
    """Whether an assignment target writes an attribute, at any depth of its unpacking."""
    kind = type(target)
    if kind is ast.Attribute:
        return True
    if kind is ast.Starred:
        return _writes_attribute(target.value)
    if kind is ast.Tuple or kind is ast.List:
        return any(_writes_attribute(element) for element in target.elts)
    return False


_STORE, _DEL = ast.Store(), ast.Del()
# every helper the rewritten code calls by name (_child_builtins puts them in its builtins)
HELPERS = (FORMAT_HELPER, INIT_HELPER, SETATTR_HELPER, DELATTR_HELPER)


class UntrustedRewriter(FormatRewriter):
    """The untrusted code's rewrites: :class:`FormatRewriter`'s, and its attribute writes."""

    def __init__(self):
        super().__init__()
        self._temps = 0
        self._classes: list[str] = []  # the enclosing class statements' names, innermost last
        self._functions = 0  # depth of function scopes (an annotation is evaluated outside)
        self._lazy_annotations = False  # from __future__ import annotations

    def visit_Module(self, node: ast.Module):
        self._lazy_annotations = any(
            type(statement) is ast.ImportFrom and statement.module == "__future__"
            and any(alias.name == "annotations" for alias in statement.names)
            for statement in node.body)
        return self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef):
        # everything but its body (decorators, bases, keywords, 3.12's type parameters and
        # their bounds and defaults) belongs to the enclosing scope: visited first
        for field in node._fields:
            value = getattr(node, field, None)
            if field != "body" and type(value) is list:
                setattr(node, field, [self.visit(item) if isinstance(item, _AST) else item
                                      for item in value])
        self._classes.append(node.name)
        functions, self._functions = self._functions, 0
        try:
            # A class body looks names up in its namespace first, which a metaclass's
            # __prepare__ makes: the helpers are the module's (the code binds no __sandbox
            # name there), declared global so that no namespace of the code answers for them.
            body = [self.visit(statement) for statement in node.body]
            # after the docstring, which must stay first (it is the class's __doc__)
            first = 1 if body and type(body[0]) is ast.Expr and type(body[0].value) is \
                ast.Constant and type(body[0].value.value) is str else 0
            body.insert(first, _node(ast.Global, _pos(node), names=list(HELPERS)))
            node.body = body
        finally:
            self._classes.pop()
            self._functions = functions
        return node

    def _visit_function(self, node):
        self._functions += 1
        try:
            return self.generic_visit(node)
        finally:
            self._functions -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_function

    def _attribute_name(self, target) -> ast.Constant:
        """The name an attribute target writes, as the compiler writes it: ``self.__x`` in a
        class ``Account`` is ``_Account__x`` (a string constant is never mangled)."""
        name = target.attr
        if self._classes and name.startswith("__") and not name.endswith("__"):
            owner = self._classes[-1].lstrip("_")
            if owner:
                name = f"_{owner}{name}"
        return ast.Constant(name, **_pos(target))

    def _temp(self) -> str:
        self._temps += 1
        return f"{TEMP_PREFIX}{self._temps}__"

    def _name(self, name: str, like, ctx=_LOAD):
        return _node(ast.Name, _pos(like), id=name, ctx=ctx)

    def _assign(self, target, value, out: list, temps: list) -> None:
        """Append to ``out`` the statements that store ``value`` (an expression evaluated
        here, once) into ``target``, as Python would; temporary names go to ``temps``."""
        pos = _pos(target)
        kind = type(target)
        if kind is ast.Attribute:
            out.append(_node(ast.Expr, pos, value=_call(
                SETATTR_HELPER, [value, target.value, self._attribute_name(target)], target)))
        elif (kind is ast.Tuple or kind is ast.List) and _writes_attribute(target):
            leaves, elements = [], []
            for element in target.elts:
                name = self._temp()
                temps.append(name)
                leaf = element.value if type(element) is ast.Starred else element
                stored = self._name(name, element, _STORE)
                elements.append(_node(ast.Starred, _pos(element), value=stored, ctx=_STORE)
                                if type(element) is ast.Starred else stored)
                leaves.append((leaf, name))
            out.append(_node(ast.Assign, pos, targets=[_node(ast.Tuple, pos, elts=elements,
                                                               ctx=_STORE)],
                             value=value, type_comment=None))
            for leaf, name in leaves:  # unpacked first, then stored left to right
                self._assign(leaf, self._name(name, leaf), out, temps)
        else:
            out.append(_node(ast.Assign, pos, targets=[target], value=value, type_comment=None))

    def _block(self, like, body: list, temps: list):
        """One statement for ``body`` (a visitor replaces a node by one node). Its temporary
        names are bound first and deleted after it, whatever happens (in a class body they
        would stay among its attributes, in a function they would keep an object alive)."""
        pos = _pos(like)
        if temps:
            bound = [_node(ast.Assign, pos, targets=[self._name(name, like, _STORE)],
                           value=ast.Constant(None, **pos), type_comment=None) for name in temps]
            deleted = _node(ast.Delete, pos, targets=[self._name(name, like, _DEL)
                                                      for name in temps])
            body = [*bound, _node(ast.Try, pos, body=body, handlers=[], orelse=[],
                                  finalbody=[deleted])]
        return _node(ast.If, pos, test=ast.Constant(True, **pos), body=body, orelse=[])

    def visit_Assign(self, node: ast.Assign):
        self.generic_visit(node)
        if not any(_writes_attribute(target) for target in node.targets):
            return node
        if len(node.targets) == 1 and type(node.targets[0]) is ast.Attribute:
            out: list = []
            self._assign(node.targets[0], node.value, out, [])
            return out[0]
        value, temps, out = node.value, [], []
        if len(node.targets) > 1:  # a.x = b.y = v: v once, then the targets left to right
            name = self._temp()
            temps.append(name)
            out.append(_node(ast.Assign, _pos(node), targets=[self._name(name, node, _STORE)],
                             value=value, type_comment=None))
            value = None
        for target in node.targets:
            self._assign(target, value if value is not None else self._name(name, target),
                         out, temps)
        return self._block(node, out, temps)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        self.generic_visit(node)
        if type(node.target) is not ast.Attribute or node.value is None:
            return node
        out: list = []
        self._assign(node.target, node.value, out, [])
        if self._functions or self._lazy_annotations:
            return out[0]
        # at module or class level Python evaluates the annotation last (and keeps nothing)
        out.append(_node(ast.Expr, _pos(node.annotation), value=node.annotation))
        return self._block(node, out, [])

    def visit_AugAssign(self, node: ast.AugAssign):
        # a.x += v: a, then a.x, then v, the in-place operation, the write (Python's order)
        self.generic_visit(node)
        target = node.target
        if type(target) is not ast.Attribute:
            return node
        owner, current = self._temp(), self._temp()
        pos = _pos(node)
        # the read goes through the visitors like any other (x.__init__ and x.format become
        # the checked helpers: left raw, the bound method reached the value's __radd__)
        read = self.visit(_node(ast.Attribute, _pos(target), value=self._name(owner, target),
                                attr=target.attr, ctx=_LOAD))
        out = [_node(ast.Assign, pos, targets=[self._name(owner, node, _STORE)],
                     value=target.value, type_comment=None),
               _node(ast.Assign, pos, targets=[self._name(current, node, _STORE)],
                     value=read, type_comment=None),
               _node(ast.AugAssign, pos, target=self._name(current, node, _STORE), op=node.op,
                     value=node.value)]
        self._assign(_node(ast.Attribute, _pos(target), value=self._name(owner, target),
                           attr=target.attr, ctx=_STORE), self._name(current, node), out, [])
        return self._block(node, out, [owner, current])

    def visit_Delete(self, node: ast.Delete):
        self.generic_visit(node)
        flat: list = []
        pending = list(node.targets)
        while pending:  # del (a.x, b): left to right
            target = pending.pop(0)
            if type(target) in (ast.Tuple, ast.List):
                pending[:0] = target.elts
            else:
                flat.append(target)
        if not any(type(target) is ast.Attribute for target in flat):
            return node
        out = [_node(ast.Expr, _pos(target), value=_call(
                   DELATTR_HELPER, [target.value, self._attribute_name(target)], target))
               if type(target) is ast.Attribute
               else _node(ast.Delete, _pos(target), targets=[target]) for target in flat]
        return self._block(node, out, [])

    def _visit_loop(self, node):
        self.generic_visit(node)
        if not _writes_attribute(node.target):
            return node
        name = self._temp()
        stores: list = []
        self._assign(node.target, self._name(name, node.target), stores, [])
        node.target = self._name(name, node.target, _STORE)
        node.body[:0] = stores
        return self._block(node, [node], [name])

    visit_For = visit_AsyncFor = _visit_loop

    def _visit_with(self, node):
        # with a as x.y, b as z: entered and bound in order, as nested statements are
        self.generic_visit(node)
        if not any(item.optional_vars is not None and _writes_attribute(item.optional_vars)
                   for item in node.items):
            return node
        body, temps = node.body, []
        for index in range(len(node.items) - 1, -1, -1):
            item = node.items[index]
            if item.optional_vars is not None and _writes_attribute(item.optional_vars):
                name = self._temp()
                temps.append(name)
                stores: list = []
                self._assign(item.optional_vars, self._name(name, item.optional_vars), stores,
                             [])
                item.optional_vars = self._name(name, item.optional_vars, _STORE)
                body = stores + body
            body = [_node(type(node), _pos(node), items=[item], body=body,
                          type_comment=None)]
        return self._block(node, body, temps)

    visit_With = visit_AsyncWith = _visit_with


class TestRewriter(FormatRewriter):
    """Comparisons and truth tests of test code on plain data (see the module docstring)."""

    def __init__(self):
        super().__init__()
        self._chains = 0  # names given to the middle operands of chained comparisons

    @staticmethod
    def _truth(node: ast.expr) -> ast.expr:
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in (COMPARE_HELPER, TRUTH_HELPER)):
            return node  # already an exact bool
        return _call(TRUTH_HELPER, [node], node)

    def visit_Compare(self, node: ast.Compare):
        self.generic_visit(node)
        pos = _pos(node)
        ops = ast.Constant(tuple(OP_SYMBOLS[type(op).__name__] for op in node.ops), **pos)
        if len(node.comparators) == 1:
            rights = ast.Tuple(list(node.comparators), ast.Load(), **pos)
            return _call(COMPARE_HELPER, [node.left, ops, rights], node)
        # A chain (a < f(x) < g(x)) is written out as Python runs it: each operand evaluated
        # once, in the test's own scope, and only if the comparisons before it held
        # (a < (t := f(x)) and t < g(x)), the middle ones kept in names of the runner's.
        parts, left = [], node.left
        last = len(node.comparators) - 1
        for index, (op, operand) in enumerate(zip(ops.value, node.comparators)):
            here = _pos(operand)
            if index < last:
                self._chains += 1
                name = f"{CHAIN_PREFIX}{self._chains}__"
                right = _node(ast.NamedExpr, here, target=_node(ast.Name, here, id=name,
                                                                  ctx=ast.Store()), value=operand)
            else:
                right = operand
            parts.append(_call(COMPARE_HELPER, [left, ast.Constant((op,), **here),
                                                ast.Tuple([right], ast.Load(), **here)], operand))
            if index < last:
                left = _node(ast.Name, here, id=name, ctx=_LOAD)
        return _node(ast.BoolOp, pos, op=ast.And(), values=parts)

    # ``a or b`` keeps its value (``(f(0) or 'z') == 'z'``): its operands are what the tests
    # hold, plain copies or stand-ins that refuse to be tested for truth; where only its truth
    # counts (``if``, ``assert``, ``not``), the whole test goes through the truth helper.

    def visit_UnaryOp(self, node: ast.UnaryOp):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            node.operand = self._truth(node.operand)
        return node

    def _visit_test(self, node):
        self.generic_visit(node)
        node.test = self._truth(node.test)
        return node

    visit_If = visit_While = visit_IfExp = _visit_test

    def visit_comprehension(self, node: ast.comprehension):
        self.generic_visit(node)
        node.ifs = [self._truth(test) for test in node.ifs]
        return node

    def visit_Assert(self, node: ast.Assert):
        self.generic_visit(node)
        pos = _pos(node)
        message = node.msg if node.msg is not None else ast.Constant(None, **pos)
        fail = _call(FAIL_HELPER, [ast.Constant(node.lineno, **pos), message], node)
        check = ast.UnaryOp(ast.Not(), self._truth(node.test), **pos)
        return ast.If(check, [ast.Expr(fail, **pos)], [], **pos)


def compile_checked(tree: ast.AST, filename: str, mode: str, *, tests: bool, uses_format: bool):
    """Rewrite and compile a tree that already passed the static check (it is modified).
    ``uses_format``: the tree reads an attribute that is checked at run time
    (``_static.CHECKED_ATTRS``), or writes or deletes one."""
    if tests or uses_format:
        tree = (TestRewriter() if tests else UntrustedRewriter()).visit(tree)
    with warnings.catch_warnings(module=warnings):  # SyntaxWarnings of the code: not the caller's output
        warnings.simplefilter("ignore")
        # optimize=0: the code means the same whatever flags the caller runs with (-O would
        # remove its asserts and set __debug__ False where a child compiles them in).
        return compile(tree, filename, mode, dont_inherit=True, optimize=0)


def compile_untrusted(source: str, filename: str, mode: str = "exec", *, tests: bool = False):
    """Parse, check, rewrite and compile; raise SyntaxError or :class:`CodeRefused`."""
    tree, error = parse_source(source, filename, mode)
    if error:
        raise SyntaxError(error)
    reasons, uses_format = analyse(tree)
    if reasons:
        raise CodeRefused(" ; ".join(reasons))
    return compile_checked(tree, filename, mode, tests=tests, uses_format=uses_format)
