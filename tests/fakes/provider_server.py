"""Local fake provider servers: one per capability profile, for the course's tests only.

Each ``FakeProvider`` is a real HTTP server on the loopback interface (``127.0.0.1``, a free
port), started and stopped by a test, that speaks the OpenAI wire format the way one provider
does. The *answers* come from the course's offline simulator (so lessons get sensible replies);
the *wire behaviour* around them — errors, ignored options, field names, ``finish_reason`` — is
the provider's, and every rule below cites the documented or reported behaviour it imitates.
These fakes are not the providers: they reproduce the quirks the course must handle, nothing
more.

The server never logs headers, so the API key it receives cannot reach a log.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from course_utils._http import http_module
from course_utils.offline import OfflineModel

FAKE_KEY = "sk-FAKE-COURSE-TEST-KEY-must-never-be-printed-7f3a"


@dataclass
class Behaviour:
    """What a fake provider does. Defaults: OpenAI's documented behaviour."""

    kind: str  # openai | openrouter | ollama | vllm | lmstudio | llamacpp
    models: tuple[str, ...] = ("gpt-4.1-mini", "gpt-4.1")
    needs_key: bool = True
    dated_names: bool = False
    tool_flags: bool = True          # vLLM started with --enable-auto-tool-choice ...
    no_tool_models: tuple[str, ...] = ()
    credit: bool = True
    log: list = field(default_factory=list)


