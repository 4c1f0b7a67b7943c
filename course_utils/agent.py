"""The agent loop (ReAct over function calling), with the safeguards lesson 02–03 teach.

``run_agent(task, toolbox)`` sends the conversation and the tool schemas to the model, executes the
tool calls it asks for (all of a turn, in order, each answered), appends the results and repeats,
until the model calls ``finish(answer)`` or answers in plain text. ``finish`` is added to the
toolbox when it is missing. Every way of stopping is visible in ``AgentRun.status``:

``finished``          the model called ``finish`` or answered in text;
``max_steps``         ``max_steps`` model turns were used; ONE last call is then made with
                      ``tool_choice="none"`` and a French request for a best-effort answer;
``escalated``         the model requested the same call (name + arguments, compared as normalised
                      JSON) twice in a row: the repeated call is NOT executed (its tool message,
                      of type ``appel_repete``, says so, so the conversation stays valid), and the
                      run stops with a polite French message saying a human takes over;
``budget_exhausted``  before each call, tokens really used so far (the provider's ``usage``) plus
                      an estimate of the next prompt (``estimate_tokens``) exceed ``token_budget``,
                      or their cost in dollars (``usage.PRICES``) exceeds ``cost_budget``:
                      the call is not made;
``timeout``           a ``guard`` (below) stopped the run because a global deadline passed;
``error``             a provider error (``llm.LLMError``; 400/401/403 are not retried) or an
                      assistant message still empty after ``max_empty_retries`` new attempts.

``guard`` — an optional hook ``guard(usage, next_prompt_tokens) -> None | (status, message)``
called before every model call with the run's usage so far and the estimate of the next prompt:
returning a pair stops the run there, before the call, with that status (one of ``STATUSES``) and
that French message as the answer. ``course_utils.orchestration`` uses it for a budget that also
counts the tokens spent inside tools, and for a global timeout.

Retries of 429/5xx/timeouts belong to the SDK (``max_retries`` sets them for this run). An empty
assistant message (seen with OpenRouter) is asked again without touching the conversation, so
nothing is lost across retries. ``AgentRun`` keeps every step: thought, tool calls, observations
(the ``tool`` message contents) and the usage of the calls made for that step.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

from . import llm
from .display import token_source
from .llm import ChatResult, LLMError, ToolCall, Usage
from .offline.tokens import prompt_tokens
from .tools import Tool, Toolbox, error_content

STATUSES = ("finished", "escalated", "max_steps", "budget_exhausted", "timeout", "error")
FINISH = "finish"

DEFAULT_SYSTEM = (
    "Tu es un agent qui résout la tâche de l'utilisateur avec les outils fournis. À chaque tour, "
    "écris d'abord une courte pensée (une phrase) sur ce que tu vas faire, puis appelle un ou "
    "plusieurs outils. N'invente aucun fait : appuie-toi sur les résultats des outils. Quand tu "
    "as la réponse, appelle l'outil finish avec la réponse finale, en français."
)
BEST_EFFORT_PROMPT = (
    "Le nombre maximal d'étapes est atteint : tu ne peux plus appeler d'outil. Réponds maintenant "
    "à la tâche initiale du mieux possible, avec les seules informations déjà obtenues, et dis "
    "clairement ce qui manque."
)


def finish(answer: str) -> str:
    """Termine la tâche et transmet la réponse finale à l'utilisateur.

    Args:
        answer: La réponse finale, complète, en français.
    """
    return answer


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class AgentStep:
    """One model turn: its thought, the tool calls it asked for and what they returned.

    ``observations[i]`` answers ``tool_calls[i]``. ``answer`` is set on the turn that ended the
    run with an answer; ``usage`` sums the calls made for this turn (empty answers retried
    included).
    """

    index: int
    thought: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    observations: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)
    answer: str | None = None

    def to_dict(self) -> dict:
        return {
            "index": self.index,
            "thought": self.thought,
            "tool_calls": [asdict(call) for call in self.tool_calls],
            "observations": list(self.observations),
            "usage": self.usage.to_dict(),
            "answer": self.answer,
        }


@dataclass(frozen=True)
class AgentRun:
    """The outcome of ``run_agent``: answer, status (see ``STATUSES``), steps, usage, messages."""

    answer: str
    status: str
    steps: tuple[AgentStep, ...] = ()
    usage: Usage = field(default_factory=Usage)
    messages: tuple[dict, ...] = field(default=(), repr=False)
    error: str | None = None
    model: str = ""
    task: str = ""

    @property
    def cost(self) -> float | None:
        """Estimated cost of the run in USD at the model's price (``usage.PRICES``)."""
        return self.usage.cost(self.model)

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Every tool call requested during the run, in order."""
        return tuple(call for step in self.steps for call in step.tool_calls)

    def to_dict(self) -> dict:
        return {
            "task": self.task,
            "answer": self.answer,
            "status": self.status,
            "error": self.error,
            "model": self.model,
            "usage": self.usage.to_dict(),
            "steps": [step.to_dict() for step in self.steps],
            "messages": [dict(m) for m in self.messages],
        }

    def __str__(self) -> str:
        head = (f"AgentRun — statut : {self.status}, {len(self.steps)} étape(s), "
                f"{self.usage.total_tokens} jetons {token_source(self.model)} "
                f"({self.usage.calls} appel(s) au modèle)")
        lines = [head]
        for step in self.steps:
            actions = ", ".join(f"{c.name}({c.raw_arguments})" for c in step.tool_calls)
            lines.append(f"  {step.index}. {_short(actions or 'réponse', 90)}")
        if self.error:
            lines.append(f"Erreur : {self.error}")
        lines.append(f"Réponse : {self.answer}")
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """Jupyter shows the readable summary (``show_trace`` gives the full table)."""
        printer.text(str(self))


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- estimator


def estimate_tokens(messages: Iterable[dict], tools: list[dict] | None = None,
                    tool_choice: Any = None) -> int:
    """Estimated prompt tokens of the next request: the offline simulator's own estimator
    (``offline.tokens.prompt_tokens``: ~4 characters a token plus OpenAI's per-message framing).

    It is a deliberate estimate, not a tokenizer: cheap and provider-independent, and against the
    offline backend it is exactly the ``prompt_tokens`` the simulator will report. Only the NEXT
    prompt is estimated; the budget uses the provider's real ``usage`` for every call already made.
    """
    request: dict[str, Any] = {"messages": list(messages)}
    if tools:
        request["tools"] = tools
    if tool_choice is not None:
        request["tool_choice"] = tool_choice
    return prompt_tokens(request)


# --------------------------------------------------------------------------- the loop


class _Halt(Exception):
    def __init__(self, status: str, answer: str, error: str | None = None):
        super().__init__(answer)
        self.status, self.answer, self.error = status, answer, error


def _call_key(call: ToolCall) -> str:
    if call.arguments is not None:
        args = json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)
    else:
        args = call.raw_arguments.strip()
    return f"{call.name}\x00{args}"


def _initial_messages(task: str, system: str | None, messages: Iterable[dict] | None) -> list:
    conversation = [dict(m) for m in (messages or [])]
    system = DEFAULT_SYSTEM if system is None else system
    if system and not any(m.get("role") in ("system", "developer") for m in conversation):
        conversation.insert(0, {"role": "system", "content": system})
    if task:
        conversation.append({"role": "user", "content": task})
    if not conversation or conversation[-1].get("role") not in ("user", "tool"):
        raise ValueError("run_agent : donnez une tâche (task) ou une conversation finissant par "
                         "un message de l'utilisateur.")
    return conversation


class _Loop:
    """State of one run; each method is one part of the loop a lesson can point at."""

    def __init__(self, box: Toolbox, conversation: list[dict], options: dict[str, Any]):
        self.box = box
        self.schemas = box.schemas
        self.conversation = conversation
        self.options = options
        self.steps: list[AgentStep] = []
        self.usage = Usage()
        self.model = options.get("model") or ""
        self.last_key: str | None = None

    # -- one model call, with the budget check and the empty-message retries
    def ask(self, **request: Any) -> tuple[ChatResult, Usage]:
        budget = self.options["token_budget"]
        step_usage = Usage()
        empties = 0
        while True:
            guard = self.options.get("guard")
            if guard is not None:
                stop = guard(self.usage, estimate_tokens(self.conversation, request.get("tools")))
                if stop is not None:
                    raise _Halt(stop[0], stop[1])
            if self.options.get("cost_budget") is not None:
                self.check_cost(request)
            if budget is not None:
                needed = estimate_tokens(self.conversation, request.get("tools"))
                if self.usage.total_tokens + needed > budget:
                    raise _Halt("budget_exhausted", (
                        f"Budget de jetons épuisé : {self.usage.total_tokens} jetons déjà utilisés "
                        f"sur {budget}, et le prochain appel en demanderait environ {needed}. "
                        "Je m'arrête avant de le faire ; les étapes déjà faites sont conservées."))
            try:
                result = llm.chat(list(self.conversation), client=self.options["client"],
                                  model=self.options["model"], ledger=self.options["ledger"],
                                  temperature=self.options["temperature"],
                                  max_retries=self.options["max_retries"], **request)
            except LLMError as exc:
                raise _Halt("error", f"Je n'ai pas pu terminer : {exc.message}", exc.message) from exc
            self.usage += result.usage
            step_usage += result.usage
            self.model = result.model or self.model
            if result.tool_calls or (result.text or "").strip():
                return result, step_usage
            empties += 1
            if empties > self.options["max_empty_retries"]:
                message = (f"le modèle a renvoyé un message vide {empties} fois de suite "
                           "(ni texte ni appel d'outil).")
                raise _Halt("error", f"Je n'ai pas pu terminer : {message}", message)

    def check_cost(self, request: dict) -> None:
        """Halt before a call whose estimated cost would exceed ``cost_budget`` (USD)."""
        from .usage import FREE_PROVIDERS, format_dollars, price_of

        settings = llm.settings_of(self.options["client"]) or llm.default_settings()
        if settings.provider in FREE_PROVIDERS:
            return  # a local server costs nothing per token
        model = self.model or self.options["model"] or settings.model_fast
        row = price_of(model)
        if row is None:
            raise _Halt("error", f"Je ne peux pas tenir un budget en dollars : prix inconnu pour "
                        f"« {model} » (ajoutez-le avec COURSE_PRICES).", "prix inconnu")
        spent = self.usage.cost(model) or 0.0
        needed = estimate_tokens(self.conversation, request.get("tools")) * row[0] / 1e6
        budget = self.options["cost_budget"]
        if spent + needed > budget:
            raise _Halt("budget_exhausted", (
                f"Budget épuisé : {format_dollars(spent)} déjà dépensés sur "
                f"{format_dollars(budget)}, et le prochain appel coûterait environ "
                f"{format_dollars(needed)} (estimation). Je m'arrête avant de le faire ; les "
                "étapes déjà faites sont conservées."))

    # -- one turn with tools: returns the answer when the turn ends the run
    def turn(self, index: int) -> str | None:
        result, usage = self.ask(tools=self.schemas)
        thought = (result.text or "").strip() or result.reasoning
        if not result.tool_calls:
            self.conversation.append(result.message)
            answer = result.text.strip()
            self.steps.append(AgentStep(index, None, (), (), usage, answer))
            return answer
        self.conversation.append(result.message)
        repeated = self._repeated(result.tool_calls)
        if repeated is not None:
            self._escalate(index, thought, result.tool_calls, usage, repeated)
        observations, answer = [], None
        for call in result.tool_calls:
            outcome = self.box.call(call)
            self.conversation.append(outcome.message)
            observations.append(outcome.content)
            if call.name == FINISH and outcome.ok and answer is None:
                given = (outcome.arguments or {}).get("answer")
                answer = given if isinstance(given, str) else outcome.content
        self.last_key = _call_key(result.tool_calls[-1])
        self.steps.append(AgentStep(index, thought, result.tool_calls, tuple(observations), usage,
                                    answer))
        return answer

    def _repeated(self, calls: tuple[ToolCall, ...]) -> ToolCall | None:
        previous = self.last_key
        for call in calls:
            key = _call_key(call)
            if key == previous:
                return call
            previous = key
        return None

    def _escalate(self, index: int, thought: str | None, calls: tuple[ToolCall, ...],
                  usage: Usage, repeated: ToolCall) -> None:
        note = error_content("appel_repete", (
            f"Appel non exécuté : « {repeated.name} » avec les mêmes arguments vient déjà d'être "
            "demandé. La tâche est confiée à un humain."))
        observations = []
        for call in calls:  # every call answered, none executed: the conversation stays valid
            self.conversation.append({"role": "tool", "tool_call_id": call.id, "content": note})
            observations.append(note)
        self.steps.append(AgentStep(index, thought, calls, tuple(observations), usage))
        raise _Halt("escalated", (
            "Je suis désolé : je tourne en rond (j'ai demandé deux fois de suite la même action, "
            f"« {repeated.name} » avec {repeated.raw_arguments}). Je préfère m'arrêter ici ; un "
            "membre de l'équipe va prendre le relais. Merci de votre patience."))

    # -- after max_steps: one call without tools for a best-effort answer
    def best_effort(self, index: int) -> str:
        self.conversation.append({"role": "user", "content": BEST_EFFORT_PROMPT})
        result, usage = self.ask(tools=self.schemas, tool_choice="none")
        text = (result.text or "").strip()
        if text and not result.tool_calls:
            self.conversation.append(result.message)
        else:
            text = ("Je n'ai pas pu terminer dans le nombre d'étapes permis et je n'ai pas de "
                    "réponse fiable à donner.")
        self.steps.append(AgentStep(index, None, (), (), usage, text))
        return text


def run_agent(
    task: str,
    toolbox: Toolbox | Iterable[Callable | Tool],
    *,
    client: Any = None,
    model: str | None = None,
    system: str | None = None,
    max_steps: int = 8,
    token_budget: int | None = None,
    cost_budget: float | None = None,
    max_retries: int | None = None,
    ledger: llm.UsageLedger | None = None,
    temperature: float | None = None,
    max_empty_retries: int = 2,
    messages: Iterable[dict] | None = None,
    guard: Callable[[Usage, int], tuple[str, str] | None] | None = None,
) -> AgentRun:
    """Run the ReAct loop on ``task`` with ``toolbox`` (a ``Toolbox`` or a list of functions).

    ``system`` — ``None`` uses ``DEFAULT_SYSTEM``, ``""`` sends none. ``messages`` — an earlier
    conversation to continue (the task is appended as a user message). ``max_steps`` counts model
    turns with tools; ``token_budget`` bounds the total tokens of the run (see ``estimate_tokens``);
    ``cost_budget`` bounds its estimated cost in US dollars (offline: at the simulator's reference
    price, see ``usage.OFFLINE_REFERENCE``; a local server costs nothing); ``max_retries``
    overrides the SDK's retries of 429/5xx/timeouts for this run; ``guard`` is asked before every
    model call whether to stop (see the module docstring).
    """
    if max_steps < 1:
        raise ValueError("run_agent : max_steps doit valoir au moins 1.")
    if isinstance(toolbox, Toolbox):
        box = toolbox
    else:
        box = Toolbox([toolbox] if callable(toolbox) else toolbox)
    if FINISH not in box:
        box = box.with_tools(finish)
    options = {"client": client, "model": model, "token_budget": token_budget,
               "cost_budget": cost_budget,
               "max_retries": max_retries, "ledger": ledger, "temperature": temperature,
               "max_empty_retries": max_empty_retries, "guard": guard}
    loop = _Loop(box, _initial_messages(task, system, messages), options)
    status, error = "finished", None
    try:
        for index in range(1, max_steps + 1):
            answer = loop.turn(index)
            if answer is not None:
                break
        else:
            status = "max_steps"
            answer = loop.best_effort(max_steps + 1)
    except _Halt as halt:
        status, answer, error = halt.status, halt.answer, halt.error
    return AgentRun(answer=answer, status=status, steps=tuple(loop.steps), usage=loop.usage,
                    messages=tuple(loop.conversation), error=error, model=loop.model,
                    task=task or "")


__all__ = [
    "AgentRun",
    "AgentStep",
    "BEST_EFFORT_PROMPT",
    "DEFAULT_SYSTEM",
    "STATUSES",
    "estimate_tokens",
    "finish",
    "run_agent",
]
