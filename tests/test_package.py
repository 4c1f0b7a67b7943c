"""The package itself: importing it does no work; the command line answers in French."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys, threading, pkgutil, importlib, multiprocessing
import course_utils
heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'openai', 'httpx2', 'nbclient',
                                                              'numpy', 'matplotlib', 'papermill'})
print('heavy', heavy)
for info in pkgutil.walk_packages(course_utils.__path__, 'course_utils.'):
    if info.name != 'course_utils.__main__':
        importlib.import_module(info.name)
print('threads', threading.active_count(), 'children', len(multiprocessing.active_children()))
"""


def test_importing_the_package_does_no_work(tmp_path):
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines())
    assert lines["heavy"] == "[]"  # `import course_utils` loads nothing heavy
    assert lines["threads"] == "1 children 0"  # no module starts a thread or a process
    assert list(tmp_path.iterdir()) == []  # and none writes a file


def test_command_line_help_and_unknown_command():
    ok = subprocess.run([sys.executable, "-m", "course_utils", "--help"], capture_output=True,
                        text=True, timeout=60)
    assert ok.returncode == 0 and "exercises" in ok.stdout and "grade" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "course_utils", "noter"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "commande inconnue" in bad.stderr


def test_public_names_of_the_design_are_importable():
    from course_utils import (  # noqa: F401
        AgentRun, ChatResult, OfflineModel, Sandbox, SandboxResult, Settings, Toolbox,
        UsageLedger, chat, check, load_settings, make_client, run_agent, run_tests, setup,
        show_trace, tool,
    )
    from course_utils.sandbox import static_check  # noqa: F401


def test_names_of_the_new_packages_are_importable_from_the_top():
    """Lessons 04-06 write ``from course_utils import best_of_n``: the same objects as the
    packages' own (a function, not a module named like it)."""
    import course_utils
    from course_utils import (
        CodeProblem, EngineResult, HashingEmbedder, OpenAIEmbedder, VectorMemory, best_of_n,
        check24, code_problems, game24_puzzles, reflexion, route, self_consistency, solve24,
        tree_of_thoughts, word_problems,
    )
    from course_utils import engines, memory, problems

    assert (CodeProblem, code_problems, game24_puzzles, solve24, check24, word_problems) == (
        problems.CodeProblem, problems.code_problems, problems.game24_puzzles, problems.solve24,
        problems.check24, problems.word_problems)
    assert (EngineResult, best_of_n, self_consistency, reflexion, tree_of_thoughts, route) == (
        engines.EngineResult, engines.best_of_n, engines.self_consistency, engines.reflexion,
        engines.tree_of_thoughts, engines.route)
    assert all(callable(f) and not isinstance(f, type(course_utils))
               for f in (best_of_n, self_consistency, reflexion, tree_of_thoughts, route))
    assert (VectorMemory, HashingEmbedder, OpenAIEmbedder) == (
        memory.VectorMemory, memory.HashingEmbedder, memory.OpenAIEmbedder)
    assert {"best_of_n", "VectorMemory", "solve24"} <= set(dir(course_utils))
