"""Supervisor of one run: launch the child, enforce the wall-clock timeout, judge the records.

The supervisor is trusted code running in the caller's process, in both modes. It plans the
run (static check, test splitting), hands it to a child (a spare forked by the warm worker, or a
spawned interpreter), reads the child's result channel with a deadline, kills the child when
the deadline passes (or when the channel carries too much, or something malformed), and turns
the records into a result dict. A run counts only when the child reported ``done``: a child that
exits early (``SystemExit``, a crash, a kill) has passed nothing.
"""

from __future__ import annotations

import json
import signal
import time
from dataclasses import dataclass, field

from course_utils.sandbox._plan import TRUSTED_COMPILE, Plan, PlanError, judge_expression, make_plan
from course_utils.sandbox._plain import PlainValueError, decode

MAX_FRAME = 4 * 1024 * 1024 + 64
MAX_TOTAL = 16 * 1024 * 1024
STARTUP_TIMEOUT = {"fork": 10.0, "spawn": 60.0}


@dataclass
class Outcome:
    records: list = field(default_factory=list)
    done: bool = False
    timed_out: bool = False
    problem: str | None = None  # "overflow", "malformed", "startup"
    exit: str = ""
    compiled_after: float | None = None  # when the child reported its compile (seconds)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "état inconnu"
    if code < 0:
        number = -code
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        meaning = {"SIGXCPU": "temps CPU épuisé", "SIGKILL": "processus tué",
                   "SIGSEGV": "plantage de l'interpréteur", "SIGXFSZ": "écriture de fichier"}
        return f"{name}{' : ' + meaning[name] if name in meaning else ''}"
    return f"code de sortie {code}"


def collect(handle, timeout: float, startup_timeout: float, nonce: int = 0) -> Outcome:
    """Read the channel until ``done``, end of file, deadline or abuse; then kill and reap.

    Only records of the protocol count: length-prefixed ASCII JSON objects carrying this run's
    ``nonce`` and consecutive sequence numbers from 0. Anything else on the channel (bytes
    written by other means than the runner's sender) makes the run « illisible ».
    """
    out, buffer, total, expected = Outcome(), bytearray(), 0, 0
    start = time.monotonic()
    ready_at = start if getattr(handle, "started", False) else None
    while not (out.done or out.problem):
        limit = ready_at + timeout if ready_at is not None else start + startup_timeout
        now = time.monotonic()
        if now >= limit:
            out.timed_out = ready_at is not None
            out.problem = None if out.timed_out else "startup"
            break
        chunk = handle.recv(limit - now)
        if chunk is None:
            continue
        if not chunk:
            break
        total += len(chunk)
        if total > MAX_TOTAL:
            out.problem = "overflow"
            break
        buffer += chunk
        while len(buffer) >= 4 and not (out.done or out.problem):
            size = int.from_bytes(buffer[:4], "big")
            if size > MAX_FRAME:
                out.problem = "overflow"
            elif len(buffer) < 4 + size:
                break
            else:
                record = _parse(bytes(buffer[4:4 + size]), nonce, expected)
                del buffer[:4 + size]
                expected += 1
                if record is None:
                    out.problem = "malformed"
                elif record["k"] == "ready" and ready_at is None:
                    ready_at = time.monotonic()
                elif record["k"] == "compiled" and out.compiled_after is None:
                    out.compiled_after = time.monotonic() - start
                else:
                    out.records.append(record)
                    out.done = record["k"] == "done"
    handle.kill()
    out.exit = handle.wait(need_status=not out.done)
    return out


def _parse(payload: bytes, nonce: int, sequence: int):
    try:
        record = json.loads(payload.decode("ascii"))
    except (ValueError, RecursionError):
        return None
    if type(record) is not dict or type(record.get("k")) is not str:
        return None
    if type(record.get("n")) is not int or record["n"] != nonce:
        return None
    if type(record.get("s")) is not int or record["s"] != sequence:
        return None
    return record


def _result(plan: Plan, **fields) -> dict:
    result = {"passed": 0, "total": plan.total, "failures": [], "error": None,
              "timed_out": False, "output": ""}
    result.update(fields)
    return result


