"""The measured study of lesson 05: the planner against the router, single engines and an oracle.

``study_tasks()`` is a fixed heterogeneous set (code of several difficulties and failure kinds,
24 puzzles from easy to hard, word problems). ``run_study(tasks)`` runs every *strategy* on every
task and returns one ``StudyRow`` per (strategy, task); ``summarize(rows)`` gives, per strategy,
successes with a 95 % Wilson interval, tokens, model calls, and for the planner its own tokens.

Strategies: ``planificateur`` (``orchestrate`` with the tools of ``tools.DEFAULT_TOOLS``),
``routeur`` (lesson 04's ``engines.route``), one per single engine (``best_of_n`` n=4,
``reflexion`` 3 iterations, ``self_consistency`` n=5, ``tree_of_thoughts`` beam 5), each on the
tasks it can take (a task outside its domain counts as a failure at zero cost, and the row says
``hors domaine``), and ``oracle``: per task, the cheapest single engine that solved it (if none
did, a failure at the cost of the cheapest one tried) — a bound no real strategy reaches, since
it knows the outcome in advance.

Common random numbers: against the offline backend every (strategy, task) run gets a *fresh*
offline model with the same seed and competence, so two strategies that call the same engine on
the same task see the same samples; their difference then comes from their choices, not from
luck of the draw. (A real provider gives no such control: the same client is reused.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..usage import Usage
from .prompts import kind_of, problem_id


def study_tasks() -> list[Any]:
    """32 tasks (fixed, no randomness): 16 code problems (4 *variance* problems spread over the
    difficulties, the 12 hardest *misconception* problems), 8 puzzles of 24 spread from the
    easiest to the hardest of the 1,362, 8 word problems (one in eight of the bank)."""
    from ..problems import code_problems, game24_puzzles, word_problems

    bank = code_problems()
    variance = [p for p in bank if p.family in ("original", "general")]
    misconception = [p for p in bank if p.family not in ("original", "general")]
    hardest = sorted(misconception, key=lambda p: (-p.difficulty, p.id))
    code = variance[::3][:4] + hardest[:12]
    puzzles = game24_puzzles()
    step = len(puzzles) // 8
    games = [puzzles[i * step + step // 2] for i in range(8)]
    words = word_problems()[::8][:8]
    return [*code, *games, *words]


@dataclass(frozen=True)
class StudyRow:
    strategy: str
    task: str
    kind: str
    solved: bool
    tokens: int
    calls: int
    planner_tokens: int = 0
    engines: str = ""
    applicable: bool = True
    usage: Usage = field(default_factory=Usage)


SINGLES = {
    "best_of_n": (lambda e, p, **kw: e.best_of_n(p, 4, **kw), ("code",)),
    "reflexion": (lambda e, p, **kw: e.reflexion(p, 3, **kw), ("code",)),
    "self_consistency": (lambda e, p, **kw: e.self_consistency(p, 5, **kw), ("code", "mots")),
    "tree_of_thoughts": (lambda e, p, **kw: e.tree_of_thoughts(tuple(p), 5, **kw), ("jeu24",)),
}


def fresh_clients(client: Any) -> Callable[[], Any]:
    """A factory of clients: fresh offline models (same seed, same competence) for an offline
    ``client``; ``client`` itself for a real provider."""
    from .. import llm
    from ..offline import OfflineModel

    model = llm.offline_model_of(client)
    if model is None:
        return lambda: client
    return lambda: llm.make_client(offline=OfflineModel(seed=model.seed,
                                                        competence=model.competence))


def run_study(tasks: Iterable[Any], *, client: Any = None, model: str | None = None,
              planner: Any = None, progress: bool | Callable = False) -> list[StudyRow]:
    """Every strategy on every task; ``planner`` is the planner's client (default: the offline
    planner built on ``client``, see ``offline_planner.planner_client``). ``progress=True`` shows
    a bar (``course_utils.progress.track``); a callable wraps the task list itself."""
    from .. import engines, llm
    from .offline_planner import planner_client
    from .planner import orchestrate

    fresh = fresh_clients(client or llm.default_client())
    rows: list[StudyRow] = []
    tasks = list(tasks)
    if progress is True:
        from ..progress import plural, track

        shown = track(tasks, "tâches", summary=lambda n: plural(n, "étudiée"))
    else:
        shown = progress(tasks) if progress else tasks
    for task in shown:
        kind, name = kind_of(task), problem_id(task)
        engine_client = fresh()
        run = orchestrate(task, client=planner or planner_client(engine_client), model=model,
                          engine_client=engine_client)
        rows.append(StudyRow("planificateur", name, kind, run.solved, run.tokens, run.calls,
                             run.planner_usage.total_tokens, " → ".join(run.chain),
                             usage=run.planner_usage + run.engine_usage))
        routed = engines.route(tuple(task) if kind == "jeu24" else task, client=fresh(),
                               model=model)
        rows.append(StudyRow("routeur", name, kind, routed.solved, routed.tokens, routed.calls,
                             0, routed.engine.removeprefix("route→"), usage=routed.usage))
        tried = []
        for label, (engine, domain) in SINGLES.items():
            if kind not in domain:
                rows.append(StudyRow(label, name, kind, False, 0, 0, 0, "hors domaine", False))
                continue
            result = engine(engines, task, client=fresh(), model=model)
            row = StudyRow(label, name, kind, result.solved, result.tokens, result.calls, 0,
                           result.engine, usage=result.usage)
            rows.append(row)
            tried.append(row)
        solved = [r for r in tried if r.solved]
        best = min(solved or tried, key=lambda r: r.tokens)
        rows.append(StudyRow("oracle", name, kind, bool(solved), best.tokens, best.calls, 0,
                             best.strategy, usage=best.usage))
    return rows


STRATEGIES = ("planificateur", "routeur", "best_of_n", "reflexion", "self_consistency",
              "tree_of_thoughts", "oracle")


def summarize(rows: Iterable[StudyRow], model: str | None = None) -> list[dict]:
    """One dict per strategy: successes, 95 % interval, per kind, tokens, calls, overhead; with
    ``model``, also the estimated cost in dollars at that model's price (``usage.PRICES``; an
    offline model is priced at its named reference model, see ``usage.cost_label``)."""
    from ..engines import wilson_interval
    from ..usage import format_dollars

    rows = list(rows)
    kinds = sorted({r.kind for r in rows})
    out = []
    for strategy in STRATEGIES:
        mine = [r for r in rows if r.strategy == strategy]
        if not mine:
            continue
        wins = sum(r.solved for r in mine)
        low, high = wilson_interval(wins, len(mine))
        tokens = sum(r.tokens for r in mine)
        line = {"stratégie": strategy, "réussites": f"{wins}/{len(mine)}",
                "taux": round(wins / len(mine), 3),
                "IC 95 %": f"[{low:.2f} ; {high:.2f}]"}
        for kind in kinds:
            part = [r for r in mine if r.kind == kind]
            line[kind] = f"{sum(r.solved for r in part)}/{len(part)}"
        line["jetons"] = tokens
        line["appels"] = sum(r.calls for r in mine)
        if model is not None:
            cost = sum((r.usage for r in mine), Usage()).cost(model)
            line["coût estimé"] = "prix inconnu" if cost is None else format_dollars(cost)
        planner = sum(r.planner_tokens for r in mine)
        line["dont planificateur"] = planner if strategy == "planificateur" else "—"
        line["_low"], line["_high"] = low, high
        out.append(line)
    return out


__all__ = ["SINGLES", "STRATEGIES", "StudyRow", "fresh_clients", "run_study", "study_tasks",
           "summarize"]
