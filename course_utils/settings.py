"""Settings of the course: which backend, which provider, which models, batch mode, seed.

Where settings come from, in order of precedence:

1. the process environment (``export OPENAI_API_KEY=...``, a Papermill run, CI);
2. a ``.env`` file, looked for from the notebook's folder (the current directory, or the notebook
   path JupyterLab/VS Code expose) **up to the course's repository root** and no further, then in
   the repository root found from this package's location, then in the current directory. A
   stray ``.env`` above the course (in a home folder, or ``/``) is never read;
3. defaults: no key at all selects the offline simulator.

Backend rule (DESIGN §3): an explicit ``COURSE_BACKEND`` wins; otherwise a key selects its
provider (``OPENAI_API_KEY`` → ``openai``, or ``compatible`` when ``OPENAI_BASE_URL`` points to
another server; ``OPENROUTER_API_KEY`` → ``openrouter``); an ``OPENAI_BASE_URL`` that is not
OpenAI's selects ``compatible`` even without a key (local servers such as Ollama need none);
otherwise ``offline``. When both keys are set, OpenAI wins (set ``COURSE_BACKEND`` to choose).

The *provider* (``settings.provider``) refines a ``compatible`` backend: ``COURSE_PROVIDER``
(``ollama``, ``vllm``, ``lmstudio``, ``llamacpp``, ``compatible``) when set, else a hint from the
base URL's default port (see :mod:`course_utils.providers`). Messages name the provider and the
variables of the configured backend, never a guess from a client's URL.

A key equal to one of the example values of ``.env.example`` is ignored with a French warning
(exact comparison: a real key is never mistaken for a placeholder). When no key is found but the
``.env`` defines a variable that looks like a misspelt key (``OPEN_AI_API_KEY``), a warning names
it. The key is never shown: not in ``repr(settings)``, not in the banner, not in an error message.
Under ``CI=true`` a backend other than offline refuses to start unless ``COURSE_ALLOW_NETWORK=1``.

This module imports nothing of ``llm``: the client is built from settings, never the reverse.
``setup()`` and the ``Course`` it returns live in :mod:`course_utils.session`;
:mod:`course_utils.config` gathers both under the names the notebooks use.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Mapping

from . import providers

BACKENDS = ("offline", "openai", "openrouter", "compatible")

OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
OLLAMA_BASE_URL = "http://localhost:11434/v1"

# Default model names per backend: (default, fast, big, embeddings). Every one can be overridden
# with OPENAI_MODEL, OPENAI_MODEL_FAST, OPENAI_MODEL_BIG and COURSE_EMBEDDING_MODEL.
DEFAULT_MODELS = {
    "offline": ("offline-fast", "offline-fast", "offline-big", "offline-embed"),
    "openai": ("gpt-4.1-mini", "gpt-4.1-mini", "gpt-4.1", "text-embedding-3-small"),
    "openrouter": (
        "openai/gpt-4.1-mini",
        "openai/gpt-4.1-mini",
        "openai/gpt-4.1",
        "openai/text-embedding-3-small",
    ),
    "compatible": ("llama3.1", "llama3.1", "llama3.1", "nomic-embed-text"),
}

KEY_VARIABLE = {
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "compatible": "OPENAI_API_KEY",
    "offline": "OPENAI_API_KEY",
}

BASE_URL_VARIABLE = {
    "openai": "OPENAI_BASE_URL",
    "openrouter": "OPENROUTER_BASE_URL",
    "compatible": "OPENAI_BASE_URL",
    "offline": "OPENAI_BASE_URL",
}

KNOWN_VARIABLES = (
    "COURSE_BACKEND", "COURSE_PROVIDER", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "OPENAI_MODEL", "OPENAI_MODEL_FAST",
    "OPENAI_MODEL_BIG", "COURSE_EMBEDDING_MODEL", "BATCH_MODE", "COURSE_SEED",
    "COURSE_ALLOW_NETWORK", "COURSE_ENV_FILE", "COURSE_PRICES",
)
_KEY_NAMES = ("OPENAI_API_KEY", "OPENROUTER_API_KEY")

# The example values of .env.example (and of the original course), compared EXACTLY: a random
# real key that happens to contain "xxx" or "your" is never rejected.
PLACEHOLDER_KEYS = frozenset({
    "sk-votre-cle-ici", "sk-or-votre-cle-ici", "sk-...", "sk-or-...", "sk-xxx", "sk-or-xxx",
    "votre-cle-ici", "votre_cle_ici", "your-api-key", "your_api_key", "your-api-key-here",
    "your_api_key_here", "<votre-cle>", "<your-api-key>", "changeme",
})

# A folder holding one of these is the top of a course checkout: the .env search stops there.
ROOT_MARKERS = (".git", ".env.example", "pyproject.toml")

_TRUE = {"1", "true", "yes", "oui", "on", "vrai"}


class ConfigError(RuntimeError):
    """A configuration mistake the student can fix; the message (French) says how."""


@dataclass(frozen=True)
class Settings:
    """Resolved settings. ``api_key`` is kept out of ``repr`` and of every printed text."""

    backend: str = "offline"
    provider: str = "offline"
    model: str = "offline-fast"
    model_fast: str = "offline-fast"
    model_big: str = "offline-big"
    embedding_model: str = "offline-embed"
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    batch_mode: bool = False
    seed: int = 0
    env_file: str | None = None
    allow_network: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def offline(self) -> bool:
        return self.backend == "offline"

    @property
    def key_variable(self) -> str:
        """Name of the variable that holds this backend's key (for error messages)."""
        return KEY_VARIABLE[self.backend]

    @property
    def base_url_variable(self) -> str:
        """Name of the variable that holds this backend's address (for error messages)."""
        return BASE_URL_VARIABLE[self.backend]

    @property
    def has_key(self) -> bool:
        return bool(self.api_key)

    @property
    def profile(self) -> providers.Profile:
        """Capability profile of the provider for the default model."""
        return providers.profile_for(self.provider, self.model)

    def profile_for(self, model: str | None = None) -> providers.Profile:
        """Capability profile of the provider for ``model`` (reasoning models differ)."""
        return providers.profile_for(self.provider, model or self.model)

    @property
    def provider_label(self) -> str:
        return providers.PROFILES.get(self.provider, providers.PROFILES["compatible"]).label

    def banner(self) -> str:
        """One line: backend, models, batch mode, seed. Never the key."""
        if self.offline:
            where = "offline (simulateur local, sans réseau ni clé)"
        elif self.backend == "compatible":
            where = f"compatible · {self.provider_label} ({self.base_url})"
        else:
            where = self.backend
        models = (
            self.model_fast
            if self.model_fast == self.model_big
            else f"{self.model_fast} (rapide) / {self.model_big} (gros)"
        )
        batch = "oui" if self.batch_mode else "non"
        return (
            f"Backend : {where} · modèles : {models} · BATCH_MODE : {batch} · graine : {self.seed}"
        )


