"""Settings of the course: which backend, which models, batch mode, seed.

Where settings come from, in order of precedence:

1. the process environment (``export OPENAI_API_KEY=...``, a Papermill run, CI);
2. a ``.env`` file. It is looked for by walking up from the notebook's folder (the current
   directory, or the notebook path JupyterLab/VS Code expose), then in the course's repository
   root (found from this package's location) — never only in the current directory, because
   Papermill and IDEs may start the kernel elsewhere;
3. defaults: no key at all selects the offline simulator.

Backend rule (DESIGN §3): an explicit ``COURSE_BACKEND`` wins; otherwise a key selects its
provider (``OPENAI_API_KEY`` → ``openai``, or ``compatible`` when ``OPENAI_BASE_URL`` points to
another server; ``OPENROUTER_API_KEY`` → ``openrouter``); an ``OPENAI_BASE_URL`` that is not
OpenAI's selects ``compatible`` even without a key (local servers such as Ollama need none);
otherwise ``offline``. When both keys are set, OpenAI wins (set ``COURSE_BACKEND`` to choose).

The key is never shown: not in ``repr(settings)``, not in the banner, not in an error message.
Under ``CI=true`` a backend other than offline refuses to start unless ``COURSE_ALLOW_NETWORK=1``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from collections.abc import Mapping

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

_TRUE = {"1", "true", "yes", "oui", "on", "vrai"}
_PLACEHOLDER = re.compile(r"(votre|your|xxx|\.\.\.|<|changeme|remplacez)", re.IGNORECASE)


class ConfigError(RuntimeError):
    """A configuration mistake the student can fix; the message (French) says how."""


@dataclass(frozen=True)
class Settings:
    """Resolved settings. ``api_key`` is kept out of ``repr`` and of every printed text."""

    backend: str = "offline"
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
    def has_key(self) -> bool:
        return bool(self.api_key)

    def banner(self) -> str:
        """One line: backend, models, batch mode, seed. Never the key."""
        if self.offline:
            where = "offline (simulateur local, sans réseau ni clé)"
        elif self.backend == "compatible":
            where = f"compatible ({self.base_url})"
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
    """Folders where the running notebook may live (cwd first, then what the front-end tells)."""
    dirs = [Path.cwd()]
    for var in ("JPY_SESSION_NAME", "__vsc_ipynb_file__"):
        value = os.environ.get(var)
        if value and value.endswith(".ipynb"):
            dirs.append(Path(value).resolve().parent)
    return dirs


def find_env_file(start: str | os.PathLike | None = None) -> Path | None:
    """Find the ``.env`` to use.

    Without ``start``: walk up from the notebook's folder (cwd, or the path the front-end gives),
    then try the course's repository root. With ``start``: walk up from that folder only.
    """
    starts = [Path(start).resolve()] if start is not None else _notebook_dirs()
    for folder in starts:
        for candidate_dir in (folder, *folder.parents):
            candidate = candidate_dir / ".env"
            if candidate.is_file():
                return candidate
    if start is not None:
        return None
    root_env = _package_repo_root() / ".env"
    return root_env if root_env.is_file() else None


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


def _key(values: Mapping[str, str], name: str, warnings: list[str]) -> str | None:
    value = (values.get(name) or "").strip().strip('"').strip("'")
    if not value:
        return None
    if _PLACEHOLDER.search(value):
        warnings.append(
            f"{name} contient encore la valeur d'exemple : elle est ignorée. "
            f"Collez votre vraie clé dans .env, ou retirez la ligne pour rester hors ligne."
        )
        return None
    return value


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
    values = {**_read_env_file(path), **environ}  # environment variables win over .env
    warnings: list[str] = []

    openai_key = _key(values, "OPENAI_API_KEY", warnings)
    openrouter_key = _key(values, "OPENROUTER_API_KEY", warnings)
    openai_url = (values.get("OPENAI_BASE_URL") or "").strip() or None

    explicit = (values.get("COURSE_BACKEND") or "").strip().lower()
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
    else:
        backend = "offline"

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

    batch = _truthy(values.get("BATCH_MODE", "")) if batch_mode is None else bool(batch_mode)
    settings = Settings(
        backend=backend,
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


def _papermill_injected_batch_mode() -> bool | None:
    """Value of BATCH_MODE injected by Papermill in this kernel, if any (it must win)."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython ships with ipykernel
        return None
    shell = get_ipython()
    if shell is None:
        return None
    for source in reversed(shell.user_ns.get("In", [])):
        if source.lstrip().startswith("# Parameters"):
            match = re.search(r"^BATCH_MODE\s*=\s*(\w+)", source, re.MULTILINE)
            if match:
                return _truthy(match.group(1))
    return None


@dataclass(frozen=True)
class Course:
    """What ``setup()`` returns: the settings, a ready client, and the session's usage ledger.

    Unpacks as ``settings, client = setup()``.
    """

    settings: Settings
    client: Any
    ledger: Any

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

    def __iter__(self):
        return iter((self.settings, self.client))


def setup(batch_mode: bool | None = None, *, quiet: bool = False, **overrides: Any) -> Course:
    """Load the settings, build the client, print the one-line banner, return a ``Course``.

    Batch mode: a value injected by Papermill wins; otherwise ``True`` passed here, or the
    ``BATCH_MODE`` environment variable, turns it on (the notebook's default ``False`` does not
    override the environment). ``overrides`` replace settings fields (e.g. ``backend="offline"``).
    """
    from . import llm

    injected = _papermill_injected_batch_mode()
    settings = load_settings()
    if injected is not None:
        batch = injected
    else:
        batch = bool(batch_mode) or settings.batch_mode
    settings = replace(settings, batch_mode=batch, **overrides)
    client = llm.make_client(settings)
    llm.set_default(settings, client)
    if not quiet:
        print(settings.banner())
        for warning in settings.warnings:
            print(f"⚠️ {warning}")
    return Course(settings=settings, client=client, ledger=llm.session_ledger())
