"""Tools for a model: a typed Python function becomes an OpenAI tool, and a ``Toolbox`` runs calls.

``@tool`` reads the function's type hints and docstring and derives the JSON Schema a student would
otherwise write by hand (lesson 01)::

    @tool
    def get_weather(location: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
        \"\"\"Donne la météo actuelle d'une ville.

        Args:
            location: La ville, par exemple « Lyon ».
            unit: L'unité de température.
        \"\"\"

    get_weather.schema  # {"type": "function", "function": {"name": "get_weather", ...}}
    get_weather("Lyon")  # still an ordinary function

Types: ``str``, ``int``, ``float``, ``bool``, ``list[T]``, ``dict[str, T]``, ``Literal[...]``
(→ ``enum``, typed after its values), ``Optional[T]`` / ``T | None`` and ``Annotated[T, "desc"]``.
A parameter with a default, or ``Optional`` without one (it then receives ``None``), is not
required. The schema carries no ``default`` and no top-level ``additionalProperties`` key, exactly
like the hand-written schemas of lesson 01; unexpected arguments are still refused, by the toolbox.
Docstrings: Google (``Args:``), NumPy (``Parameters`` underlined), reST (``:param x:``), with the
French section names too (``Arguments :``, ``Paramètres``). Anything else fails at decoration time
with a French message.

``Toolbox.run(tool_call)`` never raises: every problem comes back as the ``tool`` message to
append, whose content is JSON ``{"error": {"type": ..., "message": ...}}`` with a French message
the model can act on. The types (``ERROR_TYPES``) tell apart an unknown tool, invalid JSON,
arguments that are not an object, a missing argument, an unexpected argument, a wrong type or
value, and an exception raised *inside* the tool. A successful result is sent as is when it is a
``str``, otherwise as JSON (``ensure_ascii=False``; dataclasses become objects; anything else not
serialisable becomes its ``str()``).

Where things live: hints → JSON Schema and argument checks in ``_schema``, docstring parsing in
``_docstrings``; this module holds what a lesson shows (``tool``, ``Tool``, ``Toolbox``).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from . import _docstrings
from ._schema import ArgProblem, ToolDefinitionError, build_params, check, describe

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

ERROR_TYPES = (
    "outil_inconnu",
    "json_invalide",
    "arguments_non_objet",
    "argument_manquant",
    "argument_inattendu",
    "type_invalide",
    "erreur_dans_outil",
)


# --------------------------------------------------------------------------- the Tool object


class Tool:
    """A Python function together with its OpenAI tool schema; calling it calls the function."""

    def __init__(self, fn: Callable, *, name: str | None = None, description: str | None = None):
        if isinstance(fn, Tool):
            fn = fn.fn
        if not callable(fn):
            raise ToolDefinitionError(f"un outil doit être une fonction, reçu : {fn!r}")
        name = name or getattr(fn, "__name__", "")
        if not NAME_PATTERN.match(name or ""):
            raise ToolDefinitionError(
                f"nom d'outil invalide : « {name} ». Un nom d'outil ne contient que des lettres "
                "sans accent, des chiffres, « _ » ou « - » (64 caractères au plus)."
            )
        summary, docs = _docstrings.parse(inspect.getdoc(fn) or "")
        self.fn = fn
        self.name = name
        self.description = description if description is not None else summary
        self._params = build_params(fn, name, docs)
        functools.update_wrapper(self, fn)
        self.__name__ = name

    @property
    def parameters(self) -> dict:
        """The ``parameters`` JSON Schema (an object schema)."""
        return {
            "type": "object",
            "properties": {p.name: copy.deepcopy(p.schema) for p in self._params},
            "required": [p.name for p in self._params if p.required],
        }

    @property
    def schema(self) -> dict:
        """The tool as the OpenAI API expects it in ``tools=[...]`` (a fresh copy each time)."""
        function: dict[str, Any] = {"name": self.name}
        if self.description:
            function["description"] = self.description
        function["parameters"] = self.parameters
        return {"type": "function", "function": function}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        args = ", ".join(
            f"{p.name}{'' if p.required else '?'}: {p.schema.get('type', '?')}" for p in self._params
        )
        return f"Tool({self.name}({args}))"


def tool(fn: Callable | None = None, *, name: str | None = None, description: str | None = None):
    """Turn a typed, documented function into a ``Tool``; use as ``@tool`` or ``@tool(name=...)``."""
    if fn is None:
        return lambda f: Tool(f, name=name, description=description)
    return Tool(fn, name=name, description=description)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call: the ``tool`` message content and whether it is an error."""

    tool_call_id: str
    name: str
    arguments: dict | None
    content: str
    error_type: str | None = None
    value: Any = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        return self.error_type is None

    @property
    def message(self) -> dict:
        """The message to append to the conversation."""
        return {"role": "tool", "tool_call_id": self.tool_call_id, "content": self.content}


