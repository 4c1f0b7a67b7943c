"""Reflexion (Shinn et al. 2023): attempt → tests → self-reflection → new attempt.

Each attempt runs in the sandbox **once**. When it fails, the model is shown the failing tests
and asked why it failed (one or two sentences: the *reflection*); the next attempt continues the
conversation with the failing tests and that reflection. It stops at the first attempt that
passes every test, or after ``iterations`` attempts. Cost per failed attempt: two model calls
(reflection, then repair), and a conversation that grows.

``memory`` (lesson 06) is any object with ``search(query, k)`` returning hits with a ``.lesson``
and ``add(text, lesson, domain=...)`` — e.g. ``course_utils.memory.VectorMemory``. Lessons are
retrieved *before the first attempt* and shown in a « Leçons retenues : » block; after the run,
one lesson is stored if an attempt failed and the model reflected on it: the failing test and
the model's own reflection — the last one, which preceded the fix when there was one (an
instructive lesson, not a status such as « échec »).
"""

from __future__ import annotations

import time
from typing import Any

from .best_of_n import task_prompt
from .prompts import assistant, reflection_prompt, repair_prompt, user
from .result import EngineResult, TraceEntry
from .sampling import sample
from .verify import Verdict, evaluate
from ..usage import Usage


def memory_query(problem: Any) -> str:
    """The text a lesson is stored under and searched with: the task itself."""
    if hasattr(problem, "spec"):
        return f"{problem.function} : {problem.spec}"
    return str(getattr(problem, "question", problem))


def recall(memory: Any, problem: Any, k: int = 3) -> tuple[str, ...]:
    """Lessons retrieved for ``problem`` (never raises: a broken memory gives no lesson)."""
    if memory is None:
        return ()
    try:
        hits = memory.search(memory_query(problem), k)
    except Exception:
        return ()
    return tuple(str(hit.lesson) for hit in hits if getattr(hit, "lesson", None))


def lesson_text(problem: Any, verdict: Verdict, reflection: str) -> str:
    """What is stored: the failing test and the model's reflection, in one or two lines."""
    where = f"`{problem.function}`" if hasattr(problem, "function") else "ce problème"
    reflection = " ".join(reflection.split())
    return f"Sur {where}, le test {verdict.note} ; {reflection}"


def reflexion(problem: Any, iterations: int = 3, *, memory: Any = None, client: Any = None,
              model: str | None = None, temperature: float = 0.0, max_tokens: int | None = None,
              sandbox: Any = None, reflect: bool = True, domain: str | None = "code",
              k: int = 3) -> EngineResult:
    """Attempts with feedback until the tests pass (see the module docstring).

    ``reflect=False`` skips the reflection call (plain repair from the failing tests).
    """
    if iterations < 1:
        raise ValueError("iterations doit valoir au moins 1")
    start = time.perf_counter()
    usage, requests, model_s, sandbox_s = Usage(), 0, 0.0, 0.0
    trace: list[TraceEntry] = []
    lessons = recall(memory, problem, k)
    if lessons:
        trace.append(TraceEntry("lessons", 0, "\n".join(lessons), None, len(lessons),
                                "leçons retrouvées en mémoire"))
    messages = [user(task_prompt(problem, lessons))]
    verdict = best = None
    to_store = None

    def ask(conversation: list[dict]) -> str:
        nonlocal usage, requests, model_s
        out = sample(conversation, 1, client=client, model=model, temperature=temperature,
                     max_tokens=max_tokens)
        usage, requests, model_s = usage + out.usage, requests + out.requests, model_s + out.seconds
        return out.texts[0]

    for attempt in range(iterations):
        text = ask(messages)
        verdict = evaluate(problem, text, sandbox=sandbox)  # the sandbox, once per attempt
        sandbox_s += verdict.seconds
        trace.append(TraceEntry("attempt", attempt, str(verdict.answer or text), verdict.ok,
                                verdict.passed, verdict.note))
        if best is None or (verdict.ok, verdict.passed) > (best.ok, best.passed):
            best = verdict
        if verdict.ok or attempt == iterations - 1:
            break
        shown = text if text.strip() else "(réponse vide)"
        reflection = None
        if reflect:
            reflection = ask(messages + [assistant(shown), user(reflection_prompt(verdict))]).strip()
            trace.append(TraceEntry("reflection", attempt, reflection))
            if reflection:  # the last reflection before the end: the one that led to the fix
                to_store = lesson_text(problem, verdict, reflection)
        messages = messages + [assistant(shown), user(repair_prompt(verdict, reflection))]

    if memory is not None and to_store is not None:
        try:
            memory.add(memory_query(problem), to_store, domain=domain)
        except Exception as exc:  # the memory is a hook: it must not lose the result
            trace.append(TraceEntry("lessons", len(trace), to_store, False, None,
                                    f"leçon non enregistrée : {exc}"))
        else:
            trace.append(TraceEntry("lessons", len(trace), to_store, True, None, "leçon enregistrée"))
    assert best is not None and verdict is not None
    final = verdict if verdict.ok else best
    return EngineResult(
        engine=f"reflexion(iterations={iterations})",
        solved=final.ok,
        answer=final.answer,
        passed=final.passed,
        total=final.total,
        calls=requests,
        usage=usage,
        trace=tuple(trace),
        duration_s=time.perf_counter() - start,
        problem=str(getattr(problem, "id", "")),
        model_s=model_s,
        sandbox_s=sandbox_s,
    )
