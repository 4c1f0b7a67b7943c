"""Static check of untrusted source: the sandbox's first layer.

It reads the syntax tree, never runs anything, and returns French reasons for what it refuses:

* dunder attributes (``x.__class__``, ``f.__globals__``, ...), except a short list of harmless
  ones used by ordinary classes (``super().__init__``, ``__name__``, ...);
* frame and introspection attributes (``gi_frame``, ``f_back``, ``tb_frame``, ``co_code``, ...);
* names that reach the interpreter (``__builtins__``, ``__import__``, ``__loader__``, ...);
* dangerous builtins used without being redefined (``open``, ``exec``, ``compile``, ``globals``,
  ``vars``, ...);
* imports outside the allow-list, relative imports, private names imported from a module;
* string constants that are format templates walking attributes (``"{0.__class__}"``);
* code too long or nested too deeply.

The same attribute rule serves at run time (``getattr``, ``operator.attrgetter``, dynamic format
templates), through :func:`attribute_refusal` and :func:`format_refusal`.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize  # here, not where it is used: a locked child imports nothing
import warnings

from course_utils.sandbox._policy import ALLOWED_MODULES

# The caller parses what it checks, in C and uninterruptibly: the densest sources (a
# statement every four characters) cost some 3 s of its CPU per million characters.
MAX_SOURCE_CHARS = 100_000
# CPython 3.11 compares a call's keyword names pairwise when it compiles it: 12,000 took 0.9 s
MAX_KEYWORDS = 255
MAX_DEPTH = 250
MAX_REASONS = 20  # refusal reasons reported (the rest are counted)

SAFE_DUNDER_ATTRS = frozenset(
    {
        "__init__", "__new__", "__post_init__", "__name__", "__qualname__", "__doc__",
        "__len__", "__iter__", "__next__", "__contains__", "__getitem__", "__setitem__",
        "__delitem__", "__repr__", "__str__", "__hash__", "__eq__", "__ne__", "__lt__",
        "__le__", "__gt__", "__ge__", "__add__", "__sub__", "__mul__", "__bool__", "__call__",
        "__enter__", "__exit__",
    }
)

# Attributes read through a run-time check (see _rewrite): a ``str.format`` template walks
# attributes by name; ``__init__`` of an object made before the run would change it in place.
CHECKED_ATTRS = frozenset({"format", "format_map", "__init__"})

FORBIDDEN_ATTRS = frozenset(
    {
        "gi_frame", "gi_code", "gi_yieldfrom", "gi_suspended", "gi_running",
        "cr_frame", "cr_code", "cr_await", "cr_origin", "cr_suspended", "cr_running",
        "ag_frame", "ag_code", "ag_await", "ag_running",
        "f_back", "f_builtins", "f_code", "f_globals", "f_locals", "f_trace", "f_trace_lines",
        "f_trace_opcodes", "f_lasti", "f_lineno",
        "tb_frame", "tb_next", "tb_lasti", "tb_lineno",
        "co_code", "co_consts", "co_names", "co_varnames", "co_filename", "co_name",
        "co_qualname", "co_firstlineno", "co_lnotab", "co_linetable", "co_exceptiontable",
        "co_freevars", "co_cellvars", "co_positions", "co_lines", "co_argcount", "co_flags",
        "co_nlocals", "co_stacksize", "co_kwonlyargcount", "co_posonlyargcount",
        "cell_contents", "func_globals", "func_code", "func_closure", "func_defaults",
        "im_func", "im_self", "im_class", "_getframe", "_current_frames", "settrace",
        "setprofile",
    }
)

FORBIDDEN_NAMES = frozenset(
    {
        "__builtins__", "__import__", "__loader__", "__spec__", "__build_class__", "__file__",
        "__cached__", "__package__", "__path__", "__dict__", "__class__", "__globals__",
        "__code__", "__closure__", "__subclasses__", "__bases__", "__base__", "__mro__",
        "__self__", "__func__", "__traceback__", "__getattribute__", "__reduce__",
        "__reduce_ex__",
    }
)

# Builtins refused when the code uses them without defining a name of its own.
DANGEROUS_BUILTINS = {
    "exec": "fonction interdite dans le bac à sable : exec",
    "compile": "fonction interdite dans le bac à sable : compile",
    "open": "fonction interdite dans le bac à sable : open (aucun accès aux fichiers)",
    "globals": "fonction interdite dans le bac à sable : globals",
    "locals": "fonction interdite dans le bac à sable : locals",
    "vars": "fonction interdite dans le bac à sable : vars",
    "breakpoint": "fonction interdite dans le bac à sable : breakpoint",
    "help": "fonction interdite dans le bac à sable : help",
    "input": "fonction indisponible dans le bac à sable : input (pas d'entrée standard)",
}


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def attribute_refusal(name: str) -> str | None:
    """French reason why attribute ``name`` may not be read or written, or None."""
    if (is_dunder(name) and name not in SAFE_DUNDER_ATTRS) or name in FORBIDDEN_ATTRS:
        hint = " (utilisez type(x))" if name == "__class__" else ""
        return f"attribut interdit dans le bac à sable : {name}{hint}"
    return None


def name_refusal(name: str) -> str | None:
    """:func:`attribute_refusal` for an attribute read *by name* on the code's behalf (a class
    pattern's keyword, a format template, a reduction, ``update_wrapper``, a dataclass field):
    the attributes checked at run time (:data:`CHECKED_ATTRS`) are read only where the check
    is made, through the attribute syntax or the sandbox's ``getattr``."""
    reason = attribute_refusal(name)
    if reason is None and name in CHECKED_ATTRS:
        return f"attribut interdit dans le bac à sable par ce moyen : {name} (écrivez x.{name})"
    return reason


