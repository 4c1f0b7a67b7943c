"""What each provider really does with a chat request: one capability profile per provider.

"Same code with a real key" only holds if the course knows where providers differ. Each
:class:`Profile` records, from the provider's documented behaviour (sources in ``sources``):

* which ``tool_choice`` forms it honours (``auto``, ``required``, ``none``, a named function),
  and for each one whether the course's client can *emulate* it when the server does not;
* whether it accepts ``n > 1``, ``parallel_tool_calls``, any ``temperature``, embeddings;
* which budget field it takes (``max_tokens`` or ``max_completion_tokens``);
* whether the model reasons (reasoning tokens are billed as output and share the budget) and how
  to ask for a low reasoning effort;
* the ``finish_reason`` it sends for a forced function.

:func:`normalize_request` rewrites a request body for a profile (what *can* be normalised:
reasoning models get no temperature, ``max_completion_tokens`` with room for the reasoning and a
low effort; a named ``tool_choice`` becomes ``required`` over that one tool on LM Studio; ``none``
drops the tools on Ollama, which ignores ``tool_choice``). What cannot be normalised is said in
French by :meth:`Profile.tool_choice_note`, so lessons and self-checks adapt their claims.

The sub-kind of a ``compatible`` server comes from the settings (``COURSE_PROVIDER``); without
it the default port of the base URL is used as a hint (11434 Ollama, 1234 LM Studio, 8000 vLLM),
which the banner shows so a wrong guess is visible and can be overridden.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlparse

TOOL_CHOICE_FORMS = ("auto", "required", "none", "function")

# What a provider does with each tool_choice form.
HONOURED = "honoured"    # the server does what OpenAI documents
EMULATED = "emulated"    # the server does not, but the course's client rewrites the request
IGNORED = "ignored"      # the server silently treats it as "auto"
REFUSED = "refused"      # the server answers 400

# A reasoning model spends completion tokens before writing the answer: a budget below this is
# raised to it (a cap, not a spend: only the tokens really produced are billed).
REASONING_MIN_BUDGET = 2048
REASONING_EFFORT = "low"

_REASONING_MODEL = re.compile(r"^(?:[\w.-]+/)?(?:o\d|gpt-5)", re.IGNORECASE)
_REASONING_OTHER = re.compile(r"(?:deepseek-r1|qwq|:thinking|-thinking|reasoner)", re.IGNORECASE)


@dataclass(frozen=True)
class Profile:
    """Capabilities of one provider (and model family). Printable; compares in tests."""

    name: str
    label: str
    tool_choice: dict[str, str] = field(default_factory=lambda: dict.fromkeys(TOOL_CHOICE_FORMS,
                                                                               HONOURED))
    n_choices: bool = True
    parallel_tool_calls: bool = True
    temperature: bool = True
    token_param: str = "max_tokens"
    embeddings: bool = True
    reasoning: bool = False
    effort_param: str | None = None  # "reasoning_effort" (OpenAI) or "reasoning" (OpenRouter)
    named_finish_reason: str = "tool_calls"
    tools_need_server_flags: bool = False
    sources: tuple[str, ...] = ()

    def treatment(self, tool_choice: Any) -> str:
        """``honoured``, ``emulated``, ``ignored`` or ``refused`` for this ``tool_choice`` value."""
        return self.tool_choice.get(form_of(tool_choice), HONOURED)

    def honours(self, tool_choice: Any) -> bool:
        """True when the answer respects ``tool_choice`` (by the server or the client)."""
        return self.treatment(tool_choice) in (HONOURED, EMULATED)

    def tool_choice_note(self, tool_choice: Any) -> str | None:
        """A French sentence saying what this provider does with ``tool_choice``, or ``None``."""
        form = form_of(tool_choice)
        shown = "une fonction imposée" if form == "function" else f"tool_choice={form!r}"
        treatment = self.treatment(tool_choice)
        if treatment == IGNORED:
            return (f"{self.label} ignore {shown} (il répond comme avec 'auto') : "
                    "la contrainte n'est pas garantie ici.")
        if treatment == REFUSED:
            return f"{self.label} refuse {shown} (erreur 400)."
        if treatment == EMULATED:
            how = {
                "none": "le client du cours retire les outils de la requête",
                "function": ("le client du cours ne propose que cette fonction, avec "
                             "tool_choice='required'") if self.tool_choice.get("required") in (
                    HONOURED,) else "le client du cours ne propose que cette fonction",
            }.get(form, "le client du cours adapte la requête")
            return f"{self.label} ne gère pas {shown} : {how}."
        return None

    def describe(self) -> str:
        """Several French lines: what this provider honours, for a lesson's output cell."""
        names = {HONOURED: "respecté", EMULATED: "émulé par le client du cours",
                 IGNORED: "ignoré (traité comme 'auto')", REFUSED: "refusé (400)"}
        lines = [f"Profil : {self.label}"]
        for form in TOOL_CHOICE_FORMS:
            shown = "fonction imposée" if form == "function" else form
            lines.append(f"  tool_choice {shown:<17}: {names[self.tool_choice.get(form, HONOURED)]}")
        lines.append(f"  n > 1                     : {'oui' if self.n_choices else 'non'}")
        lines.append(f"  budget de sortie          : {self.token_param}")
        lines.append(f"  temperature               : {'libre' if self.temperature else 'ignorée'}")
        if self.reasoning:
            lines.append("  modèle de raisonnement    : oui (jetons de raisonnement facturés en sortie)")
        return "\n".join(lines)


