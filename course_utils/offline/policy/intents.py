"""What the user asked, as data: an ``Intent`` per thing asked, a ``Deferred`` per argument that a
tool's result will give.

``selection`` builds intents from a request, ``deferral`` attaches the deferred arguments and later
resolves them, ``planning`` turns intents into calls. The data lives here, apart from all three,
so that none of them imports another for its types.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..understanding import expressions


@dataclass(frozen=True)
class Deferred:
    """A parameter whose value will come from ``source``'s result."""

    param: str
    kind: str  # "place", "time", "end", "arrival" or "id"
    source: str  # the tool whose result holds the value
    subject: str = ""  # what holds it, in the user's words (« prochaine réunion », « café »)
    selector: str | None = None  # "last", "next", "first"

    def describe(self) -> str:
        if self.kind == "arrival":
            return f"heure d'arrivée, d'après {self.source}"
        return f"{self.subject}, d'après {self.source}" if self.subject else (
            f"d'après {self.source}")


@dataclass(frozen=True)
class Intent:
    """One thing the user asked: a call to ``tool`` (or an arithmetic ``expression``)."""

    clause: str
    tool: str | None
    arguments: dict = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    expression: expressions.Expr | None = None
    operators: tuple[tuple[str, str], ...] = ()  # op name -> tool name, for expressions
    deferred: tuple[Deferred, ...] = ()  # arguments a tool result will give