def format_refusal(template: str) -> str | None:
    """French reason why a ``str.format`` template is refused (attribute walk), or None."""
    import _string

    # str.format reads one level of nested fields in a format spec ("{0:{1}}") and refuses a
    # deeper one (« Max string recursion exceeded »): two levels are read here, so the cost is
    # linear in the template (a deeper spec would make str.format raise anyway).
    pending = [(template, 0)]
    while pending:
        text, level = pending.pop()
        try:
            parts = list(_string.formatter_parser(text))
        except (ValueError, TypeError):
            return None  # not a valid template: str.format would raise anyway
        for _literal, field, spec, _conversion in parts:
            if field:
                try:
                    _first, rest = _string.formatter_field_name_split(field)
                    steps = list(rest)
                except (ValueError, TypeError):
                    return None
                for is_attribute, key in steps:
                    if is_attribute and name_refusal(str(key)):
                        return f"chaîne de format interdite dans le bac à sable : accès à l'attribut {key}"
            if spec and "{" in spec and level < 2:
                pending.append((spec, level + 1))
    return None


def _bound_name(node: ast.AST):
    """The name ``node`` binds, if any (assignment target, argument, def, import, ...)."""
    if isinstance(node, ast.Name):
        return None if isinstance(node.ctx, ast.Load) else node.id
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.alias):
        return (node.asname or node.name).split(".")[0]
    if isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        return node.name
    if isinstance(node, ast.MatchMapping):
        return node.rest
    return None


def _line(node: ast.AST) -> str:
    line = getattr(node, "lineno", None)
    return f" (ligne {line})" if line else ""


_AST = ast.AST
_CAPTURES = (ast.MatchAs, ast.MatchStar, ast.MatchMapping)
MAX_CAPTURES = 100  # names one case pattern binds
# Nodes that compile to a code object of their own. CPython 3.11 merges a scope's constants in
# a table where code objects that differ only by their line hash alike without being equal:
# compiling n identical bodies takes time quadratic in n (22,000 ``lambda: 0``: 9 s of the
# caller's CPU, which compiles). Capped: 2,000 compile in well under a tenth of a second.
_CODE_NODES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ListComp,
               ast.SetComp, ast.DictComp, ast.GeneratorExp)
MAX_CODE_NODES = 2_000
# What the compiler folds into constants: ``'😀' * 4096`` becomes a 16 kB string, and a sum of
# them is folded in time quadratic in its terms (400 terms, 4,400 characters: 1.4 s of the
# caller's CPU, which compiles). An upper bound of every folded result, intermediate ones
# included, is capped before compiling (the compiled job is capped too, see _plan).
MAX_FOLDED_BYTES = 8 * 1024 * 1024
_STR_FOLD, _TUPLE_FOLD = 4096, 256  # CPython 3.11 folds s * n up to these lengths
_DISPLAYS = (ast.List, ast.Tuple, ast.Set)
_BINDERS = (ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.alias,
            ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)


