"""Skills of the offline model: each recognises one kind of chat request and answers it.

One module per skill, each with a ``respond(request, ctx)`` entry point; ``default_skills()``
returns them in the order the server tries them (``SKILL_ORDER``):

* ``react`` — a ``finish`` tool, or the ReAct text format in the system prompt: thought, action,
  observation, until ``finish``;
* ``tool_use`` — any other request with ``tools``: function calling, then a French answer from the
  tool results only;
* ``code`` — a request to write a known function (bank problems, HumanEval): a fenced block,
  right with a per-problem probability, repairs, reflections (issue 10);
* ``game24`` — Game-of-24 prompts (propose / value / direct / chain of thought; the course's
  French formats and the Tree-of-Thoughts paper's English ones);
* ``arithmetic`` — word problems and arithmetic questions: short reasoning, ``Réponse : N``;
* ``chat`` — anything else: short honest answers (« Réponds uniquement par : OK » → ``OK``).

What the skills share lives beside them: ``..understanding`` reads requests and tool schemas
(words, numbers, arguments, expressions, the ReAct text format), ``..policy`` decides what to do
and say (selection, planning, research, answers). This ``__init__`` holds the contract below and
its types (``SkillContext``, ``Step``) plus two message helpers (``content_text``,
``last_user_text``); it imports no skill until ``default_skills()`` is called.

Contract (shared by every skill module in this package)
-------------------------------------------------------
A skill is a plain function::

    def respond(request: dict, ctx: SkillContext) -> Step | None

* ``request`` is the JSON body of ``POST /v1/chat/completions`` as the client sent it (already
  validated by the server: roles, pending tool calls, tool schemas). Skills never mutate it.
* It returns ``None`` when the request is not its kind (the next skill is tried), or a *step*:

  - a ``str``: an assistant message with that text;
  - a ``dict`` ``{"content": str | None, "tool_calls": [{"name": str, "arguments": dict | str}]}``:
    tool calls (``content`` may carry a one-line thought). The server assigns the call ids
    (``call_`` + 9 alphanumerics), serialises dict arguments to JSON, estimates ``usage`` and sets
    ``finish_reason`` (``tool_calls`` or ``stop``).

* ``tool_choice`` is the skill's business (``"none"`` → text only, ``"required"`` → at least one
  call, ``{"type": "function", "function": {"name": X}}`` → exactly a call to X). The server checks
  afterwards that the step honours it and fails loudly in tests if not.
* Determinism: a skill draws randomness only from ``ctx.rng``. At temperature 0 (or absent) the
  server gives ``sample_index == 0``; at temperature > 0 repeated identical requests get
  ``sample_index`` 0, 1, 2, … and a differently seeded ``rng``, so they may differ.
* Skills answer in French, and after tool results they use only facts present in those results.

The server tries ``default_skills()`` in order; the first non-``None`` answer wins, and the call
record names it (``skill_name``). A new skill is a module here with a ``respond`` function, listed
in ``SKILL_ORDER`` before ``chat`` (which answers everything, so it stays last).
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Union

Step = Union[str, dict]


@dataclass(frozen=True)
class SkillContext:
    """What a skill may know besides the request."""

    seed: int
    model: str
    temperature: float = 0.0
    sample_index: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(0), compare=False)
    # The model's ``competence_params.Competence`` (None: the defaults for ``model``).
    competence: Any = field(default=None, compare=False)


Skill = Callable[[dict, SkillContext], Union[Step, None]]


# Module names, in the order the server tries them; ``chat`` answers anything, so it comes last.
SKILL_ORDER: tuple[str, ...] = ("react", "tool_use", "code", "game24", "arithmetic", "chat")


def default_skills() -> list[Skill]:
    """The ``respond`` functions of ``SKILL_ORDER``, in that order (imported on first call)."""
    return [importlib.import_module(f"{__name__}.{name}").respond for name in SKILL_ORDER]


def skill_name(skill: Skill) -> str:
    """The name a call record gives ``skill``: its ``skill_name`` attribute if it has one, the
    module name for a skill of this package (``"react"``), else the function's name."""
    explicit = getattr(skill, "skill_name", None)
    if isinstance(explicit, str):
        return explicit
    module = getattr(skill, "__module__", "") or ""
    if module.startswith(__name__ + "."):
        return module[len(__name__) + 1:]
    return getattr(skill, "__name__", None) or type(skill).__name__


def last_user_text(request: dict) -> str:
    """Text of the last ``user`` message (content parts joined), or ``""``."""
    for message in reversed(request.get("messages") or []):
        if message.get("role") == "user":
            return content_text(message.get("content"))
    return ""


def content_text(content: Any) -> str:
    """Flatten a message ``content`` (string or list of parts) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") == "text":
            parts.append(str(part.get("text", "")))
    return "\n".join(parts)
