"""``OfflineModel``: a deterministic stand-in for a chat model, served under the real SDK.

It is a teaching and testing double, not magic. It answers HTTP requests that a genuine
``openai.OpenAI`` client sends through the SDK's own HTTP library's ``MockTransport``, so the
student's code, the SDK's parsing, its retries and its exceptions are exactly those of a real
provider; no socket is ever opened. What it says comes from, in order of priority:

1. pending **faults** (``faults=[...]`` / ``add_faults``), one per HTTP request, any endpoint;
2. a **script** (``script(steps)``): strictly one step per chat request; when it is exhausted,
   the next chat request raises ``ScriptExhausted`` (an ``AssertionError``) *from the transport*.
   We chose an exception over an HTTP 500 because the SDK would retry a 500 and then show a
   generic server error; an exception that is not a network error passes through the SDK
   unwrapped and unretried, so the test fails at the faulty request with a message naming the
   problem. It is also recorded, so ``assert_complete`` fails even if the code swallowed it;
3. a **responder** (``responder(fn)``): ``fn(request)`` returns a step, or ``None`` to defer;
4. the **skills** (``skills/``), tried in order (``skills.default_skills()``).

Each record of ``calls`` says who answered under ``"skill"``: the skill's name (``"react"``,
``"tool_use"``, ``"chat"``…, see ``skills.skill_name``), ``"script"`` for a scripted or responder
step, the fault's name for a fault (``"timeout"``, ``"http_429"``…), ``None`` when no chat answer
was produced (embeddings, model list, a 400).

``OfflineModel(competence=...)`` sets the parameters of the code, game24 and arithmetic skills
(see ``competence_params``); ``model.competence`` is ``{model name: Competence}``, printable.

Requests are validated like the real API first (400 with an OpenAI-style body, see
``validation``). Determinism: same request + same seed → same answer (ids included) at
temperature 0 or absent; at temperature > 0, identical requests get sample indices 0, 1, 2…
and an rng seeded by SHA-256 of (seed, request ``seed``, fingerprint, index): a reproducible
sequence of different samples.
"""

from __future__ import annotations

import copy
import json
import os
import random
import threading
from collections import deque
from typing import Any, Callable

from .._http import http_module
from . import OFFLINE_EMBEDDING_MODEL, OFFLINE_MODEL_BIG, OFFLINE_MODEL_FAST
from .embeddings import embeddings_response
from .competence_params import resolve as resolve_competence
from .errors import (
    ApiError,
    InvalidStep,
    OfflineModelError,
    ScriptExhausted,
    SkillContractError,
)
from .faults import check_fault, choices_null_error, fault_name, is_fault, status_error
from .responses import completion, created_at, digest_int, fingerprint, sse, stream_chunks
from .skills import SkillContext, last_user_text, skill_name
from .steps import Reply, to_reply
from .validation import check_chat_request

BASE_URL = "http://offline.invalid/v1"
CHAT_MODELS = (OFFLINE_MODEL_FAST, OFFLINE_MODEL_BIG)
EMBEDDING_MODELS = (OFFLINE_EMBEDDING_MODEL,)


def _parse_json(raw: bytes) -> tuple[Any, bool]:
    """(parsed body or None, whether the body was unparseable)."""
    if not raw:
        return None, False
    try:
        return json.loads(raw), False
    except (ValueError, UnicodeDecodeError):
        return None, True


def _route(method: str, path: str) -> tuple[str, str]:
    """(endpoint, argument) for a request path, or 404 like the real API."""
    parts = [part for part in path.split("/") if part]
    if parts[:1] == ["v1"]:
        parts = parts[1:]
    if method == "POST" and parts == ["chat", "completions"]:
        return "chat", ""
    if method == "POST" and parts == ["embeddings"]:
        return "embeddings", ""
    if method == "GET" and parts == ["models"]:
        return "models", ""
    if method == "GET" and len(parts) == 2 and parts[0] == "models":
        return "model", parts[1]
    raise ApiError(404, f"Invalid URL ({method} {path})")


def _step_to_text(step: Any) -> str:
    return repr(step) if len(repr(step)) <= 80 else repr(step)[:77] + "..."


