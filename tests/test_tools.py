"""Tools from Python functions, and a toolbox that answers every call without raising."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, List, Literal, Optional

import pytest
from openai.types.chat import ChatCompletionMessageToolCall

from course_utils.llm import ToolCall
from course_utils.tools import Tool, ToolDefinitionError, Toolbox, tool

# --------------------------------------------------------------------------- lesson 01's tools


@tool
def get_weather(location: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    """Donne la météo actuelle d'une ville.

    Args:
        location: La ville, par exemple « Lyon ».
        unit: L'unité de température.
    """
    return {"location": location, "temperature": 18, "unit": unit, "condition": "nuageux"}


GET_WEATHER_BY_HAND = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Donne la météo actuelle d'une ville.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "La ville, par exemple « Lyon »."},
                "unit": {
                    "type": "string",
                    "enum": ["celsius", "fahrenheit"],
                    "description": "L'unité de température.",
                },
            },
            "required": ["location"],
        },
    },
}


@tool
def create_reminder(
    title: str, time: str, priority: Optional[Literal["low", "medium", "high"]] = None
) -> dict:
    """Crée un rappel.

    Arguments :
        title : Le titre du rappel.
        time : Le moment du rappel, par exemple « demain 09:00 ».
        priority : La priorité
            du rappel.
    """
    return {"title": title, "time": time, "priority": priority}


CREATE_REMINDER_BY_HAND = {
    "type": "function",
    "function": {
        "name": "create_reminder",
        "description": "Crée un rappel.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "Le titre du rappel."},
                "time": {
                    "type": "string",
                    "description": "Le moment du rappel, par exemple « demain 09:00 ».",
                },
                "priority": {
                    "type": "string",
                    "enum": ["low", "medium", "high"],
                    "description": "La priorité du rappel.",
                },
            },
            "required": ["title", "time"],
        },
    },
}


@tool
def search_courses(
    category: Literal["Programming", "ML", "Data"] | None = None,
    min_duration: float | None = None,
    max_price: float | None = None,
    level: Literal["beginner", "intermediate", "advanced"] | None = None,
) -> list:
    """Cherche des cours dans le catalogue, avec des filtres facultatifs.

    Paramètres
    ----------
    category : str
        La catégorie du cours.
    min_duration : float
        Durée minimale, en heures.
    max_price : float
        Prix maximal, en euros.
    level : str
        Le niveau visé.
    """
    return []


SEARCH_COURSES_BY_HAND = {
    "type": "function",
    "function": {
        "name": "search_courses",
        "description": "Cherche des cours dans le catalogue, avec des filtres facultatifs.",
        "parameters": {
            "type": "object",
            "properties": {
                "category": {
                    "type": "string",
                    "enum": ["Programming", "ML", "Data"],
                    "description": "La catégorie du cours.",
                },
                "min_duration": {"type": "number", "description": "Durée minimale, en heures."},
                "max_price": {"type": "number", "description": "Prix maximal, en euros."},
                "level": {
                    "type": "string",
                    "enum": ["beginner", "intermediate", "advanced"],
                    "description": "Le niveau visé.",
                },
            },
            "required": [],
        },
    },
}


@pytest.mark.parametrize(
    "derived, by_hand",
    [
        (get_weather, GET_WEATHER_BY_HAND),
        (create_reminder, CREATE_REMINDER_BY_HAND),
        (search_courses, SEARCH_COURSES_BY_HAND),
    ],
    ids=["weather-google", "reminder-french-args", "courses-numpy-french"],
)
def test_schema_equals_the_one_written_by_hand_in_lesson_01(derived, by_hand):
    assert derived.schema == by_hand
    # Same key order too: a notebook printing the schema shows what the student wrote.
    assert json.dumps(derived.schema, ensure_ascii=False) == json.dumps(by_hand, ensure_ascii=False)


def test_decorated_function_is_still_the_function():
    assert get_weather("Lyon")["location"] == "Lyon"
    assert get_weather.name == "get_weather"
    assert get_weather.__doc__.startswith("Donne la météo")
    assert isinstance(get_weather, Tool)


def test_schema_is_a_fresh_copy():
    get_weather.schema["function"]["name"] = "changed"
    assert get_weather.schema["function"]["name"] == "get_weather"


def test_options_override_name_and_description():
    @tool(name="meteo", description="Météo d'une ville.")
    def weather(city: str) -> str:
        """Ignored."""
        return city

    assert weather.schema["function"]["name"] == "meteo"
    assert weather.schema["function"]["description"] == "Météo d'une ville."
    assert weather("Lyon") == "Lyon"


def test_types_lists_literals_annotated_and_rest_docstrings():
    @tool
    def f(
        numbers: list[float],
        tags: List[str],
        level: Literal[1, 2, 3],
        note: Annotated[str, "Une note libre."],
        flag: bool = False,
        extra: dict[str, int] | None = None,
    ) -> None:
        """Fait quelque chose.

        :param numbers: Les nombres.
        :param flag: Un drapeau.
        """

    props = f.schema["function"]["parameters"]["properties"]
    assert props["numbers"] == {"type": "array", "items": {"type": "number"},
                                "description": "Les nombres."}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["level"] == {"type": "integer", "enum": [1, 2, 3]}
    assert props["note"] == {"type": "string", "description": "Une note libre."}
    assert props["flag"] == {"type": "boolean", "description": "Un drapeau."}
    assert props["extra"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert f.schema["function"]["parameters"]["required"] == ["numbers", "tags", "level", "note"]
    assert f.schema["function"]["description"] == "Fait quelque chose."


@pytest.mark.parametrize(
    "source, fragment",
    [
        ("def f(x: tuple): 'Doc.'", "type non pris en charge pour le paramètre « x »"),
        ("def f(x: int | str): 'Doc.'", "type non pris en charge pour le paramètre « x »"),
        ("def f(x): 'Doc.'", "n'a pas d'annotation de type"),
        ("def f(*args: int): 'Doc.'", "n'est pas pris en charge"),
        ("def f(x: int):\n    '''Doc.\n\n    Args:\n        y: typo.\n    '''", "la docstring décrit y"),
        ("def f(x: Undefined): 'Doc.'", "impossible de lire les annotations"),
    ],
)
def test_unsupported_definitions_fail_at_decoration_in_french(source, fragment):
    namespace: dict = {}
    exec(source, namespace)
    with pytest.raises(ToolDefinitionError) as excinfo:
        tool(namespace["f"])
    assert "outil « f »" in str(excinfo.value)
    assert fragment in str(excinfo.value)


def test_invalid_tool_name_is_refused():
    with pytest.raises(ToolDefinitionError, match="nom d'outil invalide"):
        tool(lambda x: x, name="météo")


# --------------------------------------------------------------------------- the toolbox


@dataclass(frozen=True)
class Forecast:
    city: str
    summary: str


def lookup_capital(country: str) -> str:
    """Capitale d'un pays.

    Args:
        country: Le pays.
    """
    return {"France": "Paris"}[country]  # KeyError for any other country


def add(a: int, b: float) -> dict:
    """Additionne."""
    return {"a": a, "b": b, "b_is_float": isinstance(b, float), "sum": a + b}


def forecast(city: str) -> Forecast:
    """Prévision."""
    return Forecast(city, "Ciel dégagé, 25 °C à l'été")


def opaque() -> object:
    """Un objet sans représentation JSON."""
    return complex(1, 2)


@pytest.fixture
def box() -> Toolbox:
    return Toolbox([get_weather, lookup_capital, add, forecast, opaque])


def payload(message: dict) -> dict:
    return json.loads(message["content"])


def test_toolbox_accepts_plain_functions_and_lists_schemas(box):
    assert box.names == ["get_weather", "lookup_capital", "add", "forecast", "opaque"]
    assert box.schemas[0] == GET_WEATHER_BY_HAND
    assert box.schemas[1]["function"]["parameters"]["required"] == ["country"]
    with pytest.raises(ToolDefinitionError, match="même nom"):
        Toolbox([get_weather, get_weather])


def test_result_is_json_with_accents_kept(box):
    msg = box.run({"id": "call_1", "type": "function",
                   "function": {"name": "forecast", "arguments": '{"city": "Nîmes"}'}})
    assert msg["role"] == "tool" and msg["tool_call_id"] == "call_1"
    assert "Nîmes" in msg["content"] and "\\u" not in msg["content"]
    assert payload(msg) == {"city": "Nîmes", "summary": "Ciel dégagé, 25 °C à l'été"}
    assert box.run({"name": "lookup_capital", "arguments": {"country": "France"}})["content"] == (
        "Paris")
    assert box.run({"name": "opaque", "arguments": "{}"})["content"] == "(1+2j)"


def test_call_formats_sdk_object_llm_toolcall_and_dict(box):
    sdk = ChatCompletionMessageToolCall(
        id="call_sdk", type="function",
        function={"name": "get_weather", "arguments": '{"location": "Lyon"}'})
    ours = ToolCall(id="call_llm", name="get_weather", arguments={"location": "Lyon"},
                    raw_arguments='{"location": "Lyon"}')
    flat = {"id": "call_flat", "name": "get_weather", "arguments": {"location": "Lyon"}}
    for call, call_id in ((sdk, "call_sdk"), (ours, "call_llm"), (flat, "call_flat")):
        msg = box.run(call)
        assert msg["tool_call_id"] == call_id
        assert payload(msg)["location"] == "Lyon"


def test_unknown_tool_names_it_and_lists_available_tools(box):
    error = payload(box.run({"id": "c", "name": "get_wether", "arguments": "{}"}))["error"]
    assert error["type"] == "outil_inconnu"
    assert "« get_wether » n'existe pas" in error["message"]
    for name in box.names:
        assert name in error["message"]


def test_key_error_inside_a_tool_is_not_an_unknown_tool(box):
    error = payload(box.run({"name": "lookup_capital", "arguments": '{"country": "Pérou"}'}))[
        "error"]
    assert error["type"] == "erreur_dans_outil"
    assert "KeyError" in error["message"] and "Pérou" in error["message"]
    assert "a échoué" in error["message"] and "n'existe pas" not in error["message"]


def test_invalid_json_asks_for_valid_json(box):
    error = payload(box.run({"name": "get_weather", "arguments": '{"location": "Lyon"'}))["error"]
    assert error["type"] == "json_invalide"
    assert "JSON valide" in error["message"]
    assert '{"location": "..."}' in error["message"]  # an example built from the schema
    not_object = payload(box.run({"name": "get_weather", "arguments": '["Lyon"]'}))["error"]
    assert not_object["type"] == "arguments_non_objet"


def test_missing_and_unexpected_arguments(box):
    missing = payload(box.run({"name": "get_weather", "arguments": {}}))["error"]
    assert missing["type"] == "argument_manquant"
    assert "« location »" in missing["message"]
    unexpected = payload(box.run({"name": "get_weather",
                                  "arguments": {"location": "Lyon", "city": "Lyon"}}))["error"]
    assert unexpected["type"] == "argument_inattendu"
    assert "« city »" in unexpected["message"]
    assert "location (string)" in unexpected["message"]  # says what is accepted


def test_types_are_checked_against_the_schema(box):
    ok = payload(box.run({"name": "add", "arguments": {"a": 2, "b": 3}}))
    assert ok == {"a": 2, "b": 3.0, "b_is_float": True, "sum": 5.0}  # int → float for a number
    bad = payload(box.run({"name": "add", "arguments": {"a": 2, "b": "abc"}}))["error"]
    assert bad["type"] == "type_invalide"
    assert "« b » doit être un nombre" in bad["message"] and '"abc"' in bad["message"]
    boolean = payload(box.run({"name": "add", "arguments": {"a": True, "b": 1}}))["error"]
    assert boolean["type"] == "type_invalide"
    enum = payload(box.run({"name": "get_weather",
                            "arguments": {"location": "Lyon", "unit": "kelvin"}}))["error"]
    assert enum["type"] == "type_invalide"
    assert '"celsius", "fahrenheit"' in enum["message"] and "kelvin" in enum["message"]


def test_optional_and_null_arguments(box):
    assert payload(create_reminder_box().run(
        {"name": "create_reminder", "arguments": {"title": "A", "time": "9h"}})) == {
        "title": "A", "time": "9h", "priority": None}
    # null for a parameter with a default keeps the default
    assert payload(box.run({"name": "get_weather",
                            "arguments": {"location": "Lyon", "unit": None}}))["unit"] == "celsius"


def create_reminder_box() -> Toolbox:
    return Toolbox([create_reminder])


@pytest.mark.parametrize("garbage", [42, None, object(), {"function": 3}])
def test_run_never_raises(box, garbage):
    msg = box.run(garbage)
    assert msg["role"] == "tool"
    assert "error" in payload(msg)


def test_with_tools_returns_a_new_toolbox(box):
    bigger = box.with_tools(create_reminder)
    assert "create_reminder" in bigger and "create_reminder" not in box
    assert len(bigger) == len(box) + 1
