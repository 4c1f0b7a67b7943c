"""Command line: ``python -m course_utils {run,exercises,grade} ...``.

Each sub-command lives in the module named after it; this file only dispatches.
"""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "run": ("course_utils.runner", "Exécute tous les notebooks sans interface (Papermill)."),
    "refresh": ("course_utils.runner:refresh_main",
                "Ré-exécute notebooks/ et solutions/ hors ligne (sorties à committer)."),
    "exercises": ("course_utils.grading.exercises", "Génère exercises/ à partir de solutions/."),
    "grade": ("course_utils.grading.grader", "Note des rendus d'étudiants."),
}


def _usage() -> str:
    lines = ["usage : python -m course_utils COMMANDE [options]", "", "commandes :"]
    lines += [f"  {name:<10} {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help"}:
        print(_usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"commande inconnue : {name}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, _, function = COMMANDS[name][0].partition(":")
    entry = getattr(importlib.import_module(module_name), function or "main")
    return int(entry(rest) or 0)


if __name__ == "__main__":
    sys.exit(main())