def analyse(tree: ast.AST, imports: set | None = None) -> tuple[list[str], bool]:
    """One pass over a parsed tree: ``(refusal reasons, reads an attribute of CHECKED_ATTRS)``.

    Reasons are French, one per problem, in source order. The allowed modules the tree
    imports are added to ``imports`` when given.
    """
    found: list[tuple[int, str]] = []
    bound: set[str] = set()
    builtin_loads: list[ast.Name] = []
    uses_format = False
    code_nodes = 0
    binops: list[ast.BinOp] = []

    def refuse(node: ast.AST, reason: str) -> None:
        found.append((getattr(node, "lineno", 0), reason + _line(node)))

    stack = [(tree, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        kind = type(node)
        if kind is ast.Constant:  # the most frequent node: only strings need a look
            if type(node.value) is str and "{" in node.value:
                reason = format_refusal(node.value)
                if reason:
                    refuse(node, reason)
            continue
        if depth > MAX_DEPTH:
            return [f"code trop profondément imbriqué (profondeur supérieure à {MAX_DEPTH})"], False
        if kind in _DISPLAYS and all(type(e) is ast.Constant for e in node.elts):
            for element in node.elts:  # a literal list of numbers or strings: no descent
                if type(element.value) is str and "{" in element.value:
                    push((element, depth + 1))
            continue
        if kind is ast.Name:
            if node.id in FORBIDDEN_NAMES or node.id.startswith("__sandbox"):
                refuse(node, f"nom interdit dans le bac à sable : {node.id}")
            if type(node.ctx) is not ast.Load:
                bound.add(node.id)
            elif node.id in DANGEROUS_BUILTINS:
                builtin_loads.append(node)
            continue
        if kind is ast.Attribute:
            reason = attribute_refusal(node.attr)
            if reason:
                refuse(node, reason)
            # a read of CHECKED_ATTRS, or any write: both are checked at run time (_rewrite)
            uses_format = uses_format or node.attr in CHECKED_ATTRS or type(node.ctx) is not ast.Load
        elif kind is ast.Import:
            for alias in node.names:
                if alias.name not in ALLOWED_MODULES:
                    refuse(node, f"module non autorisé dans le bac à sable : {alias.name}")
                elif imports is not None:
                    imports.add(alias.name)
        elif kind is ast.ImportFrom:
            if node.level:
                refuse(node, "import relatif interdit dans le bac à sable")
            elif node.module not in ALLOWED_MODULES:
                refuse(node, f"module non autorisé dans le bac à sable : {node.module}")
            else:
                if imports is not None:
                    imports.add(node.module)
                for alias in node.names:
                    if alias.name.startswith("_"):
                        refuse(node, f"nom privé interdit dans le bac à sable : "
                                     f"{node.module}.{alias.name}")
        elif kind is ast.comprehension and any(type(part) is ast.Attribute
                                               for part in ast.walk(node.target)):
            # an attribute written by a comprehension cannot go through the run-time check
            # of writes (_rewrite: a comprehension holds no statement)
            refuse(node.target, "une compréhension n'écrit pas dans un attribut dans le bac à "
                                "sable : écrivez une boucle for")
        elif kind is ast.match_case:
            # CPython 3.11 compiles a pattern in time and memory quadratic in its captures
            # (6,000 names: 2.6 GB in the caller, which compiles the code): capped.
            captures = sum(1 for part in ast.walk(node.pattern)
                           if type(part) in _CAPTURES and _bound_name(part))
            if captures > MAX_CAPTURES:
                refuse(node.pattern, f"motif trop grand dans le bac à sable : {captures} noms "
                                     f"capturés (au plus {MAX_CAPTURES})")
        elif kind is ast.MatchClass:
            # A class pattern reads attributes itself (no ast.Attribute): keyword patterns by
            # the names written, checked like attributes; positional ones by the names the
            # class lists in __match_args__, which the code can build at run time (and a
            # built-in name like int can be rebound at run time, by eval('(int := C)')):
            # refused, with the equivalent spellings.
            for name in node.kwd_attrs:
                reason = name_refusal(name)
                if reason:
                    refuse(node, reason)
            if node.patterns:
                refuse(node, "motif de classe positionnel interdit dans le bac à sable : "
                             "écrivez case int() as n: ou nommez les attributs "
                             "(case Point(x=0, y=y):)")
        elif isinstance(node, _BINDERS):
            name = _bound_name(node)
            if name:
                # def, class, import ... as, except ... as, an argument, a capture: the same
                # names as an assignment (a def __sandbox_format__ would answer for every
                # x.format the rewriting turns into a call of that helper)
                if name.startswith("__sandbox"):
                    refuse(node, f"nom interdit dans le bac à sable : {name}")
                bound.add(name)
        if (kind is ast.Call or kind is ast.ClassDef) and len(node.keywords) > MAX_KEYWORDS \
                or kind is ast.MatchClass and len(node.kwd_attrs) > MAX_KEYWORDS:
            count = len(node.kwd_attrs) if kind is ast.MatchClass else len(node.keywords)
            refuse(node, f"trop d'arguments nommés dans un appel ({count}, au plus "
                         f"{MAX_KEYWORDS}) : passez un dictionnaire")
        if kind is ast.BinOp:
            binops.append(node)
        if isinstance(node, _CODE_NODES):
            code_nodes += 1
            if code_nodes == MAX_CODE_NODES + 1:
                refuse(node, f"trop de fonctions, classes et compréhensions (plus de "
                             f"{MAX_CODE_NODES}) : regroupez-les")
        for field in node._fields:  # children, without ast.iter_child_nodes' overhead
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        push((item, depth + 1))
            elif isinstance(value, _AST):
                push((value, depth + 1))
    for node in builtin_loads:  # a builtin the code never redefines
        if node.id not in bound:
            refuse(node, DANGEROUS_BUILTINS[node.id])
    folded = _folded_bytes(binops)
    if folded > MAX_FOLDED_BYTES:
        refuse(min(binops, key=lambda node: node.lineno),
               f"constantes trop grandes pour le compilateur, qui les calcule d'avance (jusqu'à "
               f"{folded / 1e6:.0f} Mo, au plus {MAX_FOLDED_BYTES / 1e6:.0f} Mo) : "
               "construisez-les à l'exécution (dans une fonction)")

    found.sort(key=lambda item: item[0])
    unique = list(dict.fromkeys(reason for _, reason in found))  # linear, in source order
    if len(unique) > MAX_REASONS:
        unique = unique[:MAX_REASONS] + [f"… et {len(unique) - MAX_REASONS} autres refus"]
    return unique, uses_format


def check_tree(tree: ast.AST) -> list[str]:
    """Reasons (French, one per problem, in source order) to refuse an already parsed tree."""
    return analyse(tree)[0]


MAX_FSTRING_CHARS = 10_000  # CPython 3.11 parses one f-string in time quadratic in its length
_FSTRING_START = re.compile(r"""(?<![A-Za-z0-9_])(?:[fF][rR]?|[rR][fF])('{3}|"{3}|'|")""")


# The body of a string after its opening quote, up to (not including) what ends it: the same
# quote unescaped, or for one quote an unescaped end of line. A backslash escapes any character,
# a newline too (a continued line: the string goes on). Written as an unrolled loop (plain
# characters, then an escape or a lone quote and plain characters again): no two ways to read
# a character and nothing after the loop, so the engine never backtracks and reads each
# character once (possessive quantifiers would say so too, but Python 3.10 has none).
_STRING_BODY = {
    "'": re.compile(r"[^'\\\n]*(?:\\.[^'\\\n]*)*", re.DOTALL),
    '"': re.compile(r'[^"\\\n]*(?:\\.[^"\\\n]*)*', re.DOTALL),
    "'''": re.compile(r"[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*", re.DOTALL),
    '"""': re.compile(r'[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*', re.DOTALL),
}


def fstring_spans(code: str):
    """``(start, end)`` of every f-string literal of ``code``, from its prefix to its closing
    quote (excluded). A start inside a comment or another string is measured too, which can
    only lengthen a span (a refusal), never hide a long f-string of Python 3.11, the version
    whose parser is quadratic in an f-string's length. From 3.12 (PEP 701) a field may hold
    the f-string's own quote, which ends a span early: a long f-string may go unmeasured there,
    where the parser reads it in linear time (0.2 s for 100,000 characters, measured).

    Linear: two spans of the same quote kind never overlap (a body ends at the first unescaped
    quote of its kind, and a start of that kind holds one), so each character lies in at most
    four spans, one per kind, and each body is read once."""
    for match in _FSTRING_START.finditer(code):
        body = _STRING_BODY[match.group(1)].match(code, match.end())
        yield match.start(), body.end()


def _longest_fstring(code: str) -> int:
    """The length of the longest f-string literal of ``code`` (see :func:`fstring_spans`)."""
    return max((end - start for start, end in fstring_spans(code)), default=0)


def _fold(node, memo: dict):
    """``(kind, bytes)`` of the constant CPython 3.11 would fold ``node`` into (an upper
    bound of its size), or None when it folds nothing. Linear: each node is read once."""
    key = id(node)
    if key in memo:
        return memo[key]
    result = None
    kind = type(node)
    if kind is ast.Constant:
        value = node.value
        if type(value) is str:
            result = ("str", 4 * len(value))
        elif type(value) is bytes:
            result = ("bytes", len(value))
        elif type(value) in (int, float, complex, bool) or value is None:
            result = ("num", 0)
    elif kind is ast.UnaryOp:
        inner = _fold(node.operand, memo)
        result = inner if inner is not None and inner[0] == "num" else None
    elif kind is ast.Tuple and type(node.ctx) is ast.Load:
        parts = [_fold(element, memo) for element in node.elts]
        if all(part is not None for part in parts):
            result = ("tuple", 8 * len(parts) + sum(part[1] for part in parts))
    elif kind is ast.Subscript and type(node.ctx) is ast.Load:
        base, index = _fold(node.value, memo), _fold(node.slice, memo)
        result = base if base is not None and index is not None else None
    elif kind is ast.BinOp:
        left, right = _fold(node.left, memo), _fold(node.right, memo)
        if left is not None and right is not None:
            op = type(node.op)
            if left[0] == "num" and right[0] == "num":
                result = ("num", 0)  # ints are folded up to 128 bits only
            elif op is ast.Add and left[0] == right[0]:
                result = (left[0], left[1] + right[1])  # str + str: no size limit
            elif op is ast.Mult and (left[0] == "num") != (right[0] == "num"):
                sequence = right if left[0] == "num" else left
                if sequence[0] == "tuple":
                    result = ("tuple", 8 * _TUPLE_FOLD + sequence[1])
                else:
                    result = (sequence[0], (4 if sequence[0] == "str" else 1) * _STR_FOLD)
    memo[key] = result
    return result


def _folded_bytes(binops: list) -> int:
    """Sum of the sizes of what the compiler would fold at these operations (each result,
    intermediate ones included: a folded sum copies every partial result)."""
    memo: dict = {}
    total = 0
    for node in binops:
        folded = _fold(node, memo)
        if folded is not None and folded[0] != "num":
            total += folded[1]
    return total


# CPython's parser (3.11, 3.12) takes time quadratic in the nesting of starred displays in a
# statement ([*[*[*...]]]): 166 lines nested 199 deep held the caller 0.9 s. Counted first (a
# star before a bracket, anywhere: a few in honest code), measured exactly only past the cap.
MAX_STARRED_NESTING = 20
_STARRED_OPENING = re.compile(r"\*\s*[\[({]")


def _starred_nesting(code: str) -> int:
    """The deepest nesting of brackets opened right after ``*`` or ``**``, from the tokens
    (strings and comments skipped): linear in the source."""
    stack: list[bool] = []
    depth = deepest = 0
    starred = False
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.OP:
                if token.string in ("(", "[", "{"):
                    stack.append(starred)
                    depth += starred
                    deepest = max(deepest, depth)
                    if deepest > MAX_STARRED_NESTING:
                        break  # refused: the rest need not be read
                elif token.string in (")", "]", "}") and stack:
                    depth -= stack.pop()
                starred = token.string in ("*", "**")
            elif token.type not in (tokenize.NL, tokenize.COMMENT):
                starred = False
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass  # the parser reports it
    return deepest


def parse_source(code: str, filename: str = "<solution>", mode: str = "exec"):
    """Parse ``code``; return ``(tree, None)`` or ``(None, French error)``."""
    if not isinstance(code, str):
        return None, f"le code doit être une chaîne de caractères, pas {type(code).__name__}"
    if len(code) > MAX_SOURCE_CHARS:
        return None, f"code trop long ({len(code)} caractères, maximum {MAX_SOURCE_CHARS})"
    if (longest := _longest_fstring(code)) > MAX_FSTRING_CHARS:  # linear: no quick test
        return None, (f"f-string trop longue ({longest} caractères, maximum "
                      f"{MAX_FSTRING_CHARS}) : découpez-la")
    if len(_STARRED_OPENING.findall(code)) > MAX_STARRED_NESTING \
            and (deepest := _starred_nesting(code)) > MAX_STARRED_NESTING:
        return None, (f"code trop imbriqué : {deepest} déballages (*) imbriqués les uns dans les "
                      f"autres (au plus {MAX_STARRED_NESTING})")
    try:
        with warnings.catch_warnings(module=warnings):  # SyntaxWarnings of the code: not the caller's output
            warnings.simplefilter("ignore")
            return ast.parse(code, filename=filename, mode=mode), None
    except SyntaxError as exc:
        return None, f"erreur de syntaxe ligne {exc.lineno} : {exc.msg}"
    except (ValueError, MemoryError, RecursionError):
        return None, "code illisible : trop complexe ou caractères invalides"


def static_check(code: str) -> list[str]:
    """Refusal reasons for ``code`` in French; an empty list means the code may run.

    A syntax error is reported as one reason (the code cannot run either).
    """
    tree, error = parse_source(code)
    if error:
        return [error]
    return check_tree(tree)
