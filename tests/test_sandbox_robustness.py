"""No wedge, bounded caller cost, a results channel that carries only the protocol (issue 15).

Mechanisms, never the clock: a stopped worker makes the run return a French error and is
replaced; the format-template check parses a bounded number of times whatever the nesting;
refusals are capped; values that would make the caller rebuild a hash-colliding set are refused;
records without the run's nonce and sequence are not results.
"""

from __future__ import annotations

import os
import signal
import sys

import pytest

from course_utils.sandbox import (
    Sandbox,
    _client,
    _jobpipe,
    _plain,
    _plan,
    _static,
    _supervisor,
    _worker,
)

posix = pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="POSIX seulement")
HONEST = ("def double(x):\n    return 2 * x\n", ["double(21) == 42"])


def _spares(box) -> list[int]:
    """Pids of the spare children forked ahead (their replies read now)."""
    client = box._worker
    while client.asked:
        client._read_reply()
    return [pid for pid, _job, _channel in client.spares]


@pytest.fixture
def short_deadline(monkeypatch):
    monkeypatch.setattr(_client, "REPLY_DEADLINE", 1.0)


# --- no wedge ------------------------------------------------------------------------------

@posix
def test_a_stopped_worker_is_killed_and_replaced(short_deadline):
    with Sandbox() as box:
        assert box.run(*HONEST).ok
        first = box._worker.proc
        # The spares ready in advance are used up, then the worker must answer.
        for _ in range(_worker.SPARES + _worker.BATCH + 1):
            os.kill(first.pid, signal.SIGSTOP)
            result = box.run(*HONEST)
            if not result.ok:
                break
        assert not result.ok and "ne répond plus" in result.error, result
        assert first.poll() is not None  # killed (SIGKILL ends a stopped process)
        assert box.run(*HONEST).ok and box._worker.proc.pid != first.pid


@posix
def test_stopped_spares_end_as_runs_without_result_and_the_sandbox_goes_on(short_deadline):
    with Sandbox() as box:
        assert box.run(*HONEST).ok
        stopped = _spares(box)
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        big = "DATA = '" + "x" * 90_000 + "'\ndef double(x):\n    return 2 * x\n"
        result = box.run(big, HONEST[1], timeout=1)  # the job does not fit in a pipe buffer
        assert not result.ok
        assert result.timed_out or "sans rendre de résultat" in result.error, result
        for _ in stopped[1:]:  # the other stopped spares: each killed by the timeout
            later = box.run(*HONEST, timeout=1)
            assert later.timed_out, later
        assert box.run(*HONEST).ok  # fresh spares


@posix
def test_a_child_stopped_during_its_run_is_killed_by_the_timeout():
    with Sandbox() as box:
        assert box.run(*HONEST).ok
        spare = _spares(box)[0]  # the next run goes to the oldest spare
        os.kill(spare, signal.SIGSTOP)
        result = box.run(*HONEST, timeout=1)
        assert result.timed_out and box._worker.last_exit.startswith("SIGKILL"), result
        assert box.run(*HONEST).ok


def test_a_sigstop_from_the_code_is_refused(tmp_path):
    code = "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\ndef f():\n    return 1\n"
    with Sandbox() as box:
        assert box.run(code, ["f() == 1"]).passed == 0
        assert box.run(*HONEST).ok


# --- bounded caller cost -------------------------------------------------------------------

def test_nested_format_specs_are_read_a_bounded_number_of_times(monkeypatch):
    import _string

    calls = []
    real = _string.formatter_parser

    def counting(text):
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(_string, "formatter_parser", counting)
    for depth in (10, 1_000, 40_000):
        calls.clear()
        template = "{0:" * depth + "}" * depth
        assert _static.format_refusal(template) is None
        assert len(calls) <= 3  # str.format itself reads no deeper than two levels
    assert _static.format_refusal("{0:{1.__class__}}") is not None  # what it must still see