_OPENAI_DOCS = (
    "https://platform.openai.com/docs/api-reference/chat/create",
    "https://github.com/vllm-project/vllm/pull/25054 (OpenAI: named tool_choice -> 'stop')",
)

PROFILES: dict[str, Profile] = {
    "offline": Profile("offline", "le simulateur hors ligne", named_finish_reason="stop",
                       token_param="max_completion_tokens"),
    "openai": Profile("openai", "OpenAI", token_param="max_completion_tokens",
                      named_finish_reason="stop", sources=_OPENAI_DOCS),
    "openrouter": Profile(
        "openrouter", "OpenRouter", named_finish_reason="stop",
        sources=("https://openrouter.ai/docs/use-cases/reasoning-tokens",
                 "https://github.com/mastra-ai/mastra/issues/2839 (404 No endpoints found that "
                 "support tool use)")),
    "ollama": Profile(
        "ollama", "Ollama",
        tool_choice={"auto": HONOURED, "required": IGNORED, "none": EMULATED,
                     "function": EMULATED},
        n_choices=False, parallel_tool_calls=False,
        sources=("https://github.com/ollama/ollama/issues/8421 (tool_choice ignored)",
                 "https://github.com/ollama/ollama/issues/17921 (forced -> text, none -> calls)")),
    "vllm": Profile(
        "vllm", "vLLM", named_finish_reason="stop", tools_need_server_flags=True,
        sources=("https://docs.vllm.ai/en/latest/features/tool_calling/",
                 "https://github.com/vllm-project/vllm/issues/9986 (\"auto\" tool choice requires "
                 "--enable-auto-tool-choice and --tool-call-parser)")),
    "lmstudio": Profile(
        "lmstudio", "LM Studio",
        tool_choice={"auto": HONOURED, "required": HONOURED, "none": HONOURED,
                     "function": EMULATED},
        n_choices=False,
        sources=("https://github.com/lmstudio-ai/lmstudio-bug-tracker/issues/670 (Invalid "
                 "tool_choice type: 'object', plain-string error body)",)),
    "llamacpp": Profile("llamacpp", "llama.cpp", n_choices=False),
    "compatible": Profile("compatible", "le serveur compatible OpenAI", n_choices=False),
}

PROVIDERS = tuple(PROFILES)
_DEFAULT_PORTS = {11434: "ollama", 1234: "lmstudio", 8000: "vllm", 8080: "llamacpp"}


def form_of(tool_choice: Any) -> str:
    """``auto`` | ``required`` | ``none`` | ``function`` (an object naming a function)."""
    if isinstance(tool_choice, dict):
        return "function"
    if tool_choice in (None, ""):
        return "auto"
    return str(tool_choice)