def _json_default(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if hasattr(value, "model_dump"):
        return value.model_dump()
    return str(value)


def to_content(value: Any) -> str:
    """A tool's return value as message content: a ``str`` as is, anything else as JSON."""
    if isinstance(value, str):
        return value
    structured = (dict, list, tuple, set, frozenset, int, float, bool, type(None))
    if not (isinstance(value, structured) or hasattr(value, "model_dump")
            or (dataclasses.is_dataclass(value) and not isinstance(value, type))):
        return str(value)
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_default)
    except (TypeError, ValueError):  # circular structures, NaN keys...
        return str(value)


def error_content(kind: str, message: str) -> str:
    return json.dumps({"error": {"type": kind, "message": message}}, ensure_ascii=False)


def _read_call(tool_call: Any) -> tuple[str, str, Any]:
    """(id, name, arguments as str/dict/None) from an SDK object, an ``llm.ToolCall`` or a dict."""
    if isinstance(tool_call, dict):
        function = tool_call.get("function")
        if isinstance(function, dict):
            return (str(tool_call.get("id") or ""), str(function.get("name") or ""),
                    function.get("arguments"))
        return (str(tool_call.get("id") or ""), str(tool_call.get("name") or ""),
                tool_call.get("arguments"))
    function = getattr(tool_call, "function", None)
    if function is not None:
        return (str(getattr(tool_call, "id", "") or ""), str(getattr(function, "name", "") or ""),
                getattr(function, "arguments", None))
    raw = getattr(tool_call, "raw_arguments", None)
    arguments = raw if raw is not None else getattr(tool_call, "arguments", None)
    return (str(getattr(tool_call, "id", "") or ""), str(getattr(tool_call, "name", "") or ""),
            arguments)


# --------------------------------------------------------------------------- the toolbox