def _error(status: int, message: str, *, type_: str = "invalid_request_error",
           code: Any = None, param: Any = None) -> tuple[int, Any]:
    return status, {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _is_reasoning(model: str) -> bool:
    bare = model.split("/", 1)[-1]
    return bare.startswith(("gpt-5", "o1", "o3", "o4"))


class FakeProvider:
    """A loopback HTTP server imitating one provider. Use as a context manager."""

    def __init__(self, behaviour: Behaviour):
        self.behaviour = behaviour
        self.brain = OfflineModel(seed=0)
        self.requests: list[dict] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle
    def __enter__(self) -> FakeProvider:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # no header, no key in any log
                pass

            def do_GET(self):
                status, body = fake.handle("GET", self.path, None, self.headers)
                self._send(status, body)

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, body = fake.handle("POST", self.path, raw, self.headers)
                self._send(status, body)

            def _send(self, status, body):
                if isinstance(body, (bytes, bytearray)):
                    payload, ctype = bytes(body), "text/event-stream"
                elif isinstance(body, str):
                    payload, ctype = body.encode(), "text/plain; charset=utf-8"
                else:
                    payload, ctype = json.dumps(body).encode(), "application/json"
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    # -- dispatch
    def handle(self, method: str, path: str, raw: bytes | None, headers) -> tuple[int, Any]:
        b = self.behaviour
        self.behaviour.log.append(f"{method} {path}")
        if b.needs_key and headers.get("authorization") != f"Bearer {FAKE_KEY}":
            # OpenAI: 401 invalid_api_key (https://platform.openai.com/docs/guides/error-codes)
            return _error(401, "Incorrect API key provided.", code="invalid_api_key")
        if method == "GET" and path.rstrip("/").endswith("/models"):
            return 200, {"object": "list", "data": [{"id": m, "object": "model"} for m in b.models]}
        if not (method == "POST" and path.endswith("/chat/completions")):
            return 404, {"error": {"message": f"Invalid URL ({method} {path})"}}
        body = json.loads(raw or b"{}")
        self.requests.append(body)
        refusal = getattr(self, f"_rules_{b.kind}")(body)
        if refusal is not None:
            return refusal
        return self._answer(body)

    def _model_known(self, body) -> tuple[int, Any] | None:
        model = body.get("model", "")
        if model in self.behaviour.models:
            return None
        if self.behaviour.kind == "ollama":
            # Ollama: 404 'model "x" not found, try pulling it first'
            return _error(404, f'model "{model}" not found, try pulling it first',
                          type_="api_error")
        return _error(404, f"The model `{model}` does not exist or you do not have access to it.",
                      code="model_not_found")

    # -- provider rules: return an error (status, body), or None after adjusting ``body``
    def _rules_openai(self, body):
        if not self.behaviour.credit:
            # 429 insufficient_quota (https://github.com/openai/openai-cookbook/issues/844)
            return _error(429, "You exceeded your current quota, please check your plan and "
                          "billing details.", type_="insufficient_quota", code="insufficient_quota")
        missing = self._model_known(body)
        if missing:
            return missing
        if _is_reasoning(body["model"]):
            # reasoning models: "Unsupported value: 'temperature' does not support 0 with this
            # model. Only the default (1) value is supported."
            # (https://github.com/QwenLM/qwen-code/issues/921)
            if body.get("temperature") not in (None, 1):
                return _error(400, f"Unsupported value: 'temperature' does not support "
                              f"{body['temperature']} with this model. Only the default (1) value "
                              "is supported.", code="unsupported_value", param="temperature")
            if "max_tokens" in body:
                return _error(400, "Unsupported parameter: 'max_tokens' is not supported with this "
                              "model. Use 'max_completion_tokens' instead.",
                              code="unsupported_parameter", param="max_tokens")
        return None

    def _rules_openrouter(self, body):
        missing = self._model_known(body)
        if missing:
            return missing
        if body.get("tools") and body.get("model") in self.behaviour.no_tool_models:
            # 404 "No endpoints found that support tool use"
            # (https://github.com/mastra-ai/mastra/issues/2839)
            return 404, {"error": {"message": "No endpoints found that support tool use. To learn "
                                   "more about provider routing, visit: "
                                   "https://openrouter.ai/docs/provider-routing", "code": 404}}
        return None

    def _rules_ollama(self, body):
        missing = self._model_known(body)
        if missing:
            return missing
        # tool_choice is ignored: forced -> plain text possible, "none" -> calls possible
        # (https://github.com/ollama/ollama/issues/8421, .../issues/17921); one choice only.
        body.pop("tool_choice", None)
        body.pop("parallel_tool_calls", None)
        body.pop("n", None)
        return None

    def _rules_vllm(self, body):
        missing = self._model_known(body)
        if missing:
            return missing
        if body.get("tools") and body.get("tool_choice", "auto") == "auto" and (
                not self.behaviour.tool_flags):
            # '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to
            # be set' (https://github.com/vllm-project/vllm/issues/9986), vLLM's own body shape
            return 400, {"object": "error", "message": "\"auto\" tool choice requires "
                         "--enable-auto-tool-choice and --tool-call-parser to be set",
                         "type": "BadRequestError", "param": None, "code": 400}
        return None

    def _rules_lmstudio(self, body):
        missing = self._model_known(body)
        if missing:
            return missing
        if isinstance(body.get("tool_choice"), dict):
            # {"error": "<plain string>"} (https://github.com/lmstudio-ai/lmstudio-bug-tracker/
            # issues/670)
            return 400, {"error": "Invalid tool_choice type: 'object'. Supported string values: "
                         "none, auto, required"}
        body.pop("n", None)
        return None

    def _rules_llamacpp(self, body):
        missing = self._model_known(body)
        if missing:
            return missing
        body.pop("n", None)
        return None

    # -- the answer: the simulator's, dressed as the provider's
    def _answer(self, body: dict) -> tuple[int, Any]:
        b = self.behaviour
        served = body["model"]
        brain_body = dict(body)
        big = len(b.models) > 1 and served == b.models[1]
        brain_body["model"] = "offline-big" if big else "offline-fast"
        for extra in ("reasoning_effort", "reasoning"):
            brain_body.pop(extra, None)
        reasoning_tokens = 0
        budget = brain_body.pop("max_completion_tokens", None)
        if budget is None:
            budget = brain_body.pop("max_tokens", None)
        if _is_reasoning(served):
            # Reasoning tokens are billed as output and share the completion budget: a small
            # budget is spent on reasoning, the answer is '' with finish_reason "length"
            # (https://community.openai.com/t/.../1134663/2). Low effort reasons less.
            effort = body.get("reasoning_effort") or (body.get("reasoning") or {}).get("effort")
            reasoning_tokens = 64 if effort in ("minimal", "low") else 600
            if budget is not None and budget <= reasoning_tokens:
                return 200, self._empty_length(body, served, budget)
            if budget is not None:
                brain_body["max_tokens"] = budget - reasoning_tokens
        elif budget is not None:
            brain_body["max_tokens"] = budget
        http = http_module()
        request = http.Request("POST", "http://offline.invalid/v1/chat/completions",
                               json=brain_body)
        response = self.brain.transport.handle_request(request)
        response.read()
        if response.status_code != 200:
            return response.status_code, json.loads(response.content)
        if "text/event-stream" in response.headers.get("content-type", ""):
            return 200, response.content
        answer = json.loads(response.content)
        answer["model"] = self._served_name(served)
        for choice in answer.get("choices") or []:
            if isinstance(body.get("tool_choice"), dict) and b.kind in ("openai", "openrouter",
                                                                        "vllm"):
                choice["finish_reason"] = "stop"  # vllm-project/vllm#25054: OpenAI's table
        if reasoning_tokens:
            usage = answer.setdefault("usage", {})
            usage["completion_tokens"] = usage.get("completion_tokens", 0) + reasoning_tokens
            usage["total_tokens"] = usage.get("total_tokens", 0) + reasoning_tokens
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
        return 200, answer

    def _served_name(self, model: str) -> str:
        # OpenAI answers with the dated snapshot name (e.g. gpt-5-mini-2025-08-07)
        return f"{model}-2025-08-07" if self.behaviour.dated_names else model

    def _empty_length(self, body: dict, served: str, budget: int) -> dict:
        return {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": 0,
            "model": self._served_name(served),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ""},
                         "finish_reason": "length"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": budget, "total_tokens": 20 + budget,
                      "completion_tokens_details": {"reasoning_tokens": budget}},
        }