def is_reasoning_model(model: str) -> bool:
    """gpt-5 and o-series models (also behind a prefix such as ``openai/o3``)."""
    return bool(_REASONING_MODEL.match(model or ""))


def guess_compatible_provider(base_url: str | None) -> str:
    """The local server a base URL most likely points to, from its default port (a hint only)."""
    try:
        port = urlparse(base_url or "").port
    except ValueError:
        return "compatible"
    return _DEFAULT_PORTS.get(port or 0, "compatible")


def profile_for(provider: str, model: str = "") -> Profile:
    """The profile of ``provider`` for ``model`` (reasoning models get their own variant)."""
    base = PROFILES.get(provider, PROFILES["compatible"])
    if provider != "offline" and is_reasoning_model(model):
        return replace(
            base, name=f"{base.name}-reasoning", label=f"{base.label} (modèle de raisonnement)",
            temperature=False, token_param="max_completion_tokens", reasoning=True,
            effort_param="reasoning" if provider == "openrouter" else "reasoning_effort",
            sources=base.sources + (
                "https://github.com/QwenLM/qwen-code/issues/921 (temperature: only the default "
                "(1) value is supported)",
                "https://community.openai.com/t/inconsistent-token-limits-with-o3-mini-2025-01-31"
                "-model-empty-response-despite-supposed-large-context/1134663/2 (finish_reason "
                "'length': the budget must include the reasoning)"),
        )
    if _REASONING_OTHER.search(model or ""):
        return replace(base, reasoning=True)
    return base


def normalize_request(profile: Profile, body: dict) -> tuple[dict, tuple[str, ...]]:
    """``body`` rewritten for ``profile``, and French notes naming each change made.

    Never mutates ``body``. Only semantics-preserving rewrites are made; a capability that
    cannot be emulated (``required`` on Ollama) is left to the server and reported by
    :meth:`Profile.tool_choice_note` instead.
    """
    out = copy.deepcopy(body)
    notes: list[str] = []
    temperature = out.get("temperature")
    if not profile.temperature and temperature is not None and temperature != 1:
        del out["temperature"]
        notes.append(f"temperature={temperature} retirée : {profile.label} n'accepte que 1.")
    other = "max_tokens" if profile.token_param == "max_completion_tokens" else (
        "max_completion_tokens")
    if other in out:
        value = out.pop(other)
        out.setdefault(profile.token_param, value)
    if profile.reasoning and profile.effort_param:
        budget = out.get(profile.token_param)
        if budget is not None and budget < REASONING_MIN_BUDGET:
            out[profile.token_param] = REASONING_MIN_BUDGET
            notes.append(f"budget de sortie porté de {budget} à {REASONING_MIN_BUDGET} jetons : "
                         "le raisonnement se prend sur ce budget.")
        if "reasoning_effort" not in out and "reasoning" not in out:
            if profile.effort_param == "reasoning":
                out["reasoning"] = {"effort": REASONING_EFFORT}
            else:
                out["reasoning_effort"] = REASONING_EFFORT
            notes.append(f"effort de raisonnement « {REASONING_EFFORT} » demandé.")
    choice = out.get("tool_choice")
    if out.get("tools") and profile.treatment(choice) == EMULATED:
        form = form_of(choice)
        if form == "none":
            out.pop("tools")
            out.pop("tool_choice", None)
            out.pop("parallel_tool_calls", None)
        elif form == "function":
            name = (choice.get("function") or {}).get("name")
            out["tools"] = [t for t in out["tools"] if (t.get("function") or {}).get("name") == name]
            if profile.tool_choice.get("required") == HONOURED:
                out["tool_choice"] = "required"
            else:
                out.pop("tool_choice", None)
        notes.append(profile.tool_choice_note(choice) or "")
    if not profile.parallel_tool_calls and "parallel_tool_calls" in out:
        out.pop("parallel_tool_calls")
    return out, tuple(note for note in notes if note)


__all__ = [
    "EMULATED",
    "HONOURED",
    "IGNORED",
    "PROFILES",
    "PROVIDERS",
    "Profile",
    "REFUSED",
    "form_of",
    "guess_compatible_provider",
    "is_reasoning_model",
    "normalize_request",
    "profile_for",
]
