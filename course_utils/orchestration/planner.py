"""The planner: ``run_agent`` over the engine tools, with the safeguards of lesson 05.

``orchestrate(problem)`` is one call to ``course_utils.agent.run_agent`` (no second loop): the
planner reads the task and the tools' descriptions, calls an engine, reads its result, may call a
second engine, and ends with ``finish``. Around that loop:

* **budget guard** — ``token_budget`` counts the planner's calls *and* every model call made
  inside the engines (``Guard``): a call whose prompt, plus a reserve for its answer, would pass
  the budget is not made, the run stops with status ``budget_exhausted`` (an engine refused
  this way returns a tool error of type ``budget_epuise``, visible in the trace);
* **global timeout** — ``timeout_s`` bounds the whole run, planner and engines (status
  ``timeout``), on top of ``max_steps`` (the planner's turns);
* **fallback** — when the run finishes without any engine result (the planner answered in text,
  or called ``finish`` at once, or its only calls failed), ``fallback(problem, ctx)`` runs a safe
  default engine (``default_engine``: Best-of-N for code, Tree of Thoughts for a 24 puzzle,
  self-consistency for a word problem), under the same guard;
* **chaining on partial failure** — an engine's result says ``tests_reussis < tests_total`` with
  a French hint, and the planner may call a second engine: every result is kept, in order, and
  the best one (solved first, then most tests passed, then the latest) is the answer.

``client`` serves the planner; ``engine_client`` (default: ``client``) serves the engines — a
scripted planner (``testing.ScriptedModel``) can drive real offline engines this way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..agent import AgentRun, run_agent
from ..usage import Usage
from .guard import Guard
from .prompts import PLANNER_SYSTEM, kind_of, problem_id, task_text
from .tools import DEFAULT_TOOLS, EngineContext, engine_tools


def default_engine(problem: Any, ctx: EngineContext) -> dict | str:
    """The safe default engine of the fallback, by kind of task."""
    from .. import engines

    kind = kind_of(problem)
    if kind == "jeu24":
        return ctx.run(engines.tree_of_thoughts, tuple(problem), 5)
    if kind == "mots":
        return ctx.run(engines.self_consistency, problem, 5)
    return ctx.run(engines.best_of_n, problem, 4)


@dataclass(frozen=True)
class Orchestration:
    """The outcome of ``orchestrate``: the planner's run, every engine result, the safeguards.

    ``events`` is a short French account (engine → result → next engine, fallback, stop).
    ``planner_usage`` is the planner's own cost (its overhead); ``engine_usage`` the engines'.
    """

    problem: str
    kind: str
    status: str
    solved: bool
    answer: Any
    run: AgentRun
    engines: tuple = ()
    fallback: bool = False
    planner_usage: Usage = field(default_factory=Usage)
    engine_usage: Usage = field(default_factory=Usage)
    events: tuple[str, ...] = ()
    duration_s: float = field(default=0.0, compare=False)

    @property
    def tokens(self) -> int:
        return self.planner_usage.total_tokens + self.engine_usage.total_tokens

    @property
    def calls(self) -> int:
        return self.planner_usage.calls + self.engine_usage.calls

    @property
    def chain(self) -> tuple[str, ...]:
        """The engines that ran, in order."""
        return tuple(r.engine for r in self.engines)

    def to_dict(self) -> dict:
        return {"problem": self.problem, "kind": self.kind, "status": self.status,
                "solved": self.solved, "answer": self.answer, "chain": list(self.chain),
                "fallback": self.fallback, "planner_usage": self.planner_usage.to_dict(),
                "engine_usage": self.engine_usage.to_dict(), "events": list(self.events)}

    def __str__(self) -> str:
        mark = "✅ résolu" if self.solved else "❌ non résolu"
        head = (f"Orchestration — {self.problem} ({self.kind}) : {mark}, statut {self.status}, "
                f"{self.tokens} jetons ({self.planner_usage.total_tokens} pour le planificateur), "
                f"{self.calls} appel(s) au modèle")
        return "\n".join([head] + [f"  {line}" for line in self.events])


def best_result(results: Sequence[Any]) -> Any:
    """Solved first, then the most tests passed, then the latest."""
    if not results:
        return None
    ranked = sorted(enumerate(results),
                    key=lambda item: (item[1].solved, item[1].passed / max(1, item[1].total),
                                      item[0]))
    return ranked[-1][1]


def _events(run: AgentRun, ctx: EngineContext, fallback_used: bool, n_before: int) -> list[str]:
    lines: list[str] = []
    results = iter(ctx.results[:n_before])
    for step in run.steps:
        for call, observation in zip(step.tool_calls, step.observations):
            if call.name == "finish":
                continue
            stopped = next((kind for kind in ("budget_epuise", "delai_depasse")
                            if f'"{kind}"' in observation), None)
            if stopped:
                what = "moteur interrompu" if "interrompu" in observation else "moteur non lancé"
                lines.append(f"{call.name} : {stopped} — {what}")
                continue
            if '"error"' in observation[:20]:
                lines.append(f"{call.name} : appel refusé ({observation[:120]})")
                continue
            result = next(results, None)
            if result is None:
                continue
            state = "résolu" if result.solved else "échec partiel"
            lines.append(f"{call.name} → {result.engine} : {state}, {result.passed}/{result.total}, "
                         f"{result.tokens} jetons")
    if not any(c.name != "finish" for c in run.tool_calls):
        lines.append("le planificateur a répondu sans appeler de moteur")
    if fallback_used:
        for result in ctx.results[n_before:]:
            state = "résolu" if result.solved else "non résolu"
            lines.append(f"repli → {result.engine} : {state}, {result.passed}/{result.total}, "
                         f"{result.tokens} jetons")
    if run.status != "finished" or ctx.guard.stopped:
        status = ctx.guard.stopped[0] if ctx.guard.stopped else run.status
        lines.append(f"arrêt : {status}")
    return lines


def orchestrate(problem: Any, *, client: Any = None, model: str | None = None,
                engine_client: Any = None, engine_model: str | None = None,
                tools: Sequence[Callable] = DEFAULT_TOOLS, system: str = PLANNER_SYSTEM,
                token_budget: int | None = None, timeout_s: float | None = None,
                max_steps: int = 6, fallback: Callable | None = default_engine,
                sandbox: Any = None, clock: Callable[[], float] = time.monotonic) -> Orchestration:
    """Let the planner choose and run engines on ``problem`` (see the module docstring)."""
    start = time.perf_counter()
    guard = Guard(token_budget, timeout_s, clock=clock)
    if client is None:
        from .. import llm

        client = llm.default_client()
    ctx = EngineContext(engine_client or client, engine_model or model, guard, sandbox)
    run = run_agent(task_text(problem), engine_tools(ctx, tools), client=client, model=model,
                    system=system, max_steps=max_steps, ledger=guard.planner, guard=guard)
    n_before = len(ctx.results)
    fallback_used = False
    if fallback is not None and not ctx.results and run.status == "finished" \
            and guard.stopped is None:
        fallback_used = True
        fallback(problem, ctx)
    status = run.status
    if guard.stopped is not None:
        status = guard.stopped[0]
    best = best_result(ctx.results)
    return Orchestration(
        problem=problem_id(problem), kind=kind_of(problem), status=status,
        solved=bool(best is not None and best.solved),
        answer=None if best is None else best.answer, run=run, engines=tuple(ctx.results),
        fallback=fallback_used, planner_usage=guard.planner.total, engine_usage=guard.engines,
        events=tuple(_events(run, ctx, fallback_used, n_before)),
        duration_s=time.perf_counter() - start)


__all__ = ["Orchestration", "best_result", "default_engine", "orchestrate"]