# --------------------------------------------------------------------------- the profiles


def profiles() -> dict[str, tuple[Behaviour, dict]]:
    """name → (behaviour, environment for the course). ``{url}`` is replaced by the base URL."""
    return {
        "openai": (Behaviour("openai", dated_names=True),
                   {"OPENAI_API_KEY": FAKE_KEY, "OPENAI_BASE_URL": "{url}",
                    "COURSE_BACKEND": "openai"}),
        "openai-reasoning": (Behaviour("openai", models=("gpt-5-mini", "gpt-5"), dated_names=True),
                             {"OPENAI_API_KEY": FAKE_KEY, "OPENAI_BASE_URL": "{url}",
                              "COURSE_BACKEND": "openai", "OPENAI_MODEL_FAST": "gpt-5-mini",
                              "OPENAI_MODEL_BIG": "gpt-5", "OPENAI_MODEL": "gpt-5-mini"}),
        "openai-no-credit": (Behaviour("openai", credit=False),
                             {"OPENAI_API_KEY": FAKE_KEY, "OPENAI_BASE_URL": "{url}",
                              "COURSE_BACKEND": "openai"}),
        "openrouter": (Behaviour("openrouter", models=("openai/gpt-4.1-mini", "openai/gpt-4.1")),
                       {"OPENROUTER_API_KEY": FAKE_KEY, "OPENROUTER_BASE_URL": "{url}"}),
        "openrouter-no-tools": (
            Behaviour("openrouter", models=("deepseek/deepseek-r1:free", "openai/gpt-4.1"),
                      no_tool_models=("deepseek/deepseek-r1:free",)),
            {"OPENROUTER_API_KEY": FAKE_KEY, "OPENROUTER_BASE_URL": "{url}",
             "OPENAI_MODEL_FAST": "deepseek/deepseek-r1:free", "OPENAI_MODEL_BIG": "openai/gpt-4.1",
             "OPENAI_MODEL": "deepseek/deepseek-r1:free"}),
        "ollama": (Behaviour("ollama", models=("qwen2.5:7b-instruct",), needs_key=False),
                   {"OPENAI_BASE_URL": "{url}", "COURSE_PROVIDER": "ollama",
                    "OPENAI_MODEL": "qwen2.5:7b-instruct"}),
        "vllm": (Behaviour("vllm", models=("Qwen/Qwen2.5-7B-Instruct",), needs_key=False),
                 {"OPENAI_BASE_URL": "{url}", "COURSE_PROVIDER": "vllm",
                  "OPENAI_MODEL": "Qwen/Qwen2.5-7B-Instruct"}),
        "vllm-no-tool-flags": (
            Behaviour("vllm", models=("Qwen/Qwen2.5-7B-Instruct",), needs_key=False,
                      tool_flags=False),
            {"OPENAI_BASE_URL": "{url}", "COURSE_PROVIDER": "vllm",
             "OPENAI_MODEL": "Qwen/Qwen2.5-7B-Instruct"}),
        "lmstudio": (Behaviour("lmstudio", models=("qwen2.5-7b-instruct",), needs_key=False),
                     {"OPENAI_BASE_URL": "{url}", "COURSE_PROVIDER": "lmstudio",
                      "OPENAI_MODEL": "qwen2.5-7b-instruct"}),
        "llamacpp": (Behaviour("llamacpp", models=("local-model",), needs_key=False),
                     {"OPENAI_BASE_URL": "{url}", "OPENAI_MODEL": "local-model"}),
        "openai-wrong-key": (Behaviour("openai"),
                             {"OPENAI_API_KEY": "sk-FAKE-WRONG-KEY-also-never-printed-99",
                              "OPENAI_BASE_URL": "{url}", "COURSE_BACKEND": "openai"}),
    }
