"""The budget guard and the global timeout of an orchestration run (lesson 05).

One ``Guard`` is shared by the planner's loop and by the engines it calls:

* the planner's calls go through ``run_agent(..., ledger=guard.planner, guard=guard)``: the
  ledger records each call's real ``usage`` as soon as it returns, and ``run_agent`` asks
  ``guard(usage, next_prompt_tokens)`` before every call;
* the engines get ``guard.client(client)``, a thin wrapper around the ``openai`` client whose
  ``chat.completions.create`` asks the guard first, then records the real ``usage``.

The rule is the same for both: a call is **not made** when the tokens already spent (planner +
engines, from the provider's ``usage``) plus what that call would cost would pass
``token_budget``. A call's cost is its prompt (``agent.estimate_tokens``) plus a *reserve* for its
answer: the longest answer seen so far in this run (per choice, times the request's ``n``). So a
budget smaller than one engine call stops before the engine runs. The reserve is an estimate: an
answer longer than every earlier one can still take the total a little past the budget.

The timeout is global (planner and engines together) and checked at the same places, between
model calls: an engine request already sent finishes (the sandbox has its own timeout per run).
Once the guard has stopped, it stays stopped (``guard.stopped``) and every later call is refused
with the same status: ``"budget_exhausted"`` or ``"timeout"``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from ..agent import estimate_tokens
from ..usage import Usage, UsageLedger


class GuardStop(Exception):
    """Raised by a guarded client instead of making a call the guard refuses."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class Guard:
    """Token budget (``None``: no limit) and global timeout in seconds (``None``: none).

    ``clock`` is injectable (tests use a fake clock instead of waiting).
    """

    def __init__(self, token_budget: int | None = None, timeout_s: float | None = None, *,
                 clock: Callable[[], float] = time.monotonic):
        self.token_budget = token_budget
        self.timeout_s = timeout_s
        self.clock = clock
        self.planner = UsageLedger()
        self.engines = Usage()
        self.stopped: tuple[str, str] | None = None
        self.refused = 0
        self.longest_answer = 0  # completion tokens of the longest answer (per choice) seen
        self._planner_completion = 0
        self._lock = threading.Lock()
        self._start = clock()

    # ---------------------------------------------------------------- accounting
    @property
    def planner_tokens(self) -> int:
        return self.planner.total.total_tokens

    @property
    def engine_tokens(self) -> int:
        return self.engines.total_tokens

    @property
    def spent(self) -> int:
        """Tokens spent so far: the planner's calls plus every call made inside the engines."""
        return self.planner_tokens + self.engine_tokens

    def record_engine(self, usage: Usage, choices: int = 1) -> None:
        with self._lock:
            self.engines = self.engines + usage
            per_choice = -(-usage.completion_tokens // max(1, choices))
            self.longest_answer = max(self.longest_answer, per_choice)

    def elapsed(self) -> float:
        return self.clock() - self._start

    # ---------------------------------------------------------------- the check
    def check(self, next_tokens: int, who: str = "le planificateur",
              choices: int = 1) -> tuple[str, str] | None:
        """``None`` when a call with a prompt of about ``next_tokens`` tokens (and ``choices``
        answers) may be made, else the (status, French message) that stops the run. ``who``
        names the caller in the message."""
        with self._lock:
            planner = self.planner.total
            if planner.completion_tokens > self._planner_completion:  # the planner's last answer
                self.longest_answer = max(self.longest_answer,
                                          planner.completion_tokens - self._planner_completion)
                self._planner_completion = planner.completion_tokens
            next_tokens = next_tokens + self.longest_answer * max(1, choices)
            if self.stopped is None and self.timeout_s is not None \
                    and self.elapsed() > self.timeout_s:
                self.stopped = ("timeout", (
                    f"Délai global dépassé : {self.elapsed():.1f} s écoulées sur "
                    f"{self.timeout_s:g} s permises. Je m'arrête avant l'appel suivant "
                    f"({who}) ; les résultats déjà obtenus sont conservés."))
            spent = planner.total_tokens + self.engines.total_tokens
            if self.stopped is None and self.token_budget is not None \
                    and spent + next_tokens > self.token_budget:
                self.stopped = ("budget_exhausted", (
                    f"Budget de jetons épuisé : {spent} jetons déjà dépensés (planificateur et "
                    f"moteurs) sur {self.token_budget}, et le prochain appel ({who}) en "
                    f"demanderait environ {next_tokens}. Je m'arrête avant de le faire."))
            if self.stopped is not None:
                self.refused += 1
            return self.stopped

    def __call__(self, usage: Usage, next_tokens: int) -> tuple[str, str] | None:
        """The ``run_agent(guard=...)`` hook (the planner's tokens are read from ``self.planner``)."""
        return self.check(next_tokens, "le planificateur")

    def client(self, client: Any) -> "GuardedClient":
        """``client`` wrapped so that every chat request is checked and counted (engines)."""
        return GuardedClient(client, self)

    def __repr__(self) -> str:
        budget = "∞" if self.token_budget is None else self.token_budget
        return (f"Guard({self.spent}/{budget} jetons : planificateur {self.planner_tokens}, "
                f"moteurs {self.engine_tokens} ; arrêt : {self.stopped[0] if self.stopped else '—'})")


class _Completions:
    def __init__(self, inner: Any, guard: Guard):
        self._inner, self._guard = inner, guard

    def create(self, **request: Any) -> Any:
        needed = estimate_tokens(request.get("messages") or [], request.get("tools"))
        choices = int(request.get("n") or 1)
        stop = self._guard.check(needed, "un moteur", choices)
        if stop is not None:
            raise GuardStop(*stop)
        completion = self._inner.create(**request)
        self._guard.record_engine(Usage.from_api(getattr(completion, "usage", None)), choices)
        return completion


class _Chat:
    def __init__(self, inner: Any, guard: Guard):
        self.completions = _Completions(inner.completions, guard)


class GuardedClient:
    """An ``openai.OpenAI`` client seen through a ``Guard``: ``chat.completions.create`` is
    checked and counted; every other attribute (``base_url``, ``models``...) is the client's."""

    def __init__(self, client: Any, guard: Guard):
        self._client = client
        self.guard = guard
        self.chat = _Chat(client.chat, guard)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def __repr__(self) -> str:
        return f"GuardedClient({self._client!r}, {self.guard!r})"


__all__ = ["Guard", "GuardStop", "GuardedClient"]