def _truthy(value: Any) -> bool:
    return str(value).strip().lower() in _TRUE


def _package_repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _notebook_dirs() -> list[Path]:
    """Folders where the running notebook may live (what the front-end tells first, then cwd)."""
    dirs = []
    for var in ("__vsc_ipynb_file__", "JPY_SESSION_NAME"):
        value = os.environ.get(var)
        if value and value.endswith(".ipynb"):
            dirs.append(Path(value).resolve().parent)
    dirs.append(Path.cwd().resolve())
    return dirs


def course_root(start: Path) -> Path | None:
    """The top of the course checkout holding ``start``: the nearest folder (from ``start`` up)
    with a repository marker, or the package's repository when ``start`` is inside it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in ROOT_MARKERS):
            return folder
    package_root = _package_repo_root()
    if start == package_root or package_root in start.parents:
        return package_root
    return None


def _walk_to_root(start: Path) -> list[Path]:
    """``start`` and its parents up to the course root (inclusive); only ``start`` without one."""
    start = start.resolve()
    root = course_root(start)
    if root is None:
        return [start]
    chain = [start]
    for folder in start.parents:
        if chain[-1] == root:
            break
        chain.append(folder)
    return chain


def find_env_file(start: str | os.PathLike | None = None) -> Path | None:
    """Find the ``.env`` to use.

    Without ``start``: from the notebook's folder up to the course's repository root, then the
    package's repository root, then the current directory. With ``start``: from that folder up
    to its course root only. Never above the course root.
    """
    if start is not None:
        candidates = [folder / ".env" for folder in _walk_to_root(Path(start))]
    else:
        candidates = [folder / ".env" for start_dir in _notebook_dirs()
                      for folder in _walk_to_root(start_dir)]
        candidates += [_package_repo_root() / ".env", Path.cwd() / ".env"]
    return next((path for path in candidates if path.is_file()), None)


def _read_env_file(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    from dotenv import dotenv_values

    try:
        values = dotenv_values(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"impossible de lire le fichier .env ({path.name}) : {exc}. "
            "Vérifiez qu'il est en UTF-8, une variable par ligne (NOM=valeur)."
        ) from exc
    return {k: v for k, v in values.items() if v is not None}


def _resolve_env_path(env_file: str | os.PathLike | None, environ: Mapping[str, str]):
    if env_file is None:
        forced = (environ.get("COURSE_ENV_FILE") or "").strip()
        if forced.lower() in {"none", "0", "aucun"}:
            return None
        if forced:
            if not Path(forced).is_file():
                raise ConfigError(f"COURSE_ENV_FILE={forced} : ce fichier n'existe pas.")
            return Path(forced).resolve()
        return find_env_file()
    if Path(env_file).is_file():
        return Path(env_file).resolve()
    return find_env_file(env_file)


def _clean(value: str | None) -> str:
    return (value or "").strip().strip('"').strip("'").strip()


def _key(values: Mapping[str, str], name: str, warnings: list[str]) -> str | None:
    value = _clean(values.get(name))
    if not value:
        return None
    if value.lower() in PLACEHOLDER_KEYS:
        warnings.append(
            f"{name} contient encore la valeur d'exemple : elle est ignorée. "
            f"Collez votre vraie clé dans .env, ou retirez la ligne pour rester hors ligne."
        )
        return None
    return value


def misspelt_key_variables(names) -> list[str]:
    """Names that look like a misspelt key variable (``OPEN_AI_API_KEY``, ``openai_api_key``)."""
    squeezed_keys = {"OPENAIAPIKEY", "OPENROUTERAPIKEY", "OPENAIKEY", "OPENROUTERKEY"}
    found = []
    for name in names:
        if name in KNOWN_VARIABLES:
            continue
        upper = name.upper()
        squeezed = re.sub(r"[^A-Z]", "", upper)
        if squeezed in squeezed_keys or difflib.get_close_matches(upper, _KEY_NAMES, cutoff=0.8):
            found.append(name)
    return found


def _is_openai_url(url: str | None) -> bool:
    return not url or "api.openai.com" in url


def load_settings(
    env: Mapping[str, str] | None = None,
    *,
    env_file: str | os.PathLike | None = None,
    batch_mode: bool | None = None,
) -> Settings:
    """Resolve the settings from the environment and the ``.env`` file (environment wins).

    ``env`` replaces ``os.environ`` (tests); ``env_file`` forces a ``.env`` path or a folder to
    search from; ``batch_mode`` forces batch mode on or off.
    """
    environ = dict(os.environ if env is None else env)
    path = _resolve_env_path(env_file, environ)
    from_file = _read_env_file(path)
    values = {**from_file, **environ}  # environment variables win over .env
    warnings: list[str] = []

    openai_key = _key(values, "OPENAI_API_KEY", warnings)
    openrouter_key = _key(values, "OPENROUTER_API_KEY", warnings)
    openai_url = (values.get("OPENAI_BASE_URL") or "").strip() or None

    explicit = _clean(values.get("COURSE_BACKEND")).lower()
    provider_choice = _clean(values.get("COURSE_PROVIDER")).lower().replace(" ", "")
    provider_choice = {"lm-studio": "lmstudio", "llama.cpp": "llamacpp"}.get(provider_choice,
                                                                           provider_choice)
    if provider_choice and provider_choice not in providers.PROVIDERS:
        raise ConfigError(
            f"COURSE_PROVIDER={provider_choice!r} n'est pas reconnu : choisissez parmi "
            "ollama, vllm, lmstudio, llamacpp, compatible."
        )
    if explicit:
        if explicit not in BACKENDS:
            raise ConfigError(
                f"COURSE_BACKEND={explicit!r} n'est pas reconnu : choisissez parmi "
                + ", ".join(BACKENDS)
                + "."
            )
        backend = explicit
    elif openai_key and _is_openai_url(openai_url):
        backend = "openai"
    elif openai_url and not _is_openai_url(openai_url):
        backend = "compatible"
    elif openrouter_key:
        backend = "openrouter"
    elif provider_choice in ("ollama", "vllm", "lmstudio", "llamacpp", "compatible"):
        backend = "compatible"
    else:
        backend = "offline"
        if path is not None and not openai_key and not openrouter_key:
            typos = misspelt_key_variables(from_file)
            if typos:
                warnings.append(
                    f"aucune clé reconnue dans {path.name}, mais {', '.join(typos)} "
                    "ressemble à une clé mal orthographiée : le nom attendu est OPENAI_API_KEY "
                    "(ou OPENROUTER_API_KEY). Le cours reste hors ligne."
                )

    api_key: str | None
    base_url: str | None
    if backend == "openai":
        api_key, base_url = openai_key, openai_url
        if not api_key:
            raise ConfigError(
                "COURSE_BACKEND=openai mais aucune clé : ajoutez OPENAI_API_KEY=sk-... dans .env "
                "(copiez .env.example en .env), ou retirez COURSE_BACKEND pour rester hors ligne."
            )
    elif backend == "openrouter":
        api_key = openrouter_key
        base_url = (values.get("OPENROUTER_BASE_URL") or "").strip() or OPENROUTER_BASE_URL
        if not api_key:
            raise ConfigError(
                "COURSE_BACKEND=openrouter mais aucune clé : ajoutez OPENROUTER_API_KEY=sk-or-... "
                "dans .env, ou retirez COURSE_BACKEND pour rester hors ligne."
            )
    elif backend == "compatible":
        api_key = openai_key or "not-needed"
        base_url = openai_url or OLLAMA_BASE_URL
    else:
        api_key, base_url = None, None

    if backend == "compatible":
        provider = (provider_choice if provider_choice in ("ollama", "vllm", "lmstudio",
                                                           "llamacpp", "compatible")
                    else providers.guess_compatible_provider(base_url))
    else:
        provider = backend

    default, fast, big, embed = DEFAULT_MODELS[backend]
    if backend != "offline":
        default = values.get("OPENAI_MODEL") or default
        fast = values.get("OPENAI_MODEL_FAST") or values.get("OPENAI_MODEL") or fast
        big = values.get("OPENAI_MODEL_BIG") or values.get("OPENAI_MODEL") or big
        embed = values.get("COURSE_EMBEDDING_MODEL") or embed

    try:
        seed = int(values.get("COURSE_SEED", "0") or 0)
    except ValueError:
        raise ConfigError(
            f"COURSE_SEED doit être un entier (reçu {values.get('COURSE_SEED')!r})."
        ) from None

    batch = _truthy(_clean(values.get("BATCH_MODE"))) if batch_mode is None else bool(batch_mode)
    settings = Settings(
        backend=backend,
        provider=provider,
        model=default,
        model_fast=fast,
        model_big=big,
        embedding_model=embed,
        base_url=base_url,
        api_key=api_key,
        batch_mode=batch,
        seed=seed,
        env_file=str(path) if path else None,
        allow_network=_truthy(values.get("COURSE_ALLOW_NETWORK", "")),
        warnings=tuple(warnings),
    )
    ensure_network_allowed(settings, environ)
    return settings


def ensure_network_allowed(settings: Settings, environ: Mapping[str, str] | None = None) -> None:
    """Under ``CI=true``, refuse a networked backend unless ``COURSE_ALLOW_NETWORK=1``."""
    environ = os.environ if environ is None else environ
    if settings.offline or not _truthy(environ.get("CI", "")) or settings.allow_network:
        return
    raise ConfigError(
        f"CI=true : le backend « {settings.backend} » utiliserait le réseau. En CI le cours reste "
        "hors ligne ; définissez COURSE_ALLOW_NETWORK=1 pour autoriser un vrai modèle, "
        "ou COURSE_BACKEND=offline."
    )

