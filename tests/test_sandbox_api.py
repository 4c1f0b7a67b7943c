"""The sandbox's public API: results a user reads, both modes, lifecycle, real code accepted."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from course_utils.sandbox import Sandbox, SandboxResult, TestFailure, run_tests, static_check

ROOT = Path(__file__).resolve().parents[1]

FIZZBUZZ = """
def fizzbuzz(n):
    out = []
    for i in range(1, n + 1):
        if i % 15 == 0:
            out.append('FizzBuzz')
        elif i % 3 == 0:
            out.append('Fizz')
        elif i % 5 == 0:
            out.append('Buzz')
        else:
            out.append(i)
    return out
"""


@pytest.fixture(scope="module", params=["fork", "spawn"])
def box(request):
    if request.param == "fork" and not hasattr(os, "fork"):
        pytest.skip("pas de fork sur ce système")
    with Sandbox(mode=request.param) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def fork_box():
    with Sandbox() as sandbox:
        yield sandbox


def test_expression_tests_are_scored_one_by_one(box):
    result = box.run(FIZZBUZZ, ["fizzbuzz(5) == [1, 2, 'Fizz', 4, 'Buzz']",
                                "fizzbuzz(3) == [1, 2, 3]", "len(fizzbuzz(15)) == 15"])
    assert (result.passed, result.total, result.ok, result.error) == (2, 3, False, None)
    assert result.failures == (TestFailure("fizzbuzz(3) == [1, 2, 3]",
                                           "obtenu [1, 2, 'Fizz'], attendu [1, 2, 3]"),)


def test_assertion_program_is_scored_as_one_test_with_its_line(box):
    program = "def check(candidate):\n    assert candidate(3) == [1, 2, 'Fizz']\n" \
              "    assert candidate(1) == [2]\ncheck(fizzbuzz)\n"
    result = box.run(FIZZBUZZ, program)
    assert (result.passed, result.total) == (0, 1)
    reason = result.failures[0].reason
    assert "ligne 3 du test" in reason and "obtenu [1], attendu [2]" in reason
    assert box.run(FIZZBUZZ, "assert fizzbuzz(3)[-1] == 'Fizz'\n").ok


def test_membership_and_identity_tests(box):
    code = "def pal(s):\n    return 'bab'\ndef nothing():\n    return None\n"
    result = box.run(code, ["pal('babad') in ('bab', 'aba')", "nothing() is None",
                            "pal('x') in ('y', 'z')"])
    assert result.passed == 2
    assert "attendu une valeur parmi ('y', 'z')" in result.failures[0].reason


def test_one_expression_given_as_a_string_is_an_expression_test(box):
    assert box.run("def f():\n    return 1\n", "f() == 2").failures[0].reason == \
        "obtenu 1, attendu 2"


def test_errors_say_what_and_where_in_french(box):
    result = box.run("def f(x):\n    return 1 / x\n", ["f(0) == 1", "f(1) == 1"])
    assert result.passed == 1
    assert result.failures[0].reason.startswith("erreur : ZeroDivisionError")
    assert "(ligne 2 de votre code)" in result.failures[0].reason
    syntax = box.run("def f(:\n    pass\n", ["f()"])
    assert syntax.error.startswith("erreur de syntaxe ligne 1")
    load = box.run("x = 1 / 0\n", ["True"])
    assert load.error.startswith("erreur au chargement du code : ZeroDivisionError")
    bad = box.run("x = 1\n", ["x =="])
    assert bad.error.startswith("test invalide")


def test_refusals_and_output(box):
    refused = box.run("import os\n", ["True"])
    assert refused.error == "code refusé : module non autorisé dans le bac à sable : os (ligne 1)"
    printed = box.run("print('bonjour', 42)\nx = 1\n", ["x == 1"])
    assert printed.ok and printed.output == "bonjour 42\n"


def test_real_code_is_not_refused(box):
    code = """
import collections, dataclasses, enum, functools, heapq, itertools, json, math, re
from typing import List, NamedTuple
from math import *
P = collections.namedtuple('P', 'x y')
class Q(NamedTuple):
    a: int
    b: str = 'z'
@dataclasses.dataclass(order=True)
class D:
    x: int
class Color(enum.Enum):
    RED = 1
class Base:
    def __init__(self, v):
        self.v = v
class Child(Base):
    def __init__(self, v):
        super().__init__(v * 2)
class Stack:
    def __init__(self):
        self.items = []
    def push(self, x):
        self.items.append(x)
        return self
    def pop(self):
        return self.items.pop()
def use_stack():
    return Stack().push(1).push(2).pop()
@functools.lru_cache(maxsize=None)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def summary() -> List[object]:
    counts = collections.Counter('abracadabra').most_common(1)
    return [P(1, 2), Q(3), sorted([D(2), D(1)])[0].x, Color.RED.value, Child(2).v, sqrt(16),
            counts, heapq.nsmallest(2, [5, 1, 3]), list(itertools.accumulate([1, 2, 3])),
            json.loads(json.dumps({'a': [1]})), re.sub(r'\\d', '#', 'a1b2'),
            '{:>4}'.format('a'), f'{fib(30):,}', eval('2 + 3 * 4')]
