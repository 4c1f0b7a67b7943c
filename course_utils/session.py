"""The notebook session: ``setup()``, the ``Course`` it returns, French errors in every cell.

``setup()`` is the first code cell of every lesson. It loads the settings (:mod:`.config`),
builds the client (:mod:`.llm`), prints the one-line banner and returns a :class:`Course`. It
never ends a lesson on a configuration problem: a ``ConfigError`` (or, with ``needs=("tools",)``,
a provider that refuses tool calls) is explained in French, with the fix, and the notebook goes on
with the offline simulator, which the banner then says.

In IPython/Jupyter it also installs an exception handler: an ``openai`` error, an ``LLMError`` or
a ``ConfigError`` raised in *any* later cell first shows the French explanation and the fix, then
the usual traceback (still there, below).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from . import llm
from .settings import ConfigError, Settings, load_settings

_PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Donne la météo actuelle d'une ville.",
        "parameters": {"type": "object",
                       "properties": {"location": {"type": "string", "description": "Ville"}},
                       "required": ["location"]},
    },
}


@dataclass(frozen=True)
class Course:
    """What ``setup()`` returns: the settings, a ready client, and the session's usage ledger.

    Unpacks as ``settings, client = setup()``. ``fallback`` is the French reason why the session
    runs offline although another backend was configured (``None`` otherwise).
    """

    settings: Settings
    client: Any
    ledger: Any
    fallback: str | None = None

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def model_fast(self) -> str:
        return self.settings.model_fast

    @property
    def model_big(self) -> str:
        return self.settings.model_big

    @property
    def batch_mode(self) -> bool:
        return self.settings.batch_mode

    @property
    def offline(self) -> bool:
        return self.settings.offline

    @property
    def provider(self) -> str:
        return self.settings.provider

    @property
    def profile(self):
        """Capability profile of the active provider for the fast model (see ``providers``)."""
        return self.settings.profile_for(self.settings.model_fast)

    def __iter__(self):
        return iter((self.settings, self.client))


def _papermill_injected_batch_mode() -> bool | None:
    """Value of BATCH_MODE injected by Papermill in this kernel, if any (it must win)."""
    shell = _shell()
    if shell is None:
        return None
    for source in reversed(shell.user_ns.get("In", [])):
        if source.lstrip().startswith("# Parameters"):
            match = re.search(r"^BATCH_MODE\s*=\s*(\w+)", source, re.MULTILINE)
            if match:
                return match.group(1).strip().lower() in {"1", "true", "yes", "on"}
    return None


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        return None
    return get_ipython()


def _offline_settings(settings: Settings) -> Settings:
    return replace(Settings(), batch_mode=settings.batch_mode, seed=settings.seed,
                   env_file=settings.env_file, warnings=settings.warnings)


def _probe_tools(settings: Settings, client: Any) -> str | None:
    """One tiny tool request; the French explanation when the provider refuses it."""
    try:
        llm.chat([{"role": "user", "content": "Quel temps fait-il à Paris ?"}], client=client,
                 model=settings.model_fast, tools=[_PROBE_TOOL], max_tokens=50, max_retries=1)
    except llm.LLMError as error:
        return error.message
    return None


def setup(batch_mode: bool | None = None, *, quiet: bool = False, needs: Any = (),
          **overrides: Any) -> Course:
    """Load the settings, build the client, print the one-line banner, return a ``Course``.

    Batch mode: a value injected by Papermill wins; otherwise ``True`` passed here, or the
    ``BATCH_MODE`` environment variable, turns it on (the notebook's default ``False`` does not
    override the environment). ``overrides`` replace settings fields (e.g. ``backend="offline"``).
    ``needs=("tools",)`` checks with one small request that the provider accepts tool calls.
    """
    injected = _papermill_injected_batch_mode()
    fallback = None
    try:
        settings = load_settings()
    except ConfigError as error:
        fallback = str(error)
        settings = Settings()
    batch = injected if injected is not None else (bool(batch_mode) or settings.batch_mode)
    if "backend" in overrides and "provider" not in overrides and overrides["backend"] != (
            "compatible"):
        overrides["provider"] = overrides["backend"]
    settings = replace(settings, batch_mode=batch, **overrides)
    client = llm.make_client(settings)
    needs = (needs,) if isinstance(needs, str) else tuple(needs)
    if fallback is None and "tools" in needs and not settings.offline:
        reason = _probe_tools(settings, client)
        if reason:
            fallback = reason
            settings = _offline_settings(settings)
            client = llm.make_client(settings)
    llm.set_default(settings, client)
    install_error_handler()
    if not quiet:
        if fallback:
            print(f"❌ {fallback}")
            print("➜ Corrigez puis relancez le noyau. En attendant, ce notebook utilise le "
                  "simulateur hors ligne.")
        print(settings.banner())
        for warning in settings.warnings:
            print(f"⚠️ {warning}")
    return Course(settings=settings, client=client, ledger=llm.session_ledger(),
                  fallback=fallback)


# --------------------------------------------------------------------------- notebook errors


def french_explanation(error: BaseException) -> str | None:
    """The French explanation of a course-relevant exception (``None`` for any other)."""
    import openai

    if isinstance(error, llm.LLMError):
        return error.message
    if isinstance(error, ConfigError):
        return str(error)
    if isinstance(error, openai.OpenAIError):
        return llm.explain_error(error).message
    return None


def _handler(shell, etype, value, tb, tb_offset=None):
    """IPython custom exception handler: French explanation and fix, then the traceback.

    IPython's cell runner calls it *instead of* showing the traceback, so it displays the error
    itself (``_showtraceback`` is what ipykernel turns into the cell's error output).
    """
    explanation = french_explanation(value)
    stb = shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset)
    if explanation:
        stb = [f"\x1b[1;31m❌ {explanation}\x1b[0m\n"
               "(Explication du cours ci-dessus ; la trace Python complète suit.)\n", *stb]
    shell._showtraceback(etype, value, stb)


def install_error_handler() -> bool:
    """Install :func:`_handler` in the running IPython shell; ``False`` outside IPython."""
    shell = _shell()
    if shell is None or not hasattr(shell, "set_custom_exc"):
        return False
    import openai

    shell.set_custom_exc((openai.OpenAIError, llm.LLMError, ConfigError), _handler)
    return True


__all__ = ["Course", "french_explanation", "install_error_handler", "setup"]
