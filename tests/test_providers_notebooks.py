"""Lessons 00–01 (and the solutions of 01) executed against a local fake of each provider.

Each fake (``tests/fakes/provider_server.py``) is a loopback HTTP server started here, answering
with the offline simulator's replies dressed in one provider's documented wire behaviour. For
every profile: no uncaught exception for a configuration or capability problem, a French
explanation naming the fix where the provider cannot do something, full marks in the solutions'
check cells where it can, and the (recognisable, fake) key in no output.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from course_utils.runner import execute_one
from fakes.provider_server import FAKE_KEY, FakeProvider, profiles

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ["notebooks/00_setup_check.ipynb", "notebooks/01_function_calling.ipynb",
             "solutions/01_function_calling.ipynb"]
PROFILES = profiles()

# What each degraded profile must explain, in French, somewhere in lessons 00–01.
EXPECTED = {
    "openai-no-credit": ["crédit épuisé"],
    "openrouter-no-tools": ["ne gère pas l'appel d'outils", "OPENAI_MODEL_FAST"],
    "vllm-no-tool-flags": ["--enable-auto-tool-choice"],
    "openai-wrong-key": ["clé refusée", "OPENAI_API_KEY"],
    "ollama": ["Ollama ignore"],
}


def outputs_text(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", "") if isinstance(out.get("text"), str)
                         else "".join(out.get("text", [])))
            for value in (out.get("data") or {}).values():
                parts.append(value if isinstance(value, str) else json.dumps(value))
            parts.extend(out.get("traceback", []))
    return "\n".join(parts)


@pytest.mark.notebooks
@pytest.mark.parametrize("name", list(PROFILES))
def test_lessons_00_01_against_a_fake_provider(name, tmp_path, monkeypatch):
    behaviour, env = PROFILES[name]
    with FakeProvider(behaviour) as server:
        for var in ("COURSE_BACKEND", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_BASE_URL",
                    "OPENROUTER_BASE_URL", "OPENAI_MODEL", "OPENAI_MODEL_FAST",
                    "OPENAI_MODEL_BIG", "COURSE_PROVIDER", "MPLBACKEND"):
            monkeypatch.delenv(var, raising=False)
        for var, value in env.items():
            monkeypatch.setenv(var, value.replace("{url}", server.base_url))
        monkeypatch.setenv("COURSE_ALLOW_NETWORK", "1")
        monkeypatch.setenv("COURSE_ENV_FILE", "none")
        monkeypatch.setenv("BATCH_MODE", "1")
        monkeypatch.setenv("COURSE_USAGE_FILE", str(tmp_path / "usage.json"))
        runs = [execute_one(str(ROOT / nb), str(ROOT), str(tmp_path), 300) for nb in NOTEBOOKS]
    failures = [f"{run.notebook} : {run.error}" for run in runs if run.status != "ok"]
    assert not failures, "\n".join(failures)
    assert behaviour.log, "the notebooks never reached the fake server"

    texts = {nb: outputs_text(nbformat.read(tmp_path / nb, as_version=4)) for nb in NOTEBOOKS}
    everything = "\n".join(texts.values())
    for nb in NOTEBOOKS:  # the key appears nowhere: outputs, tracebacks, metadata
        assert FAKE_KEY not in (tmp_path / nb).read_text(encoding="utf-8"), nb
        assert env.get("OPENAI_API_KEY", FAKE_KEY) not in (tmp_path / nb).read_text("utf-8"), nb
    assert FAKE_KEY not in "\n".join(behaviour.log)
    for needle in EXPECTED.get(name, []):
        assert needle in everything, f"{name}: « {needle} » absent des sorties"
    solution = nbformat.read(tmp_path / NOTEBOOKS[2], as_version=4)
    checks = outputs_text(nbformat.v4.new_notebook(cells=[
        c for c in solution.cells
        if any(t.startswith("check:") for t in c.get("metadata", {}).get("tags", []))]))
    assert "✅" in checks
    assert "❌" not in checks, f"{name}: une vérification échoue :\n" + "\n".join(
        line for line in checks.splitlines() if "❌" in line)


@pytest.mark.notebooks
def test_an_openai_error_in_any_cell_shows_the_french_fix_first(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    from course_utils.kernel import KERNEL_NAME, install_kernel

    monkeypatch.setenv("COURSE_BACKEND", "offline")
    install_kernel(tmp_path)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("from course_utils import setup\ncfg = setup(True)"),
        nbformat.v4.new_code_cell(
            "import openai\nfrom course_utils._http import http_module\nh = http_module()\n"
            "r = h.Response(401, request=h.Request('POST', 'http://x/v1/chat/completions'), "
            "json={'error': {'message': 'Incorrect API key provided'}})\n"
            "raise openai.AuthenticationError('Error code: 401', response=r, "
            "body={'message': 'Incorrect API key provided'})"),
        nbformat.v4.new_code_cell("print('la suite reste exécutable')"),
    ]
    NotebookClient(nb, kernel_name=KERNEL_NAME, allow_errors=True, timeout=120,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    (error,) = [o for o in nb.cells[1].outputs if o.output_type == "error"]
    assert "clé refusée" in error.traceback[0] and "OPENAI_API_KEY" in error.traceback[0]
    assert any("AuthenticationError" in line for line in error.traceback[1:])  # trace kept
    assert error.ename == "AuthenticationError"