def verdict(plan: Plan, out: Outcome) -> dict:
    """Result dict (passed, total, failures, error, timed_out, output) of a finished run."""
    kinds = {record["k"]: record for record in out.records}
    tests = {r.get("i"): r for r in out.records if r["k"] == "test" and type(r.get("i")) is int}
    if out.timed_out:
        where = " pendant le chargement du code"
        if "loaded" in kinds:
            running = next((i for i in range(plan.total) if i not in tests), None)
            where = f" pendant le test : {plan.labels[running]}" if running is not None else ""
        return _result(plan, timed_out=True,
                       error=f"délai dépassé : exécution arrêtée après {plan.timeout:g} s{where}")
    if out.problem == "overflow":
        return _result(plan, error="résultat trop volumineux : exécution arrêtée")
    if out.problem == "malformed":
        return _result(plan, error="résultat illisible : exécution ignorée")
    if out.problem == "startup":
        return _result(plan, error="le bac à sable n'a pas pu démarrer l'exécution")
    if "abort" in kinds:
        return _result(plan, error=kinds["abort"].get("msg", "arrêt anticipé"),
                       output=_text(kinds.get("done", {}).get("output")))
    if "load_error" in kinds:
        return _result(plan, error=f"erreur au chargement du code : {kinds['load_error'].get('msg')}")
    if not out.done:
        return _result(plan, error=f"le processus s'est arrêté sans rendre de résultat ({out.exit})")
    done = kinds["done"]
    output = _text(done.get("output"))
    if done.get("violation"):
        return _result(plan, error=f"opération refusée : {_text(done['violation'])}", output=output)
    failures = []
    objects: dict = {}  # the run's NaN objects, by the numbers the child gave them
    for index, label in enumerate(plan.labels):
        reason = _judge(plan, index, tests.get(index), objects)
        if reason is not None:
            failures.append([label, reason])
    return _result(plan, passed=plan.total - len(failures), failures=failures, output=output)


def _judge(plan: Plan, index: int, record: dict | None, objects: dict) -> str | None:
    if record is None:
        return "test non exécuté"
    if record.get("big"):
        return "valeur trop volumineuse pour être comparée"
    if plan.skeletons is None:
        return None if record.get("ok") is True else _text(record.get("msg")) or "échec"
    results = record.get("p")
    probes = plan.probes[index]
    if type(results) is not list or len(results) != len(probes):
        return "résultat illisible"
    decoded = []
    for item in results:
        if type(item) is not list or len(item) != 2 or item[0] not in ("v", "e"):
            return "résultat illisible"
        if item[0] == "e":
            decoded.append(["e", _text(item[1])])
            continue
        try:
            decoded.append(["v", decode(item[1], 0, objects)])
        except (ValueError, TypeError, RecursionError, OverflowError, MemoryError):
            return "résultat illisible"
    try:
        return judge_expression(plan.skeletons[index], probes, decoded)
    except (PlainValueError, RecursionError) as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - a value the judge could not handle: this test
        # fails (never the run, nor the worker: the code chooses what it returns)
        return f"comparaison impossible ({type(exc).__name__})"


def _text(value) -> str:
    return value if type(value) is str else ""


def supervise(request: dict, launch, mode: str = "fork") -> dict:
    """Plan, launch, collect and judge one run. ``launch(plan)`` returns a child handle."""
    try:
        plan = make_plan(request["code"], request["tests"], timeout=request["timeout"],
                         memory_mb=request["memory_mb"])
    except PlanError as exc:
        total = len(request["tests"]) if isinstance(request.get("tests"), (list, tuple)) else 1
        return {"passed": 0, "total": total, "failures": [], "error": str(exc),
                "timed_out": False, "output": ""}
    if plan.refusal:
        return _result(plan, error=plan.refusal)
    handle = launch(plan)
    if isinstance(handle, str):  # the worker could not compile the code: nothing was run
        return _result(plan, error=f"erreur au chargement du code : {handle}")
    out = collect(handle, plan.timeout, STARTUP_TIMEOUT[mode], plan.job["nonce"])
    if out.compiled_after is not None and out.compiled_after <= TRUSTED_COMPILE:
        plan.code_plan.compiles_quickly = True  # the caller may compile it for the next runs
    return verdict(plan, out)