def test_many_refusals_are_reported_once_each_and_capped():
    code = "\n".join(f"x{i} = y.__class__" for i in range(5_000))
    reasons = _static.static_check(code)
    assert len(reasons) == _static.MAX_REASONS + 1 and reasons[-1].startswith("… et ")


def test_oversized_inputs_are_refused_in_french():
    box = Sandbox(mode="spawn")  # refused before anything starts
    long_code = box.run("x = 1\n" * 40_000, ["True"])
    assert "code trop long" in long_code.error
    many = box.run("x = 1", ["x == 1"] * 6_000)
    assert "trop de tests" in many.error
    long_tests = box.run("x = 1", ["x == " + "1" * 250_000])
    assert "tests trop longs" in long_tests.error


def test_membership_in_a_huge_range_costs_the_caller_nothing():
    # CPython scans a range element by element for anything but an int: a function returning
    # range(10**18) to « 2.5 in f() » held the caller (uninterruptibly) for ever. A watchdog,
    # not a timing: the comparison either answers at once or never.
    import threading

    big = range(10 ** 18)
    cases = [(2.5, False), (2.0, True), (True, True), (complex(3, 0), True), (complex(3, 1), False),
             ("a", False), (None, False), ([1], False), (-1.0, False), (10 ** 17, True),
             (float("nan"), False), (float("inf"), False)]
    answers: list = []
    worker = threading.Thread(target=lambda: answers.extend(
        (_plain.compare("in", item, big), _plain.compare("not in", item, big))
        for item, _ in cases), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "membership in a range scanned it"
    assert answers == [(wanted, not wanted) for _, wanted in cases]
    assert [item in range(5) for item, _ in cases[:5]] == [w for _, w in cases[:5]]  # as Python


def test_a_value_that_cannot_be_a_set_element_fails_the_test_in_french(sandbox_box):
    result = sandbox_box.run("def f():\n    return [1]\n", ["{f()} == {1}", "f() == [1]"])
    assert result.passed == 1 and "non hachable" in result.failures[0].reason, result


def test_deep_tests_are_split_in_linear_time(monkeypatch):
    import ast

    # Each failed literal_eval walks its whole subtree: called at every level of a deep test
    # whose one leaf is a name, the split was quadratic (2.5 s of caller CPU for 200 kB).
    failed = []
    real = ast.literal_eval

    def counting(node):
        try:
            return real(node)
        except ValueError:
            failed.append(node)
            raise

    monkeypatch.setattr(ast, "literal_eval", counting)
    depth = 150
    test = "[" * depth + "1, " * 500 + "x" + "]" * depth
    tree = ast.parse(test, mode="eval")
    probes: list = []
    skeleton = _plan._split(tree.body, probes, _plan.literal_candidates(tree.body))
    assert failed == []  # literal_eval is only asked where it succeeds
    assert len(probes) == 1 and skeleton[0] == "list"


def test_a_pattern_with_thousands_of_captures_is_refused_before_it_is_compiled():
    # CPython 3.11 compiles a pattern in memory quadratic in its captures: 30,000 names (under
    # the code's size cap) took the caller to 24 GB. Refused by the static check, which runs
    # before any compilation.
    def pattern(n, mapping=False):
        names = (f"{i}: a{i}" for i in range(n)) if mapping else (f"a{i}" for i in range(n))
        opened, closed = ("{", "}") if mapping else ("[", "]")
        return (f"def g(x):\n    match x:\n        case {opened}" + ", ".join(names)
                + f"{closed}:\n            return 1\n    return 0\n")

    assert _static.static_check(pattern(_static.MAX_CAPTURES)) == []
    for code in (pattern(6_000), pattern(3_000, mapping=True)):
        reasons = _static.static_check(code)
        assert len(reasons) == 1 and "motif trop grand" in reasons[0], reasons


def test_a_record_with_an_impossible_number_is_unreadable():
    plan = _plan.make_plan("def f():\n    return 1\n", ["f() == 2"], timeout=1, memory_mb=64)
    record = {"k": "test", "i": 0, "p": [["v", ["c", [10 ** 400, 0]]]]}
    assert _supervisor._judge(plan, 0, record, {}) == "résultat illisible"


def test_the_plan_caches_are_bounded_in_characters():
    for i in range(60):
        _plan.make_plan("def f():\n    return 1\n", [f"f() == {i}" + " or f() == 1" * 2_000],
                        timeout=1, memory_mb=64)
    cache = _plan._TESTS_CACHE
    assert cache.used <= _plan.CACHE_CHARS and len(cache.items) <= _plan.CACHE_SIZE
    assert cache.used == sum(chars for _, chars in cache.items.values())


def test_a_code_plan_is_weighed_again_once_the_caller_compiles_it():
    # Weighed by its source when first planned, a plan then got its compiled code (4,350
    # characters made 7.9 MB): 229 such plans held 1.8 GB of the caller (round 25).
    cache = _plan._CODE_CACHE
    for size in (40, 400):  # kept, then too heavy to keep
        code = "C = (" + "".join(f"'{chr(0x20000 + size + i)}' * 4096, " for i in range(size)) \
            + ")\ndef f():\n    return 1\n"
        plan = _plan.make_plan(code, ["f() == 1"], timeout=1, memory_mb=64)
        plan.code_plan.compiles_quickly = True  # as after a child compiled it in time
        (blob, _tests), error = _plan.fork_blobs(plan)
        assert error is None and len(blob) > 40 * len(code)
        if len(blob) // 40 <= cache.chars // 8:
            assert cache.items[code][1] == len(blob) // 40
        else:  # too heavy to keep: planned again when it comes back
            assert code not in cache.items
        assert cache.used == sum(chars for _, chars in cache.items.values())


def test_the_supervisor_refuses_to_rebuild_a_hash_flood():
    colliding = [i * (2 ** 61 - 1) for i in range(1, 200)]  # all hash to 0
    for tag in ("s", "fs"):
        with pytest.raises(ValueError, match="collisions"):
            _plain.decode([tag, colliding])
    with pytest.raises(ValueError, match="collisions"):
        _plain.decode(["d", [[k, 1] for k in colliding]])
    assert _plain.decode(["s", list(range(1000))]) == set(range(1000))  # ordinary sets pass


def test_a_hash_flood_from_the_code_is_judged_unreadable(sandbox_box):
    code = "def f():\n    return {i * (2 ** 61 - 1) for i in range(1, 400)}\n"
    result = sandbox_box.run(code, ["f() == f()"])
    assert result.passed == 0 and "illisible" in result.failures[0].reason, result


@pytest.fixture(scope="module")
def sandbox_box():
    with Sandbox() as box:
        yield box


def test_exact_types_in_plain_data():
    class Meta(type):
        def __eq__(cls, other):
            return True

        __hash__ = type.__hash__

    class Liar(metaclass=Meta):
        pass

    assert Liar == int  # the lie, on the caller's side  # noqa: E721
    with pytest.raises(_plain.PlainValueError):
        _plain.to_plain(Liar())
    with pytest.raises(_plain.PlainValueError):
        _plain.compare("==", Liar(), 3)


# --- the results channel carries only the protocol ------------------------------------------

class _FakeHandle:
    started = True

    def __init__(self, chunks):
        self.chunks = list(chunks)

    def recv(self, timeout):
        return self.chunks.pop(0) if self.chunks else b""

    def kill(self):
        pass

    def wait(self, need_status=True):
        return "code de sortie 0"


def _frame(record: dict) -> bytes:
    import json

    data = json.dumps(record).encode("ascii")
    return len(data).to_bytes(4, "big") + data


@pytest.mark.parametrize("records", [
    [{"k": "done"}],  # no nonce at all
    [{"k": "done", "n": 1234, "s": 0}],  # a guessed nonce
    [{"k": "loaded", "n": 77, "s": 0}, {"k": "done", "n": 77, "s": 5}],  # a gap in the sequence
    [{"k": "done", "n": 77, "s": 1}],  # not the first record
    [{"k": "done", "n": 77.0, "s": 0}],  # not an exact int
    [{"k": "done", "n": True, "s": 0}],
], ids=["no-nonce", "wrong-nonce", "gap", "late", "float-nonce", "bool-nonce"])
def test_records_without_the_runs_nonce_and_sequence_are_not_results(records):
    out = _supervisor.collect(_FakeHandle([b"".join(map(_frame, records))]), 5.0, 5.0, nonce=77)
    assert out.problem == "malformed" and not out.done


def test_raw_bytes_on_the_channel_make_the_run_unreadable():
    out = _supervisor.collect(_FakeHandle([b"\x00\x00\x00\x02{}"]), 5.0, 5.0, nonce=77)
    assert out.problem == "malformed"
    good = [{"k": "loaded", "n": 77, "s": 0}, {"k": "done", "n": 77, "s": 1}]
    out = _supervisor.collect(_FakeHandle([b"".join(map(_frame, good))]), 5.0, 5.0, nonce=77)
    assert out.done and out.problem is None


def test_each_run_has_its_own_nonce():
    from course_utils.sandbox._plan import make_plan

    plans = [make_plan("x = 1", ["x == 1"], timeout=1, memory_mb=64) for _ in range(3)]
    assert len({plan.job["nonce"] for plan in plans}) == 3


def test_a_huge_f_string_is_refused_before_the_quadratic_parse():
    # CPython 3.11 parses one f-string in time quadratic in its length (190k characters: about
    # 2 s of the caller's CPU, outside any timeout): a long one is refused by a linear scan;
    # ordinary f-strings, and the letters f" inside other strings, are not.
    from course_utils.sandbox import static_check

    huge = "x = 1\ns = f'" + "{x}" * 30_000 + "'\n"
    reasons = static_check(huge)
    assert reasons and reasons[0].startswith("f-string trop longue (900")
    assert static_check('elf = "f"\nprint(f"{elf!r:>10}", "chef\'s")\n' * 200) == []
    escaped = 's = f"a\\"b{1}"\n'
    assert static_check(escaped) == []


@pytest.mark.parametrize("prefix", ["fr", "Rf", "FR", "rF"])
def test_a_raw_f_string_is_measured_too(prefix):
    # The scan ran only when the source held f' f" F' or F": fr"…" of 100k characters went
    # to the parse, 0.7 s of the caller's CPU (round 25).
    reasons = _static.static_check("x = 1\nz = " + prefix + '"' + "{x}" * 30_000 + '"\n')
    assert reasons and reasons[0].startswith("f-string trop longue (900")


def test_the_containers_a_run_sends_are_counted_with_repeats(sandbox):
    # A container held many times is written out each time: [set()] * 150_000 in 5 tests cost
    # the caller 1.7 s to decode (round 25). A run's probes send a bounded number of them.
    from course_utils.sandbox import _plain

    code = "X = [set()] * 150_000\ndef f(i):\n    return X\ndef g(n):\n    return [()] * n\n"
    result = sandbox.run(code, [f"f({i}) == []" for i in range(5)], timeout=5)
    assert result.passed == 0 and all("trop volumineuses" in f.reason for f in result.failures)
    half = _plain.MAX_SENT_CONTAINERS // 2
    spread = sandbox.run(code, [f"g({half - 10}) == [()] * {half - 10}"] * 2 + ["g(1) == [()]"])
    assert spread.passed == 1 and "trop volumineuses" in spread.failures[0].reason, spread
    assert sandbox.run(code, [f"g({half - 10}) == [()] * {half - 10}"]).ok  # both sides: 149,982


def test_a_dicts_pairs_count_among_what_a_run_sends(sandbox):
    # A dict is sent as a list of [key, value] pairs, each a list the caller builds: 30,000
    # references to one 16-item dict cost the caller 0.8 s past a 1 s timeout (round 28).
    code = "D = {i: 0 for i in range(16)}\nL = [D] * 30000\ndef f(k):\n    return L\n"
    result = sandbox.run(code, [f"f({i}) == 0" for i in range(5)], timeout=5)
    assert result.passed == 0 and all("trop volumineuses" in f.reason for f in result.failures)


def test_what_the_caller_rebuilds_dearly_counts_more(sandbox):
    # A defaultdict costs the caller some 4 us to rebuild, a list 1.6: 149,000 references to
    # one defaultdict cost it 0.6 s past a 1 s timeout (round 30). They count three times.
    from course_utils.sandbox import _plain

    third = _plain.MAX_SENT_CONTAINERS // 3
    code = (f"import collections\nD = [collections.defaultdict(int)] * {third + 10}\n"
            f"L = [[]] * {third + 10}\ndef f():\n    return D\ndef g():\n    return L\n")
    refused = sandbox.run(code, ["f() == 0"])
    assert refused.passed == 0 and "trop volumineuses" in refused.failures[0].reason, refused
    assert sandbox.run(code, [f"g() == [[]] * {third + 10}"]).ok


def test_a_string_the_caller_rebuilds_by_characters_counts_by_its_length(sandbox):
    # Lone surrogates cross as code points, which the caller rebuilds one by one: 690,000 of
    # them in each of four probes cost it 0.8 s past a 1 s timeout (round 31). They count
    # one unit per 8 characters.
    code = "S = '\\ud800' * 690000\ndef f(i):\n    return S\n"
    result = sandbox.run(code, [f"f({i}) == 1" for i in range(4)], timeout=5, memory_mb=512)
    assert result.passed == 0
    assert any("trop volumineuses" in failure.reason for failure in result.failures), result


def test_a_code_plan_keeps_its_source_not_its_tree():
    # A kept syntax tree weighed some 340 bytes per character of a dense program: ten such
    # programs held 400 MB of the caller's memory in the plan cache (round 30).
    code = "def f(x):\n    return 1\n" + "a\n" * 1000
    plan = _plan._code_plan(code)
    assert plan.refusal is None and plan.source is code and not hasattr(plan, "tree")
    _plan.compile_code(plan)
    assert plan.blob and plan.source is None and plan.error is None


def test_a_call_with_thousands_of_keywords_is_refused_before_the_quadratic_compile():
    # CPython 3.11 compares a call's keyword names pairwise: 12,234 cost the caller 0.9 s to
    # compile an assertion program (round 28). Code and tests alike.
    call = "f(" + ",".join(f"k{i}=0" for i in range(_static.MAX_KEYWORDS + 1)) + ")"
    assert "trop d'arguments nommés" in _static.static_check(call)[0]
    with pytest.raises(_plan.PlanError, match="trop d'arguments nommés"):
        _plan.make_plan("def f(**k):\n    return 0\n", "assert True\nif 0:\n    " + call + "\n",
                        timeout=1, memory_mb=64)
    assert _static.static_check("f(" + ",".join(f"k{i}=0" for i in range(200)) + ")") == []
    # a class's keywords and a class pattern's attributes are compiled the same way (round 29)
    names = ",".join(f"k{i}=0" for i in range(_static.MAX_KEYWORDS + 1))
    for source in ("class A(" + names + "):\n    pass\n",
                   "match 0:\n    case int(" + names + "):\n        pass\n"):
        assert "trop d'arguments nommés" in _static.static_check(source)[0]


def test_a_complex_numbers_parts_count_among_what_a_run_sends(sandbox):
    # The tagged parts of a complex with inf or NaN parts were lists the caller built without
    # counting: 74,000 of them cost it 0.8 s past a 1 s timeout (round 29).
    code = "def f():\n    return [complex(float('nan'), float('inf'))] * 74_000\n"
    result = sandbox.run(code, ["f() == 0", "f() == 0"], timeout=5)
    assert result.passed == 0 and any("trop volumineuses" in f.reason for f in result.failures)


def test_a_continued_f_string_is_measured_whole():
    # A backslash at the end of a line continues a one-quote string: 40 lines of 4,500
    # characters were measured as 4,503, and cost the caller 0.7 s of parse (round 24).
    from course_utils.sandbox import static_check

    body = "".join("{x}" * 1_000 + "\\\n" for _ in range(30))
    reasons = static_check("x = 1\ns = f'" + body + "'\n")
    assert reasons and reasons[0].startswith("f-string trop longue (90")
    assert static_check("x = 1\ns = f'{x}\\\n{x}'\nassert s == '11'\n") == []


@pytest.mark.parametrize("code", [
    # each escaped quote looked for the end of the line again: with no newline, and characters
    # that make that search slow (U+0A0A), 200 kB cost the caller 4 s (round 24)
    "s = " + ("f'" + "\\'\u0a0a" * 3_300 + "' ") * 9,
    "f'" + "\\'" * 40_000,
    "f'" * 40_000,
    '"""' + "f'''f'f\"" * 10_000,
    "# " + "rf'\\\n" * 20_000,
])
def test_the_f_string_scan_reads_each_character_a_bounded_number_of_times(code):
    # Two spans of one quote kind never overlap, so the scan is linear: at most four spans
    # (one per kind) cover a character, and each is read once.
    spans = list(_static.fstring_spans(code))
    assert spans and sum(end - start for start, end in spans) <= 4 * len(code)
    assert all(0 <= start < end <= len(code) for start, end in spans)


def test_the_densest_source_allowed_is_parsed_once(monkeypatch):
    # The caller parses in C, uninterruptibly (a statement every four characters: some 3 s of
    # CPU per million characters). The cap keeps one parse short, and a plan under it is kept.
    import ast

    parses = []
    real = ast.parse
    monkeypatch.setattr(_static.ast, "parse", lambda *a, **k: parses.append(1) or real(*a, **k))
    dense = "a,a\n" * ((_static.MAX_SOURCE_CHARS - 100) // 4) + "def f():\n    return 1\n"
    assert len(dense) <= _static.MAX_SOURCE_CHARS
    for _ in range(2):
        _plan.make_plan(dense, ["f() == 1"], timeout=1, memory_mb=64)
    assert len(parses) <= 2  # the code once, the tests once: nothing parsed again
    refused = _static.parse_source("a\n" * (_static.MAX_SOURCE_CHARS // 2 + 1))
    assert refused[0] is None and refused[1].startswith("code trop long")


# --- the caller's cost, by mechanism (round 15) ----------------------------------------------

def test_thousands_of_identical_functions_are_refused_before_the_quadratic_compile():
    # CPython 3.11 merges a scope's constants in a table where code objects differing only by
    # their line collide: 22,000 ``lambda: 0`` took 9 s of the caller's CPU to compile.
    for shape in ("lambda: 0\n", "class A: pass\n", "[0 for a in ()]\n", "def f(): pass\n"):
        assert _static.static_check(shape * _static.MAX_CODE_NODES) == []
        reasons = _static.static_check(shape * (_static.MAX_CODE_NODES + 1))
        assert len(reasons) == 1 and "trop de fonctions, classes" in reasons[0], reasons


def test_constants_the_compiler_folds_are_capped_before_it_folds_them(sandbox_box, monkeypatch):
    # '😀' * 4096 is folded into a 16 kB constant: 600 of them made a job of ~10 MB, which a
    # child read before its clock started (a correct program timed out, or was killed); a sum
    # of them is folded in quadratic time (400 terms: 1.4 s of the caller's CPU).
    honest = "def f(x):\n    return x + 1\n"
    lines = "".join(f"a{i} = '{chr(0x1F600 + i)}' * 4096\n" for i in range(600))
    chain = "x = " + "('\U0001F600' * 4096) + " * 240 + "''\n"
    for big in (lines, chain):
        reasons = _static.static_check(big + honest)
        assert len(reasons) == 1 and "constantes trop grandes" in reasons[0], reasons
    fine = sandbox_box.run("".join(lines.splitlines(True)[:60]) + honest, ["f(2) == 3"])
    assert fine.ok, fine
    # Second layer: the job the caller compiles (once a child compiled it quickly) is capped,
    # and a refused one is not kept.
    monkeypatch.setattr(_jobpipe, "MAX_BLOB_BYTES", 100_000)
    monkeypatch.setattr(_supervisor, "TRUSTED_COMPILE", 60.0)
    code = "".join(lines.splitlines(True)[:20]) + honest
    assert sandbox_box.run(code, ["f(2) == 3"]).ok  # compiled by the child
    refused = sandbox_box.run(code, ["f(2) == 3"])
    assert refused.passed == 0 and "trop gros" in (refused.error or ""), refused
    assert _plan._CODE_CACHE.recall(code).blob is None


def test_decoded_values_are_judged_without_being_copied_again(monkeypatch):
    # The supervisor's values come from json.loads: plain already. Copying them again (and
    # writing out a million items to cut the message at 200 characters) cost 0.8 s a run.
    plan = _plan.make_plan("def f(x):\n    return x\n", ["f(0) == [1, 2, 3]"],
                           timeout=1, memory_mb=64)
    record = {"k": "test", "i": 0, "p": [["v", ["l", [0] * 200_000]]]}
    copies = []
    monkeypatch.setattr(_plain, "to_plain", lambda *a: copies.append(a) or a[0])
    reason = _supervisor._judge(plan, 0, record, {})
    assert copies == []
    assert reason.startswith("obtenu [0, 0, 0") and len(reason) < 500, reason
    assert _plain.describe([0] * 10 ** 6) == repr([0] * 100)[:199] + "…"


def test_a_set_display_of_colliding_values_is_refused(sandbox_box):
    code = "c = [0]\ndef g():\n    c[0] += 1\n    return c[0] * (2 ** 61 - 1)\n"  # all hash to 0
    result = sandbox_box.run(code, ["{" + ", ".join(["g()"] * 300) + "} == set()"])
    assert result.passed == 0 and "collisions" in result.failures[0].reason, result
    fine = sandbox_box.run("def g():\n    return 1\n", ["{g(), g()} == {1}"])
    assert fine.ok, fine


def test_syntax_warnings_of_the_code_stay_out_of_the_callers_output(sandbox_box, capfd):
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = sandbox_box.run("x = 1\nok = x is 1\ny = 0if 1else 0\n", ["ok"])
    assert result.ok, result
    assert [w for w in seen if issubclass(w.category, SyntaxWarning)] == []
    assert "SyntaxWarning" not in capfd.readouterr().err


def test_the_caller_compiles_code_only_after_a_child_compiled_it_quickly(sandbox_box, monkeypatch):
    # CPython 3.11 compiles some shapes in quadratic time (keyword names checked pairwise:
    # 33,800 of them held the caller 6 s), and a compile cannot be interrupted: a child
    # compiles new code within the run's limits, and the caller compiles it for the next runs
    # only if that child did so quickly.
    compiled = []
    real = _plan.compile_checked

    def counting(tree, filename, *args, **kwargs):
        compiled.append(filename)
        return real(tree, filename, *args, **kwargs)

    monkeypatch.setattr(_plan, "compile_checked", counting)
    monkeypatch.setattr(_supervisor, "TRUSTED_COMPILE", 60.0)  # any honest child is quick
    honest = "def f(x):\n    return x + 1  # compiled once by the caller\n"
    for _ in range(3):
        assert sandbox_box.run(honest, ["f(1) == 2"]).ok
    assert compiled.count("<solution>") == 1  # before the second run, kept for the third
    monkeypatch.setattr(_supervisor, "TRUSTED_COMPILE", 0.05)
    # every enclosing name copied into each nested scope: ~0.13 s to compile here, and no
    # other cap refuses it (12,000 keyword names were the shape here until they were capped)
    slow = ("def f():\n    return 1\ndef g():\n" + "".join(f"    a{i} = 0\n" for i in range(6_000))
            + "".join(f"    l{j} = lambda: 0\n" for j in range(300)))
    compiled.clear()
    for _ in range(2):
        assert sandbox_box.run(slow, ["f() == 1"], timeout=20).ok
    assert "<solution>" not in compiled  # the caller never compiled it


def test_a_change_of_turn_that_fails_halfway_voids_the_rest_of_the_run(monkeypatch):
    # Switching back to the tests after a call of the code's function must be whole: if a
    # step fails (the code exhausted the memory), the tests could go on in the code's decimal
    # context, with its caches. The membrane says so, and the child aborts the run.
    from course_utils.sandbox import _crossing

    membrane = _crossing.Membrane({}, {}, [])
    membrane.separate_contexts()
    wrapped = membrane.code_function(lambda x: x + 1, "f")
    assert wrapped(1) == 2 and membrane.lost is None and membrane.tests_turn

    def exhausted():
        raise MemoryError

    monkeypatch.setattr(_crossing, "forget_caches", exhausted)
    with pytest.raises(_crossing.TurnLost):
        wrapped(1)
    assert membrane.lost == _crossing.LOST and membrane.tests_turn


@pytest.mark.parametrize("mode", ["fork", "spawn"])
def test_a_program_gives_the_same_result_on_every_run_whoever_compiled_it(mode, monkeypatch):
    # The first run's child compiles the program; from the second, the caller does. marshal
    # orders a set's constants, so the child's own compile is marshalled and read back too;
    # and one cap on the compiled size holds on both sides (nested finally blocks are written
    # out once per way out: exponential in the nesting).
    monkeypatch.setattr(_supervisor, "TRUSTED_COMPILE", 60.0)
    fruits = ("pomme", "poire", "kiwi", "melon", "figue", "prune", "cerise", "datte", "mangue",
              "citron", "orange")
    code = "def f():\n    return list({" + ", ".join(repr(f) for f in fruits) + "})\n"
    body = ";".join(["a" + ".b" * 130] * 2)
    nested = ("def f(x):\n return x + 1\ndef g(a):\n"
              + "".join(" " * (i + 1) + "try:\n" + " " * (i + 2) + body + "\n" + " " * (i + 1)
                        + "finally:\n" for i in range(10)) + " " * 11 + body + "\n")
    with Sandbox(mode=mode) as box:
        order = box.run(code, ["f() == 0"]).failures[0].reason
        if sys.version_info >= (3, 11):  # 3.10: a set constant's order may differ (README)
            assert all(box.run(code, ["f() == 0"]).failures[0].reason == order for _ in range(2))
        results = {(r.passed, r.error) for r in (box.run(nested, ["f(2) == 3"]) for _ in range(3))}
    assert len(results) == 1, results
    if sys.version_info >= (3, 11):  # 3.10 writes the finally blocks out fewer times
        assert "trop gros" in (next(iter(results))[1] or ""), results


def test_the_callers_optimize_flag_does_not_change_the_code():
    # The caller may run under python -O: the code it compiles keeps its asserts and __debug__,
    # as in a child (which never runs with -O).
    import subprocess
    import sys

    script = ("from course_utils.sandbox._rewrite import compile_untrusted\n"
              "ns = {}\nexec(compile_untrusted('def f():\\n    assert False, 1\\n"
              "    return 2\\nd = __debug__\\n', '<solution>'), ns)\n"
              "try:\n    ns['f']()\nexcept AssertionError:\n    print('kept', ns['d'])\n")
    done = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "kept True", done


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the warm worker: POSIX")
def test_the_worker_kills_only_its_own_living_children(sandbox):
    # A kill for a child reaped long ago (it had dropped out of the worker's memory of reaped
    # pids) was sent to whatever process had that pid since: the root worker killed
    # unrelated processes after 1,000 runs that imported a module (round 32).
    import subprocess

    assert sandbox.run("x = 1", ["x == 1"]).ok
    stranger = subprocess.Popen(["sleep", "30"])
    try:
        sandbox._worker.kill(stranger.pid)
        assert sandbox._worker.status(stranger.pid) is None  # not its child: unknown
        assert sandbox.run("import statistics\nx = statistics.mean([1, 3])\n", ["x == 2"]).ok
        assert stranger.poll() is None  # alive
    finally:
        stranger.kill()
        stranger.wait()