class Toolbox:
    """A set of tools offered to a model: ``.schemas`` to send, ``.run(call)`` to answer a call."""

    def __init__(self, tools: Iterable[Callable] = ()):
        self._tools: dict[str, Tool] = {}
        for item in tools:
            item = item if isinstance(item, Tool) else Tool(item)
            if item.name in self._tools:
                raise ToolDefinitionError(
                    f"deux outils portent le même nom : « {item.name} ». Renommez l'un d'eux "
                    "(par exemple @tool(name=...))."
                )
            self._tools[item.name] = item

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    @property
    def schemas(self) -> list[dict]:
        return [t.schema for t in self._tools.values()]

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def with_tools(self, *tools: Callable) -> "Toolbox":
        """A new toolbox with these tools added (this one is left unchanged)."""
        return Toolbox([*self._tools.values(), *tools])

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self):
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __repr__(self) -> str:
        return f"Toolbox({', '.join(self._tools)})"

    def run(self, tool_call: Any) -> dict:
        """Execute one tool call; return the ``tool`` message to append. Never raises."""
        return self.call(tool_call).message

    def call(self, tool_call: Any) -> ToolResult:
        """Like ``run`` but returns the whole ``ToolResult`` (error type, parsed arguments)."""
        try:
            call_id, name, raw = _read_call(tool_call)
        except Exception as exc:  # an object we cannot read at all
            return ToolResult("", "", None, error_content(
                "arguments_non_objet", f"Erreur : appel d'outil illisible ({exc})."),
                "arguments_non_objet")
        try:
            return self._call(call_id, name, raw)
        except Exception as exc:  # defensive: run() must never raise
            return ToolResult(call_id, name, None, error_content(
                "erreur_dans_outil", f"Erreur interne en traitant l'appel à « {name} » : "
                f"{type(exc).__name__}: {exc}"), "erreur_dans_outil")

    def _call(self, call_id: str, name: str, raw: Any) -> ToolResult:
        def fail(kind: str, text: str, arguments: dict | None = None) -> ToolResult:
            return ToolResult(call_id, name, arguments, error_content(kind, text), kind)

        available = ", ".join(self._tools) or "(aucun)"
        item = self._tools.get(name)
        if item is None:
            return fail("outil_inconnu",
                        f"Erreur : l'outil « {name} » n'existe pas. Outils disponibles : "
                        f"{available}. Appelez l'un de ces outils, avec son nom exact.")
        if isinstance(raw, dict):
            arguments = raw
        elif raw is None or (isinstance(raw, str) and not raw.strip()):
            arguments = {}
        else:
            try:
                arguments = json.loads(raw)
            except (TypeError, ValueError) as exc:
                return fail("json_invalide",
                            f"Erreur : les arguments de l'appel à « {name} » ne sont pas du JSON "
                            f"valide ({getattr(exc, 'msg', exc)}). Renvoyez l'appel avec un objet "
                            f"JSON valide, par exemple {self._example(item)}.")
        if not isinstance(arguments, dict):
            return fail("arguments_non_objet",
                        f"Erreur : les arguments de « {name} » doivent être un objet JSON "
                        f"({{\"nom\": valeur, ...}}), reçu {describe(arguments)}. Par exemple "
                        f"{self._example(item)}.")
        problems = self._validate(item, arguments)
        if isinstance(problems, list):
            signature = self._signature(item)
            text = " ; ".join(p.text for p in problems)
            return fail(problems[0].kind,
                        f"Erreur : appel de « {name} » invalide : {text}. Paramètres : "
                        f"{signature}.", arguments)
        try:
            value = item.fn(**problems)
        except Exception as exc:
            return fail("erreur_dans_outil",
                        f"Erreur : l'outil « {name} » a échoué pendant son exécution "
                        f"({type(exc).__name__}: {exc}). L'appel était bien formé : c'est l'outil "
                        "lui-même qui a levé une exception. Essayez d'autres arguments ou une "
                        "autre approche.", arguments)
        return ToolResult(call_id, name, arguments, to_content(value), None, value)

    def _validate(self, item: Tool, arguments: dict) -> dict | list[ArgProblem]:
        """The keyword arguments to call with, or the list of problems found."""
        params = {p.name: p for p in item._params}
        problems: list[ArgProblem] = []
        for key in arguments:
            if key not in params:
                problems.append(ArgProblem("argument_inattendu", f"argument inattendu « {key} »"))
        for p in params.values():
            if p.required and p.name not in arguments:
                problems.append(ArgProblem("argument_manquant",
                                            f"argument obligatoire manquant « {p.name} »"))
        kwargs: dict[str, Any] = {}
        for key, value in arguments.items():
            p = params.get(key)
            if p is None:
                continue
            if value is None and (p.nullable or p.has_default):
                if p.nullable:
                    kwargs[key] = None
                continue  # null for a plain default: keep the function's default
            try:
                kwargs[key] = check(value, p.schema, key)
            except ArgProblem as problem:
                problems.append(problem)
        for p in params.values():
            if p.nullable and not p.has_default and p.name not in kwargs:
                kwargs[p.name] = None
        if problems:
            order = {kind: i for i, kind in enumerate(ERROR_TYPES)}
            return sorted(problems, key=lambda pr: order[pr.kind])
        return kwargs

    @staticmethod
    def _signature(item: Tool) -> str:
        parts = []
        for p in item._params:
            kind = p.schema.get("type", "?")
            if "enum" in p.schema:
                kind += " parmi " + "/".join(str(v) for v in p.schema["enum"])
            parts.append(f"{p.name} ({kind}{'' if p.required else ', facultatif'})")
        return ", ".join(parts) or "aucun"

    @staticmethod
    def _example(item: Tool) -> str:
        samples = {"string": "...", "integer": 1, "number": 1.5, "boolean": True,
                   "array": [], "object": {}}
        example = {}
        for p in item._params:
            if p.required:
                enum = p.schema.get("enum")
                example[p.name] = enum[0] if enum else samples.get(p.schema.get("type"), "...")
        return json.dumps(example, ensure_ascii=False)


__all__ = [
    "ERROR_TYPES",
    "Tool",
    "ToolDefinitionError",
    "ToolResult",
    "Toolbox",
    "error_content",
    "to_content",
    "tool",
]
