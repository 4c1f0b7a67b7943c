"""Grader side: static scan of a submission's own cells for tampering primitives.

A finding never changes a mark: it marks the submission's rows ``suspect`` with French reasons,
so the instructor knows which notebooks to read by hand. The scan looks at what ordinary
exercise code has no reason to use: profile/trace hooks, ``sys.modules``, frames and tracebacks,
``gc``, ``ctypes``, audit hooks, threads and processes, dynamic code (``exec``/``eval``/
``compile``), patched builtins or modules (assigning an attribute of an imported module,
``builtins``, ``IPython.display``), kernel event hooks, ``__eq__``-style comparison overrides,
and file-system access outside the submission's folder (absolute paths, ``..``, ``__file__``,
the course's ``solutions/`` or ``course_utils/`` files). It is a heuristic: a determined student
can hide a primitive from it (``getattr`` with computed names); the grader's guarantees do not rest
on it (see :mod:`course_utils.grading.grader`). What the solution's own cells (the lesson's
provided code) already use is not reported: a lesson that teaches ``exec`` does not make every
submission suspect.
"""

from __future__ import annotations

import ast
import re

_MODULES = {
    "gc": "module gc (accès aux objets du noyau)",
    "ctypes": "module ctypes (accès mémoire)",
    "inspect": "module inspect (cadres d'exécution)",
    "threading": "threads",
    "_thread": "threads",
    "multiprocessing": "processus",
    "subprocess": "processus",
    "signal": "signaux",
    "builtins": "module builtins",
    "importlib": "import dynamique",
    "traceback": "pile d'exécution",
    "shutil": "fichiers (shutil)",
    "glob": "parcours de fichiers",
    "socket": "réseau",
    "pickle": "désérialisation",
    "marshal": "code compilé",
    "dis": "code compilé",
}
_ATTRIBUTES = {
    "setprofile": "crochet de profilage (setprofile)",
    "settrace": "crochet de traçage (settrace)",
    "addaudithook": "crochet d'audit",
    "modules": "sys.modules",
    "_getframe": "cadres d'exécution (sys._getframe)",
    "currentframe": "cadres d'exécution",
    "f_back": "cadres d'exécution (f_back)",
    "f_globals": "cadres d'exécution (f_globals)",
    "f_locals": "cadres d'exécution (f_locals)",
    "tb_frame": "cadres d'exécution (traceback)",
    "gi_frame": "cadres d'exécution (générateur)",
    "get_referrers": "gc.get_referrers",
    "get_objects": "gc.get_objects",
    "publish_display_data": "fonction d'affichage du noyau",
    "events": "événements du noyau (get_ipython().events)",
    "register": "enregistrement d'un crochet",
    "__code__": "code d'une fonction",
    "__globals__": "espace de noms d'une fonction",
    "__builtins__": "builtins",
    "__subclasses__": "introspection des classes",
    "system": "commande système",
    "popen": "commande système",
    "chdir": "changement de dossier",
    "walk": "parcours de fichiers",
    "listdir": "parcours de fichiers",
    "scandir": "parcours de fichiers",
    "rglob": "parcours de fichiers",
    "asdict": "dataclasses.asdict",
}
_NAMES = {
    "exec": "exécution dynamique de code (exec)",
    "eval": "exécution dynamique de code (eval)",
    "compile": "compilation dynamique de code",
    "__import__": "import dynamique",
    "globals": "espace de noms global",
    "vars": "espace de noms",
    "breakpoint": "débogueur",
    "__file__": "chemin des fichiers du cours (__file__)",
}
_DUNDERS = {"__eq__", "__ne__", "__hash__", "__bool__", "__len__", "__getattr__",
            "__getattribute__", "__instancecheck__", "__subclasscheck__", "__class__",
            "__float__", "__int__", "__index__", "__round__", "__contains__"}
_OUTSIDE = re.compile(r"(^/|^[A-Za-z]:[\\/]|^~|(^|[\\/])\.\.([\\/]|$)|solutions|course_utils[\\/])")
_MAGIC = re.compile(r"^\s*[%!]")


def scan_source(source: str) -> list[str]:
    """French reasons for the tampering primitives found in one cell (empty when clean)."""
    text = "\n".join("pass" if _MAGIC.match(line) else line for line in source.split("\n"))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found: list[str] = []
    modules: set[str] = set()

    def add(reason: str) -> None:
        if reason not in found:
            found.append(reason)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                modules.add(alias.asname or alias.name.split(".")[0])
                root = alias.name.split(".")[0]
                if root in _MODULES:
                    add(_MODULES[root])
        elif isinstance(node, ast.ImportFrom):
            root = (node.module or "").split(".")[0]
            if root in _MODULES:
                add(_MODULES[root])
            if (node.module or "").startswith("course_utils.grading."):
                add("import des internes du correcteur")
            for alias in node.names:
                if alias.name in _ATTRIBUTES:
                    add(_ATTRIBUTES[alias.name])
        elif isinstance(node, ast.Attribute):
            if node.attr in _ATTRIBUTES:
                add(_ATTRIBUTES[node.attr])
            if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and (
                    node.value.id in modules):
                add(f"modifie le module {node.value.id} ({node.value.id}.{node.attr} = …)")
        elif isinstance(node, ast.Name) and node.id in _NAMES:
            add(_NAMES[node.id])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in _DUNDERS:
            add(f"redéfinit {node.name} (comparaisons ou conversions truquées ?)")
        elif isinstance(node, ast.FunctionDef) and node.name in ("exec", "print", "display",
                                                                 "open", "compile", "check"):
            add(f"masque la fonction {node.name}")
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name in ("open", "Path", "read_text", "read_bytes", "write_text", "write_bytes",
                        "remove", "unlink", "rmtree", "rename", "replace"):
                for arg in node.args[:1]:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and (
                            _OUTSIDE.search(arg.value)):
                        add(f"accès à un fichier hors du dossier du rendu ({arg.value[:60]})")
            if name in ("setattr", "delattr"):
                add(f"{name} sur un objet")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                "solutions/" in node.value or "course_utils/" in node.value
                or node.value.endswith(".ipynb")):
            add(f"chemin des fichiers du cours ({node.value[:60]})")
    return found


def scan_cells(cells) -> list[str]:
    """Reasons found in a notebook's student code cells, each once, in order."""
    reasons: list[str] = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        for reason in scan_source(str(cell.get("source", ""))):
            if reason not in reasons:
                reasons.append(reason)
    return reasons