class OfflineModel:
    """The offline chat model (see the module docstring)."""

    def __init__(
        self,
        seed: int | None = None,
        faults: list | None = None,
        skills: list | None = None,
        competence: Any = None,
    ) -> None:
        self.seed = int(os.environ.get("COURSE_SEED", 0)) if seed is None else int(seed)
        # {model name: Competence}: parameters of the code, game24 and arithmetic skills.
        self.competence = resolve_competence(competence)
        self._faults: deque = deque(check_fault(item) for item in faults or [])
        self._skills = list(skills) if skills is not None else None
        self._script: deque | None = None
        self._script_played = 0
        self._responder: Callable[[dict], Any] | None = None
        self._problems: list[str] = []
        self._samples: dict[str, int] = {}
        self._lock = threading.RLock()
        self.calls: list[dict] = []
        self.transport = http_module().MockTransport(self._handle)

    # ------------------------------------------------------------------ configuration

    def script(self, steps: list) -> OfflineModel:
        """Play ``steps`` strictly, one per chat request (appended to any remaining steps)."""
        checked = []
        for position, step in enumerate(steps):
            where = f"étape de script n°{position}"
            checked.append(check_fault(step) if is_fault(step) else to_reply(step, where=where))
        with self._lock:
            if self._script is None:
                self._script = deque()
            self._script.extend(zip(steps, checked))
        return self

    def responder(self, fn: Callable[[dict], Any]) -> OfflineModel:
        """Ask ``fn(request)`` for each chat request's step; ``None`` falls back to the skills."""
        self._responder = fn
        return self

    def add_faults(self, faults: list) -> OfflineModel:
        """Append ``faults`` to the pending faults (consumed one per HTTP request)."""
        checked = [check_fault(item) for item in faults]
        with self._lock:
            self._faults.extend(checked)
        return self

    def client(self, *, max_retries: int | None = None, timeout: float | None = None,
               **options: Any):
        """A genuine ``openai.OpenAI`` client served by this model.

        Built by ``course_utils.llm.make_client(offline=self)``, the one construction of an
        offline client: its usage reaches the session ledger and ``llm.offline_model_of`` finds
        this model. Other SDK options (``api_key=…``, ``default_headers=…``) give a copy of that
        client with those options (``OpenAI.with_options``), on the same transport.
        """
        from ..llm import make_client

        client = make_client(offline=self, max_retries=max_retries, timeout=timeout)
        return client.with_options(**options) if options else client

    def async_client(self, **kwargs: Any):
        """A genuine ``openai.AsyncOpenAI`` client served by this model."""
        import openai

        options = {"api_key": "offline", "base_url": BASE_URL}
        options.update(kwargs)
        options.setdefault("http_client", http_module().AsyncClient(transport=self.transport))
        return openai.AsyncOpenAI(**options)

    # ------------------------------------------------------------------ inspection

    @property
    def chat_requests(self) -> list[dict]:
        """Bodies of the ``/chat/completions`` requests, in order (SDK retries included)."""
        return [
            call["body"]
            for call in self.calls
            if call["path"].rstrip("/").endswith("/chat/completions")
        ]

    def assert_complete(self) -> None:
        """Fail (``AssertionError``) if script steps or faults are left, or a script ran out."""
        with self._lock:
            problems = list(self._problems)
            if self._script:
                left = [_step_to_text(original) for original, _ in self._script]
                problems.append(
                    f"{len(left)} étape(s) de script non jouée(s) / unconsumed script steps: "
                    + ", ".join(left)
                )
            if self._faults:
                problems.append(
                    f"{len(self._faults)} panne(s) non consommée(s) / unconsumed faults: "
                    + ", ".join(repr(item) for item in self._faults)
                )
        if problems:
            raise AssertionError("modèle hors ligne incomplet :\n- " + "\n- ".join(problems))

    def __repr__(self) -> str:
        script = "none" if self._script is None else f"{len(self._script)} left"
        return (
            f"OfflineModel(seed={self.seed}, calls={len(self.calls)}, "
            f"faults pending={len(self._faults)}, script={script})"
        )

    # ------------------------------------------------------------------ HTTP

    def _handle(self, request: Any) -> Any:
        with self._lock:
            body, unparseable = _parse_json(request.content)
            record = {
                "method": request.method,
                "path": request.url.path,
                "body": body,
                "status": None,
                "fault": None,
                "skill": None,
            }
            self.calls.append(record)
            try:
                response = self._dispatch(request, record, body, unparseable)
            except ApiError as error:
                response = self._error_response(error)
            except OfflineModelError as error:
                # Recorded too, so assert_complete() fails even if the caller swallowed it.
                self._problems.append(str(error))
                raise
            record["status"] = response.status_code
            return response

    def _dispatch(self, request: Any, record: dict, body: Any, unparseable: bool) -> Any:
        if self._faults:
            fault = self._faults.popleft()
            record["fault"] = fault
            record["skill"] = fault_name(fault)
            return self._play_fault(fault, request, body)
        endpoint, argument = _route(request.method, request.url.path)
        if unparseable or (request.method == "POST" and not isinstance(body, dict)):
            raise ApiError(
                400,
                "We could not parse the JSON body of your request. (HINT: This likely means you "
                "aren't using your HTTP library correctly.)",
            )
        if endpoint == "chat":
            return self._chat(request, record, body)
        if endpoint == "embeddings":
            return self._json(200, embeddings_response(body, EMBEDDING_MODELS))
        if endpoint == "models":
            return self._json(200, {"object": "list", "data": [self._model_card(m) for m in
                                                               CHAT_MODELS + EMBEDDING_MODELS]})
        if argument not in CHAT_MODELS + EMBEDDING_MODELS:
            raise ApiError(
                404,
                f"The model `{argument}` does not exist or you do not have access to it.",
                code="model_not_found",
            )
        return self._json(200, self._model_card(argument))

    def _model_card(self, name: str) -> dict:
        return {"id": name, "object": "model", "created": created_at(0), "owned_by": "offline"}

    def _json(self, status: int, payload: Any, headers: dict | None = None) -> Any:
        content = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        all_headers = {"content-type": "application/json",
                       "x-request-id": f"req_offline_{len(self.calls)}"}
        all_headers.update(headers or {})
        return http_module().Response(status, content=content, headers=all_headers)

    def _error_response(self, error: ApiError) -> Any:
        return self._json(error.status, error.body(), error.headers)

    # ------------------------------------------------------------------ faults

    def _play_fault(self, fault: int | str, request: Any, body: Any) -> Any:
        http = http_module()
        body = body if isinstance(body, dict) else {}
        model = body.get("model") if isinstance(body.get("model"), str) else OFFLINE_MODEL_FAST
        if isinstance(fault, int):
            raise status_error(
                fault, model=model, authorization=request.headers.get("authorization", "")
            )
        if fault == "timeout":
            raise http.ReadTimeout("simulated read timeout (offline model)", request=request)
        if fault == "connection":
            raise http.ConnectError("simulated connection failure (offline model)",
                                    request=request)
        is_chat = request.url.path.rstrip("/").endswith("/chat/completions")
        if not is_chat:
            data = None if fault == "choices_null" else []
            payload = {"object": "list", "data": data, "model": model,
                       "usage": {"prompt_tokens": 0, "total_tokens": 0}}
            if fault == "choices_null":
                payload["error"] = choices_null_error()
            return self._json(200, payload)
        if fault == "choices_null":
            payload = {
                "id": "chatcmpl-offline-error",
                "object": "chat.completion" if not body.get("stream") else "chat.completion.chunk",
                "created": created_at(self.seed),
                "model": model,
                "choices": None,
                "error": choices_null_error(),
            }
            if body.get("stream"):
                return self._sse([payload])
            return self._json(200, payload)
        n = body.get("n") if isinstance(body.get("n"), int) else 1
        return self._render(body, [Reply(content="")] * max(1, n), model, [0] * max(1, n))

    # ------------------------------------------------------------------ chat

    def _chat(self, request: Any, record: dict, body: dict) -> Any:
        model = check_chat_request(body, CHAT_MODELS)
        n = body.get("n") or 1
        temperature = float(body.get("temperature") or 0.0)
        if temperature > 0:
            fp = fingerprint(body)
            first = self._samples.get(fp, 0)
            self._samples[fp] = first + n
            samples = [first + i for i in range(n)]
        else:
            samples = [0] * n

        step = self._scripted_step(body)
        if step is None and self._responder is not None:
            raw = self._responder(copy.deepcopy(body))
            if raw is not None:
                step = check_fault(raw) if is_fault(raw) else to_reply(raw, where="responder")
        if is_fault(step):
            record["fault"] = step
            record["skill"] = fault_name(step)
            return self._play_fault(step, request, body)
        if step is not None:
            replies = [step] * n
            record["skill"] = "script"
        else:
            answered = [
                self._ask_skills(body, self._context(body, model, temperature, sample))
                for sample in samples
            ]
            replies = [reply for _, reply in answered]
            record["skill"] = answered[0][0]
        return self._render(body, replies, model, samples)

    def _scripted_step(self, body: dict) -> Any:
        if self._script is None:
            return None
        if not self._script:
            number = len(self.chat_requests)
            excerpt = last_user_text(body)[:60]
            message = (
                f"script épuisé : la requête de chat n°{number} (dernier message utilisateur : "
                f"{excerpt!r}) arrive après les {self._script_played} étape(s) scriptée(s). "
                "Ajoutez des étapes avec .script([...]) ou vérifiez que le code n'appelle pas le "
                "modèle trop souvent. / script exhausted: no step left for this chat request."
            )
            raise ScriptExhausted(message)
        self._script_played += 1
        _original, step = self._script.popleft()
        return step

    def _context(self, body: dict, model: str, temperature: float, sample: int) -> SkillContext:
        rng_seed = digest_int(self.seed, body.get("seed"), fingerprint(body), sample)
        return SkillContext(
            seed=self.seed,
            model=model,
            temperature=temperature,
            sample_index=sample,
            rng=random.Random(rng_seed),
            competence=self.competence.get(model),
        )

    def _skill_list(self) -> list:
        if self._skills is None:
            from .skills import default_skills

            self._skills = default_skills()
        return self._skills

    def _ask_skills(self, body: dict, ctx: SkillContext) -> tuple[str, Reply]:
        """(name of the skill that answered, its reply)."""
        for skill in self._skill_list():
            name = skill_name(skill)
            step = skill(copy.deepcopy(body), ctx)
            if step is None:
                continue
            if is_fault(step) and not isinstance(step, str):
                raise SkillContractError(f"la compétence {name} a renvoyé une panne : {step!r}")
            try:
                reply = to_reply(step, where=f"réponse de la compétence {name}")
            except InvalidStep as error:
                raise SkillContractError(str(error)) from None
            _check_contract(body, reply, name)
            return name, reply
        raise SkillContractError(
            "aucune compétence n'a répondu à cette requête (la liste des compétences doit se "
            "terminer par chat.respond) / no skill answered"
        )

    def _render(self, body: dict, replies: list[Reply], model: str, samples: list[int]) -> Any:
        obj = completion(body, replies, model=model, seed=self.seed, sample_indices=samples)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return self._sse(stream_chunks(obj, include_usage=include_usage))
        return self._json(200, obj)

    def _sse(self, events: list[dict]) -> Any:
        headers = {"content-type": "text/event-stream; charset=utf-8",
                   "x-request-id": f"req_offline_{len(self.calls)}"}
        return http_module().Response(200, content=sse(events), headers=headers)


def _check_contract(body: dict, reply: Reply, skill: str) -> None:
    """A skill's reply must honour ``tools``, ``tool_choice`` and ``parallel_tool_calls``."""
    names = [tool["function"]["name"] for tool in body.get("tools") or []]
    calls = [call.name for call in reply.tool_calls]
    choice = body.get("tool_choice")
    problem = None
    unknown = [name for name in calls if name not in names]
    if unknown:
        problem = f"appel d'un outil absent de 'tools' : {unknown}"
    elif choice == "none" and calls:
        problem = "appel d'outil alors que tool_choice='none'"
    elif choice == "required" and not calls:
        problem = "aucun appel d'outil alors que tool_choice='required'"
    elif isinstance(choice, dict) and calls != [choice["function"]["name"]]:
        problem = f"tool_choice impose exactement un appel à {choice['function']['name']!r}"
    elif body.get("parallel_tool_calls") is False and len(calls) > 1:
        problem = "plusieurs appels alors que parallel_tool_calls=False"
    if problem:
        raise SkillContractError(f"la compétence {skill} ne respecte pas la requête : {problem}")