"""
    expected = ("[(1, 2), (3, 'z'), 1, 1, 4, 4.0, [('a', 5)], [1, 3], [1, 3, 6], {'a': [1]},"
                " 'a#b#', '   a', '832,040', 14]")
    result = box.run(code, [f"summary() == {expected}", "use_stack() == 2"])
    assert result.ok, result


def test_allowed_modules_outside_the_preloaded_core_work(box):
    # time (with strptime), datetime, statistics and fractions are imported by the run that
    # needs them, after the child's file limits are set: nothing is written, nothing refused.
    code = """
import time, datetime, statistics, fractions, random
def parsed():
    return time.strptime("2024-03-05", "%Y-%m-%d").tm_yday
def days():
    return (datetime.date(2024, 3, 5) - datetime.date(2024, 1, 1)).days
def middle():
    return statistics.median([3, 1, 2]), str(fractions.Fraction(3, 6))
def first():
    return random.random()
"""
    result = box.run(code, ["parsed() == 65", "days() == 64", "middle() == (2, '1/2')"])
    assert result.ok, result
    values = [box.run(code, ["first() < 0"]).failures[0].reason for _ in range(2)]
    assert values[0] == values[1]  # the first number drawn is the same in every run,
    assert repr(random.Random(0).random()) in values[0]  # the first after random.seed(0)


def test_tests_see_functions_and_plain_data_but_not_classes_or_objects(box):
    # A class or an object could lie through its methods (arithmetic, round, len...): the
    # tests see only the code's functions (plain results) and plain data.
    code = ("class Stack:\n    def push(self, x):\n        return self\n"
            "SIZE = [1, 2]\nitem = Stack()\ndef f():\n    return 3\n")
    result = box.run(code, ["Stack() is None", "item.push(1) is None", "SIZE == [1, 2]",
                            "f() == 3"])
    assert result.passed == 2
    reasons = [failure.reason for failure in result.failures]
    assert "Stack est une classe, pas une fonction" in reasons[0]
    assert "item est un objet de type Stack" in reasons[1]


def test_result_is_a_frozen_dataclass_that_prints_and_serialises(fork_box):
    result = fork_box.run(FIZZBUZZ, ["fizzbuzz(1) == [1]", "fizzbuzz(1) == [2]"])
    assert isinstance(result, SandboxResult)
    with pytest.raises(FrozenInstanceError):
        result.passed = 2
    data = json.loads(json.dumps(result.to_dict()))
    assert data["ok"] is False and data["failures"][0]["test"] == "fizzbuzz(1) == [2]"
    text = str(result)
    assert text.startswith("❌ 1/2 tests réussis") and "fizzbuzz(1) == [2] → obtenu [1]" in text
    assert str(fork_box.run(FIZZBUZZ, ["fizzbuzz(1) == [1]"])).startswith("✅ 1/1")


def test_static_check_is_exposed_in_french():
    assert static_check(FIZZBUZZ) == []
    assert static_check("import os\nprint(().__class__)\nopen('x')\n") == [
        "module non autorisé dans le bac à sable : os (ligne 1)",
        "attribut interdit dans le bac à sable : __class__ (utilisez type(x)) (ligne 2)",
        "fonction interdite dans le bac à sable : open (aucun accès aux fichiers) (ligne 3)",
    ]
    assert static_check("def f(:") == ["erreur de syntaxe ligne 1 : invalid syntax"]
    assert static_check("def f(open):\n    return open\n") == []  # a parameter, not the builtin


def test_runs_are_reproducible(box):
    code = "import random\ndef draw():\n    return [random.random(), hash('abc')]\n"
    first = box.run(code, ["draw() == 0"]).failures[0].reason
    assert first == box.run(code, ["draw() == 0"]).failures[0].reason


def test_compile_errors_are_reported_every_time(box):
    # Accepted by the parser and the static check, refused by the compiler.
    for _ in range(2):  # the second time, from the caller's cache
        code_error = box.run("return 1\n", ["True"]).error
        assert code_error == ("erreur au chargement du code : 'return' outside function "
                              "(<solution>, line 1)")
        tests_error = box.run("def f():\n    return 1\n", "return f()\n").error
        assert tests_error == ("erreur au chargement du code : 'return' outside function "
                               "(<tests>, line 1)")
    assert box.run("def f():\n    return 1\n", ["f() == 1"]).ok


def test_a_cached_program_or_test_set_gives_each_run_its_own_result(fork_box):
    double, add_three = "def f(x):\n    return x * 2\n", "def f(x):\n    return x + 3\n"
    tests, program = ["f(2) == 4"], "assert f(2) == 4\n"
    for _ in range(2):
        assert fork_box.run(double, tests).ok and fork_box.run(double, program).ok
        assert fork_box.run(add_three, tests).failures[0].reason == "obtenu 5, attendu 4"
        assert not fork_box.run(add_three, program).ok
        assert fork_box.run(double, ["f(3) == 6", "f(0) == 1"]).passed == 1


def test_two_sandboxes_in_threads_share_the_caches_safely():
    tests = ["f(7) == 7 * 7", "f(-1) == 1"]
    results = []

    def work(box, n):
        code = f"def f(x):\n    return x * x + {n} - {n}\n"
        results.extend(box.run(code, tests).ok for _ in range(4))

    with Sandbox() as first, Sandbox() as second:
        threads = [threading.Thread(target=work, args=(box, n))
                   for n, box in enumerate([first, second, first, second])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert results == [True] * 16


def test_a_job_larger_than_a_pipe_buffer_is_delivered(box):
    code = "DATA = '" + "x" * 90_000 + "'\ndef size():\n    return len(DATA)\n"
    assert box.run(code, ["size() == 90_000"]).ok


def test_an_int_past_4300_digits_is_compared_and_described(box):
    # CPython writes no int of more than 4,300 decimal digits: math.factorial(2000) returned
    # to an expression test made « le processus s'est arrêté sans rendre de résultat ».
    code = "import math\ndef f(n):\n    return math.factorial(n)\n"
    result = box.run(code, ["[f(2000), -f(3000)] == [math.factorial(2000), -math.factorial(3000)]",
                            "f(2000) == 5"])
    assert result.passed == 1 and len(result.failures) == 1, result
    assert result.failures[0].reason == "obtenu <entier de 5736 chiffres environ>, attendu 5"


def test_the_worker_rehearsal_leaves_no_trace(fork_box):
    # The worker rehearses made-up runs before forking (_worker_rehearsal): none of their
    # names, output or state reaches a real run.
    code = ("def leftovers():\n    found = []\n"
            "    for name in ('solve', 'boxed', 'divide', 'Box', 'check'):\n"
            "        try:\n            eval(name)\n            found.append(name)\n"
            "        except NameError:\n            pass\n    return found\n")
    result = fork_box.run(code, ["leftovers() == []"])
    assert result.ok and result.output == ""
    program = "for name in ('solve', 'check', 'leftovers'):\n    try:\n        eval(name)\n" \
              "        assert name == 'leftovers', name\n    except NameError:\n        pass\n"
    assert fork_box.run(code, program).ok


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS : Linux seulement")
def test_memory_limit(fork_box):
    code = "def big(n):\n    return len(bytearray(n * 1024 * 1024))\n"
    assert fork_box.run(code, ["big(64) == 64 * 1024 * 1024"], memory_mb=256).ok
    tight = fork_box.run(code, ["big(400) == 1"], memory_mb=128)
    assert "mémoire épuisée" in tight.failures[0].reason


def test_worker_starts_on_first_use_stops_at_exit_and_restarts_after_a_crash():
    with Sandbox() as sandbox:
        assert sandbox._worker is None
        assert sandbox.run("x = 1\n", ["x == 1"]).ok
        worker = sandbox._worker.proc
        worker.kill()
        worker.wait()
        assert sandbox.run("x = 2\n", ["x == 2"]).ok  # a new worker
        assert sandbox._worker.proc.pid != worker.pid
        current = sandbox._worker.proc
    assert current.wait(timeout=5) is not None


def test_caller_never_forks_and_threads_are_fine(fork_box, monkeypatch):
    def forbidden(*args):
        raise AssertionError("the caller must not fork")

    monkeypatch.setattr(os, "fork", forbidden)
    results = []

    def work(n):
        results.append(fork_box.run(f"def f():\n    return {n}\n", [f"f() == {n}"]).ok)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 6


def test_run_tests_uses_a_shared_sandbox():
    assert run_tests("def f():\n    return 3\n", ["f() == 3"], timeout=2).ok


def test_importing_the_module_starts_nothing():
    script = ("import os, sys, course_utils.sandbox as s\n"
              "tasks = os.listdir('/proc/self/task') if os.path.isdir('/proc/self/task') else [1]\n"
              "kids = open(f'/proc/self/task/{os.getpid()}/children').read().split() "
              "if os.path.isdir('/proc/self/task') else []\n"
              "print(not [m for m in sys.modules if m.startswith('course_utils.sandbox.')], "
              "len(tasks), len(kids))\n")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == ["True", "1", "0"]


def test_spawn_mode_timeout_kills_the_child():
    with Sandbox(mode="spawn") as sandbox:
        result = sandbox.run("while True:\n    pass\n", ["True"], timeout=1)
    assert result.timed_out and result.passed == 0 and "délai dépassé" in result.error


def test_bad_arguments_are_explained():
    with pytest.raises(ValueError, match="mode"):
        Sandbox(mode="thread")
    result = Sandbox(mode="spawn").run("x = 1", 42)
    assert result.error.startswith("tests doit être une liste")


def test_a_timeout_names_the_test_that_was_stuck():
    from course_utils.sandbox import run_tests

    result = run_tests("def f(n):\n    while n:\n        pass\n    return 1",
                       ["f(0) == 1", "f(1) == 1"], timeout=1)
    assert result.timed_out and result.passed == 0
    assert "pendant le test : f(1) == 1" in result.error
