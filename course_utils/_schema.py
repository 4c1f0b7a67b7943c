"""JSON Schema for tools: derived from type hints, and arguments checked against it.

``build_params`` turns a function's signature (type hints + parameter descriptions from its
docstring) into parameter records holding each property's JSON Schema; ``check`` validates one
argument a model sent against that schema (the small subset we generate: string, integer, number,
boolean, array with items, object with additionalProperties, enum). Used by ``course_utils.tools``.
"""

from __future__ import annotations

import inspect
import json
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal, Union


class ToolDefinitionError(TypeError):
    """A function that cannot become a tool (the French message says why and how to fix it)."""


_JSON_TYPE_FR = {
    "string": "une chaîne de caractères (string)",
    "integer": "un entier (integer)",
    "number": "un nombre (number)",
    "boolean": "un booléen true/false (boolean)",
    "array": "une liste (array)",
    "object": "un objet JSON (object)",
}


# --------------------------------------------------------------------------- schema from hints


@dataclass(frozen=True)
class Param:
    name: str
    schema: dict
    required: bool
    nullable: bool
    has_default: bool


def annotated_parts(tp: Any) -> tuple[Any, str | None]:
    if typing.get_origin(tp) is typing.Annotated:
        base, *meta = typing.get_args(tp)
        desc = next((m for m in meta if isinstance(m, str)), None)
        return base, desc
    return tp, None


def split_optional(tp: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(tp)
    if origin is Union or origin is types.UnionType:
        args = typing.get_args(tp)
        others = [a for a in args if a is not type(None)]
        if len(others) == len(args):
            raise Unsupported(f"union {tp!r} (une union de plusieurs types n'est pas prise en charge)")
        if len(others) != 1:
            raise Unsupported(f"union {tp!r} (seul Optional[T] / T | None est pris en charge)")
        return others[0], True
    return tp, False


class Unsupported(Exception):
    pass


def literal_schema(values: tuple) -> dict:
    if not values:
        raise Unsupported("Literal[] vide")
    if all(isinstance(v, bool) for v in values):
        kind = "boolean"
    elif all(isinstance(v, str) for v in values):
        kind = "string"
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        kind = "integer"
    elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        kind = "number"
    else:
        raise Unsupported(f"Literal{list(values)!r} (valeurs de types mélangés)")
    return {"type": kind, "enum": list(values)}


def type_schema(tp: Any) -> dict:
    """JSON Schema of one annotation (without description); raises ``Unsupported``."""
    tp, _ = annotated_parts(tp)
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if tp in simple:
        return {"type": simple[tp]}
    origin = typing.get_origin(tp)
    if origin is Literal:
        return literal_schema(typing.get_args(tp))
    if tp is list or origin is list:
        args = typing.get_args(tp)
        if not args:
            return {"type": "array"}
        inner, nullable = split_optional(args[0])
        if nullable:
            raise Unsupported(f"{tp!r} (liste d'éléments optionnels)")
        return {"type": "array", "items": type_schema(inner)}
    if tp is dict or origin is dict:
        args = typing.get_args(tp)
        if not args:
            return {"type": "object"}
        if args[0] is not str:
            raise Unsupported(f"{tp!r} (les clés d'un objet JSON sont des chaînes : dict[str, T])")
        return {"type": "object", "additionalProperties": type_schema(args[1])}
    if origin is Union or origin is types.UnionType:
        raise Unsupported(f"{tp!r} (Optional n'est accepté qu'au premier niveau d'un paramètre)")
    raise Unsupported(repr(tp))


def build_params(fn: Callable, name: str, docs: dict[str, str]) -> list[Param]:
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:  # a hint naming something undefined, typically
        raise ToolDefinitionError(
            f"outil « {name} » : impossible de lire les annotations de type ({exc}). "
            "Vérifiez que chaque type utilisé est importé."
        ) from exc
    params = []
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"outil « {name} » : *{param.name} / **{param.name} n'est pas pris en charge ; "
                "un outil déclare chacun de ses paramètres avec son type."
            )
        if param.kind is param.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"outil « {name} » : le paramètre « {param.name} » est positionnel seulement (/) ; "
                "le modèle passe les arguments par leur nom."
            )
        if param.name not in hints:
            raise ToolDefinitionError(
                f"outil « {name} » : le paramètre « {param.name} » n'a pas d'annotation de type. "
                f"Écrivez par exemple `{param.name}: str` pour que le schéma JSON puisse être déduit."
            )
        hint = hints[param.name]
        try:
            base, annotated_desc = annotated_parts(hint)
            base, nullable = split_optional(base)
            schema = type_schema(base)
        except Unsupported as exc:
            raise ToolDefinitionError(
                f"outil « {name} » : type non pris en charge pour le paramètre « {param.name} » : "
                f"{exc}. Types acceptés : str, int, float, bool, list[T], dict[str, T], "
                "Literal[...], Optional[T] (ou T | None)."
            ) from None
        description = annotated_desc or docs.get(param.name)
        if description:
            schema["description"] = description
        has_default = param.default is not param.empty
        params.append(
            Param(
                name=param.name,
                schema=schema,
                required=not has_default and not nullable,
                nullable=nullable,
                has_default=has_default,
            )
        )
    unknown = sorted(set(docs) - {p.name for p in params})
    if unknown:
        raise ToolDefinitionError(
            f"outil « {name} » : la docstring décrit {', '.join(unknown)}, absent(s) de la "
            "signature. Corrigez le nom dans la docstring ou dans la signature."
        )
    return params


# --------------------------------------------------------------------------- validation


class ArgProblem(Exception):
    def __init__(self, kind: str, text: str):
        super().__init__(text)
        self.kind = kind
        self.text = text


def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"le booléen {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"le nombre {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:40] + "…"
        return f"la chaîne {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return "une liste"
    if isinstance(value, dict):
        return "un objet"
    return type(value).__name__


def check(value: Any, schema: dict, where: str) -> Any:
    """Validate ``value`` against our schema subset; return it (int→float coerced)."""
    kind = schema.get("type")
    expected = _JSON_TYPE_FR.get(kind, kind)
    bad = ArgProblem("type_invalide", f"« {where} » doit être {expected}, reçu {describe(value)}")
    if kind == "string":
        if not isinstance(value, str):
            raise bad
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise bad
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        if isinstance(value, float):
            if not value.is_integer():
                raise bad
            value = int(value)
    elif kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise bad
        value = float(value) if isinstance(value, int) else value
    elif kind == "array":
        if not isinstance(value, list):
            raise bad
        if "items" in schema:
            value = [check(item, schema["items"], f"{where}[{i}]") for i, item in enumerate(value)]
    elif kind == "object":
        if not isinstance(value, dict):
            raise bad
        if "additionalProperties" in schema:
            value = {k: check(v, schema["additionalProperties"], f"{where}.{k}")
                     for k, v in value.items()}
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
        raise ArgProblem(
            "type_invalide",
            f"« {where} » doit valoir l'une des valeurs {allowed} ; reçu {describe(value)}",
        )
    return value
