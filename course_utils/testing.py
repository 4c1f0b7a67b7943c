"""Scripted models for tests and lessons: a stand-in for a real model, not magic.

Built on the offline model, so they run under the real ``openai`` SDK (its parsing, its retries, its
exceptions) — in the style of openai-agents' ``ScriptedModel`` and pydantic-ai's ``FunctionModel``.
They know nothing about your task: they say exactly what you scripted, in order, and they are
strict — a request after the last step fails loudly, and ``assert_complete()`` (also run when a
``with`` block ends without error) fails when steps or faults were left unconsumed::

    with ScriptedModel([
        turn(tool_call("get_weather", location="Lyon"), thought="Je regarde la météo."),
        turn(tool_call("finish", answer="18 °C à Lyon.")),
    ]) as model:
        run = run_agent("Quel temps fait-il à Lyon ?", [get_weather], client=model.client)

A step is: a fault (``429``, ``500``, ``"timeout"``, ``"connection"``, ``"choices_null"``,
``"empty_message"``…), ``text("…")`` (an assistant answer), or ``turn(tool_call(...), ...)``
(tool calls, with an optional thought). ``raw_tool_call(name, '{"oops"')`` sends its arguments as
given, to script malformed JSON. ``FunctionModel(fn)`` answers each chat request with
``fn(request)`` (the request body as a dict: ``messages``, ``tools``, ``tool_choice``…).
"""

from __future__ import annotations

from typing import Any, Callable

from . import llm


def text(content: str) -> dict:
    """An assistant turn that answers ``content`` (never mistaken for a fault name)."""
    return {"content": content}


def tool_call(name: str, /, **arguments: Any) -> dict:
    """One tool call, arguments given by name: ``tool_call("get_weather", location="Lyon")``."""
    return {"name": name, "arguments": arguments}


def raw_tool_call(name: str, arguments: str) -> dict:
    """One tool call whose arguments text is sent as is (e.g. malformed JSON)."""
    return {"name": name, "arguments": arguments}


def turn(*calls: dict, thought: str | None = None) -> dict:
    """An assistant turn with these tool calls (in one turn) and an optional thought."""
    if not calls:
        raise ValueError("turn() : donnez au moins un appel d'outil (sinon utilisez text()).")
    return {"content": thought, "tool_calls": list(calls)}


def finish(answer: str, *, thought: str | None = None) -> dict:
    """A turn calling the ``finish`` tool of ``run_agent`` with ``answer``."""
    return turn(tool_call("finish", answer=answer), thought=thought)


class _ModelDouble:
    """What scripted and function models share: an offline model, a client, the record."""

    def __init__(self, *, faults: list | None = None, seed: int | None = None):
        from .offline import OfflineModel

        self.offline = OfflineModel(seed=seed, faults=faults)
        self._client = None

    @property
    def client(self):
        """An ``openai.OpenAI`` client served by this model (the same one each time)."""
        if self._client is None:
            self._client = self.make_client()
        return self._client

    def make_client(self, **options: Any):
        """A new client with SDK options, e.g. ``make_client(max_retries=0)``."""
        return llm.make_client(offline=self.offline, **options)

    @property
    def calls(self) -> list[dict]:
        """Every HTTP request received (SDK retries and faults included)."""
        return self.offline.calls

    @property
    def requests(self) -> list[dict]:
        """The bodies of the chat requests received, in order."""
        return self.offline.chat_requests

    def assert_complete(self) -> None:
        """Fail (``AssertionError``) if scripted steps or faults were left unconsumed."""
        self.offline.assert_complete()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.assert_complete()


class ScriptedModel(_ModelDouble):
    """Plays ``steps`` strictly, one per chat request; ``faults`` come first, one per request."""

    def __init__(self, steps: list, *, faults: list | None = None, seed: int | None = None):
        super().__init__(faults=faults, seed=seed)
        self.steps = list(steps)
        self.offline.script(self.steps)

    def __repr__(self) -> str:
        return f"ScriptedModel({len(self.steps)} étape(s), {len(self.requests)} requête(s) reçue(s))"


class FunctionModel(_ModelDouble):
    """Answers each chat request with ``fn(request) -> step``.

    With ``fallback=True`` a ``None`` step lets the offline model's own skills answer; by default
    ``None`` is a mistake and fails loudly.
    """

    def __init__(self, fn: Callable[[dict], Any], *, faults: list | None = None,
                 seed: int | None = None, fallback: bool = False):
        super().__init__(faults=faults, seed=seed)
        self.fn = fn
        self.fallback = fallback
        self.offline.responder(self._respond)

    def _respond(self, request: dict) -> Any:
        step = self.fn(request)
        if step is None and not self.fallback:
            from .offline.errors import InvalidStep

            raise InvalidStep(
                f"FunctionModel : {getattr(self.fn, '__name__', 'la fonction')} a renvoyé None "
                "pour une requête (passez fallback=True pour laisser le modèle hors ligne répondre)."
            )
        return step

    def __repr__(self) -> str:
        name = getattr(self.fn, "__name__", "fn")
        return f"FunctionModel({name}, {len(self.requests)} requête(s) reçue(s))"


__all__ = [
    "FunctionModel",
    "ScriptedModel",
    "finish",
    "raw_tool_call",
    "text",
    "tool_call",
    "turn",
]
