"""Provider errors explained in French: what happened, what to fix, which variable to change.

``explain(exc, settings=...)`` reads the provider's *own* error code and message — OpenAI's
``{"error": {...}}`` body, vLLM's top-level ``{"object": "error", ...}``, LM Studio's
``{"error": "<string>"}``, a plain-text body — and names the variables of the configured
backend (``settings``), never a guess from a URL. Recognised causes, each with its fix:
exhausted credit (``insufficient_quota``, HTTP 402), refused key, tools not supported by the
model (OpenRouter's 404 « No endpoints found that support tool use », Ollama's « does not support
tools »), vLLM started without its tool flags, a ``tool_choice`` form the server refuses, a
reasoning model's refused parameter, a missing model, a wrong address, rate limits, server
errors, timeouts, a server that is not running.
"""

from __future__ import annotations

import json
import re
from typing import Any

import openai

from .settings import Settings


class LLMError(RuntimeError):
    """A provider error explained in French. ``retryable`` says whether waiting may help.

    ``kind`` names the cause (``key``, ``credit``, ``rate_limit``, ``tools_unsupported``,
    ``tool_choice_unsupported``, ``model_not_found``, ``not_found``, ``bad_request``,
    ``server``, ``timeout``, ``connection``, ``empty``, ``unknown``); ``provider_message`` is the
    provider's own text, kept verbatim.
    """

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False,
                 kind: str = "unknown", provider_message: str | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.retryable = retryable
        self.kind = kind
        self.provider_message = provider_message

    @property
    def capability(self) -> bool:
        """True when the provider cannot do what was asked (not a mistake in the code)."""
        return self.kind in ("tools_unsupported", "tool_choice_unsupported")


def _json_or_text(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, TypeError):
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw


def _error_fields(body: Any) -> tuple[str, str]:
    """(code or type, message) from an error body: OpenAI's, vLLM's, or a plain string."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            code = inner.get("code") or inner.get("type") or ""
            if inner.get("type") == "insufficient_quota":
                code = "insufficient_quota"
            return str(code), str(inner.get("message") or "")
        return "", str(inner)
    if isinstance(body, str):
        return "", body
    return "", ""


def _provider_text(exc: BaseException) -> tuple[str, str]:
    body = getattr(exc, "body", None)
    code, message = _error_fields(body)
    if not code:
        code = str(getattr(exc, "code", "") or "")
    if not message:
        response = getattr(exc, "response", None)
        if response is not None:
            try:
                code2, message = _error_fields(_json_or_text(response.content))
                code = code or code2
            except Exception:  # noqa: BLE001 - a streamed or closed response has no content
                message = ""
    if not message:
        message = str(getattr(exc, "message", "") or exc)
    return code, message.strip()


_TOOLS_UNSUPPORTED = re.compile(
    r"(support tool use|does not support tools|tools? (?:are|is) not supported|"
    r"tool calling is not supported|no endpoints found that support the provided 'tool_choice')",
    re.IGNORECASE)
_VLLM_FLAGS = re.compile(r"enable-auto-tool-choice|tool-call-parser", re.IGNORECASE)
_TOOL_CHOICE_TYPE = re.compile(r"tool_choice", re.IGNORECASE)
_MODEL_MISSING = re.compile(r"(model[^.]*(not found|does not exist|introuvable)|"
                            r"not a valid model|model_not_found|no endpoints found for|try pulling)",
                            re.IGNORECASE)
_SERVER_START = {
    "ollama": "lancez `ollama serve` (et `ollama pull <modèle>`)",
    "vllm": "lancez `vllm serve <modèle>`",
    "lmstudio": "démarrez le serveur de LM Studio (onglet Developer, ou `lms server start`)",
    "llamacpp": "lancez `llama-server -m <modèle>.gguf`",
}


def explain(exc: BaseException, *, settings: Settings, model: str = "") -> LLMError:
    """Turn an SDK exception into an ``LLMError`` whose French message says what to fix.

    The provider's own code and message are read (OpenAI's ``{"error": {...}}``, vLLM's
    top-level ``{"object": "error", ...}``, a plain string) and quoted; the provider and the
    variables named are those of ``settings``, the configured backend.
    """
    provider = settings.provider_label
    key_var, url_var = settings.key_variable, settings.base_url_variable
    model_var = "OPENAI_MODEL_FAST / OPENAI_MODEL_BIG (ou OPENAI_MODEL)"
    code, detail = _provider_text(exc)
    quoted = f" Réponse du fournisseur : « {detail} »" if detail else ""
    status = getattr(exc, "status_code", None)

    def error(text: str, kind: str, *, retryable: bool = False) -> LLMError:
        return LLMError(text, status=status, retryable=retryable, kind=kind,
                        provider_message=detail or None)

    if code == "insufficient_quota" or status == 402:
        return error(
            f"crédit épuisé chez {provider} ({status}) : ce compte n'a plus de crédit, attendre ou "
            f"réessayer n'y changera rien. Ajoutez du crédit sur le site du fournisseur "
            f"(facturation), utilisez une autre clé ({key_var}), ou restez hors ligne "
            f"(COURSE_BACKEND=offline).{quoted}", "credit")
    if isinstance(exc, openai.AuthenticationError):
        return error(
            f"clé refusée par {provider} (401) : vérifiez {key_var} dans .env "
            "(ou dans les variables d'environnement), sans espace ni guillemet en trop, puis "
            f"redémarrez le noyau.{quoted}", "key")
    if isinstance(exc, openai.PermissionDeniedError):
        return error(
            f"accès refusé par {provider} (403) au modèle « {model} » : la clé de {key_var} n'y a "
            f"pas droit. Choisissez un autre modèle ({model_var}) ou vérifiez votre "
            f"compte.{quoted}", "key")
    if isinstance(exc, openai.APIStatusError) and _VLLM_FLAGS.search(detail):
        return error(
            f"{provider} a été lancé sans l'appel d'outils ({status}) : relancez le serveur avec "
            "`vllm serve <modèle> --enable-auto-tool-choice --tool-call-parser <analyseur>` "
            "(hermes pour Qwen, llama3_json pour Llama, mistral pour Mistral).{}".format(quoted),
            "tools_unsupported")
    if isinstance(exc, openai.APIStatusError) and _TOOLS_UNSUPPORTED.search(detail):
        where = (" Liste des modèles qui les gèrent : "
                 "https://openrouter.ai/models?supported_parameters=tools."
                 if settings.backend == "openrouter" else "")
        return error(
            f"le modèle « {model} » ne gère pas l'appel d'outils chez {provider} ({status}) : "
            f"choisissez un modèle qui le gère dans {model_var}.{where}{quoted}",
            "tools_unsupported")
    if isinstance(exc, openai.BadRequestError) and _TOOL_CHOICE_TYPE.search(detail) and (
            "object" in detail or "type" in detail):
        return error(
            f"{provider} refuse cette forme de tool_choice (400) : il n'accepte que "
            "'none', 'auto' et 'required'. Passez par course_utils.llm.chat ou un client de "
            f"setup(), qui adaptent la requête.{quoted}", "tool_choice_unsupported")
    if isinstance(exc, openai.NotFoundError) or (
            isinstance(exc, openai.BadRequestError) and _MODEL_MISSING.search(detail)):
        if _MODEL_MISSING.search(detail) or code == "model_not_found":
            pull = " (Ollama : `ollama pull <modèle>`)" if settings.provider == "ollama" else ""
            return error(
                f"modèle « {model} » introuvable chez {provider} ({status}) : corrigez "
                f"{model_var} dans .env{pull}.{quoted}", "model_not_found")
        return error(
            f"introuvable chez {provider} ({status}) : adresse inexacte ou modèle « {model} » "
            f"inconnu. Vérifiez {url_var} (elle finit en général par /v1) et "
            f"{model_var}.{quoted}", "not_found")
    if isinstance(exc, openai.RateLimitError):
        return error(
            f"limite de débit atteinte chez {provider} (429), même après les nouvelles tentatives "
            f"du SDK : attendez un peu, ou augmentez max_retries.{quoted}", "rate_limit",
            retryable=True)
    if isinstance(exc, openai.BadRequestError) and re.search(
            r"unsupported (value|parameter).*(temperature|max_tokens)", detail, re.IGNORECASE):
        return error(
            f"{provider} refuse ce paramètre pour le modèle « {model} » (400), un modèle de "
            "raisonnement : il n'accepte que temperature=1 et max_completion_tokens. Passez par "
            "course_utils.llm.chat ou un client de setup(), qui adaptent la requête, ou retirez "
            f"le paramètre.{quoted}", "bad_request")
    if isinstance(exc, openai.BadRequestError):
        return error(f"requête refusée par {provider} (400) : {detail or exc}", "bad_request")
    if isinstance(exc, openai.APIStatusError):
        return error(
            f"erreur du serveur {provider} ({status}) après les nouvelles tentatives du SDK : "
            f"{detail}", "server", retryable=status >= 500 or status in (408, 409))
    if isinstance(exc, openai.APITimeoutError):
        return error(
            f"délai dépassé en attendant {provider} : le serveur est lent ou surchargé ; "
            "réessayez ou augmentez timeout.", "timeout", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        if settings.backend == "compatible":
            start = _SERVER_START.get(settings.provider, "démarrez-le")
            hint = (f" Le serveur local est-il lancé ? {start[0].upper() + start[1:]}, puis "
                    f"vérifiez {url_var} (actuellement {settings.base_url}).")
        else:
            hint = f" Vérifiez votre connexion, et {url_var} si vous l'avez définie."
        return error(f"connexion impossible à {provider}.{hint}", "connection", retryable=True)
    return error(f"erreur inattendue de {provider} : {type(exc).__name__}: {detail}", "unknown")


__all__ = ["LLMError", "explain"]
