"""Settings: backend selection, .env discovery, secrets kept out of every printed text."""

from __future__ import annotations

import pytest

from course_utils.config import ConfigError, Settings, load_settings, setup

SECRET = "sk-test-SECRET-1234567890"


def settings_from(tmp_path, env: dict, dotenv: str | None = None) -> Settings:
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv, encoding="utf-8")
    return load_settings(env, env_file=tmp_path)


def test_no_key_means_offline(tmp_path):
    s = settings_from(tmp_path, {})
    assert s.backend == "offline"
    assert s.model_fast == "offline-fast" and s.model_big == "offline-big"
    assert s.api_key is None


def test_a_key_selects_its_provider(tmp_path):
    assert settings_from(tmp_path, {"OPENAI_API_KEY": SECRET}).backend == "openai"
    s = settings_from(tmp_path, {"OPENROUTER_API_KEY": SECRET})
    assert s.backend == "openrouter" and s.base_url.startswith("https://openrouter.ai")


def test_explicit_backend_wins_over_keys(tmp_path):
    s = settings_from(tmp_path, {"OPENAI_API_KEY": SECRET, "COURSE_BACKEND": "offline"})
    assert s.backend == "offline"


def test_local_server_base_url_selects_compatible_without_key(tmp_path):
    s = settings_from(tmp_path, {"OPENAI_BASE_URL": "http://localhost:11434/v1",
                                 "OPENAI_MODEL": "qwen2.5:7b"})
    assert s.backend == "compatible"
    assert s.model == s.model_fast == s.model_big == "qwen2.5:7b"
    assert s.base_url == "http://localhost:11434/v1"


def test_dotenv_is_found_from_a_subfolder_and_environment_wins(tmp_path):
    (tmp_path / ".env.example").write_text("# exemple\n", encoding="utf-8")  # the course root
    (tmp_path / ".env").write_text(
        f"OPENAI_API_KEY={SECRET}\nOPENAI_MODEL_FAST=from-dotenv\nCOURSE_SEED=7\n",
        encoding="utf-8",
    )
    sub = tmp_path / "notebooks"
    sub.mkdir()
    s = load_settings({"OPENAI_MODEL_FAST": "from-env"}, env_file=sub)
    assert s.backend == "openai"
    assert s.model_fast == "from-env"  # the environment wins over .env
    assert s.seed == 7
    assert s.env_file == str(tmp_path / ".env")


def test_original_variable_names_work(tmp_path):
    s = settings_from(tmp_path, {}, "OPENAI_API_KEY=" + SECRET + "\nOPENAI_MODEL_FAST=gpt-4o-mini"
                      "\nOPENAI_MODEL_BIG=gpt-5\nOPENAI_MODEL=gpt-4o\n")
    assert (s.model, s.model_fast, s.model_big) == ("gpt-4o", "gpt-4o-mini", "gpt-5")


def test_key_never_in_repr_or_banner(tmp_path):
    s = settings_from(tmp_path, {"OPENAI_API_KEY": SECRET})
    assert SECRET not in repr(s)
    assert SECRET not in s.banner()
    assert SECRET not in str(s)


def test_placeholder_key_from_the_example_is_ignored_with_a_french_warning(tmp_path):
    s = settings_from(tmp_path, {}, "OPENAI_API_KEY=sk-votre-cle-ici\n")
    assert s.backend == "offline"
    assert any("valeur d'exemple" in w for w in s.warnings)


def test_unknown_backend_gets_a_french_message(tmp_path):
    with pytest.raises(ConfigError, match="COURSE_BACKEND"):
        settings_from(tmp_path, {"COURSE_BACKEND": "gemini"})


def test_backend_without_its_key_names_the_variable(tmp_path):
    with pytest.raises(ConfigError, match="OPENROUTER_API_KEY"):
        settings_from(tmp_path, {"COURSE_BACKEND": "openrouter"})


def test_ci_refuses_network_unless_allowed(tmp_path):
    with pytest.raises(ConfigError, match="COURSE_ALLOW_NETWORK"):
        settings_from(tmp_path, {"CI": "true", "OPENAI_API_KEY": SECRET})
    s = settings_from(tmp_path, {"CI": "true", "OPENAI_API_KEY": SECRET,
                                 "COURSE_ALLOW_NETWORK": "1"})
    assert s.backend == "openai"
    assert settings_from(tmp_path, {"CI": "true"}).backend == "offline"


def test_batch_mode_from_environment(tmp_path):
    assert settings_from(tmp_path, {"BATCH_MODE": "1"}).batch_mode is True
    assert settings_from(tmp_path, {"BATCH_MODE": "0"}).batch_mode is False


def test_setup_prints_one_line_banner_without_secret(tmp_path, monkeypatch, capsys):
    for var in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_BASE_URL", "COURSE_BACKEND",
                "BATCH_MODE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    course = setup(True)
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    assert "offline" in out and "BATCH_MODE : oui" in out
    settings, client = course
    assert settings.batch_mode and client is course.client


def test_bad_seed_is_explained(tmp_path):
    with pytest.raises(ConfigError, match="COURSE_SEED"):
        settings_from(tmp_path, {"COURSE_SEED": "abc"})


# --------------------------------------------------------------------------- .env search bounds


def test_a_stray_dotenv_above_the_course_root_is_never_read(tmp_path):
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n", encoding="utf-8")
    course = tmp_path / "cours"
    (course / "notebooks").mkdir(parents=True)
    (course / ".git").mkdir()
    s = load_settings({}, env_file=course / "notebooks")
    assert s.backend == "offline" and s.env_file is None


def test_without_a_course_root_only_the_folder_itself_is_searched(tmp_path):
    (tmp_path / ".env").write_text(f"OPENAI_API_KEY={SECRET}\n", encoding="utf-8")
    (tmp_path / "ailleurs").mkdir()
    assert load_settings({}, env_file=tmp_path / "ailleurs").backend == "offline"
    assert load_settings({}, env_file=tmp_path).backend == "openai"


def test_default_search_goes_from_the_notebook_folder_to_the_root_then_cwd(tmp_path, monkeypatch):
    from course_utils import settings as config

    course = tmp_path / "cours"
    (course / "notebooks").mkdir(parents=True)
    (course / ".env.example").write_text("", encoding="utf-8")
    (course / ".env").write_text("COURSE_SEED=3\n", encoding="utf-8")
    (tmp_path / ".env").write_text("COURSE_SEED=99\n", encoding="utf-8")  # above the root
    monkeypatch.chdir(course / "notebooks")
    monkeypatch.setattr(config, "_package_repo_root", lambda: tmp_path / "ailleurs")
    assert config.find_env_file() == (course / ".env").resolve()
    other = tmp_path / "autre"
    other.mkdir()
    (other / ".env").write_text("COURSE_SEED=5\n", encoding="utf-8")
    monkeypatch.chdir(other)  # no course root: the cwd's own .env, never its parents'
    assert config.find_env_file() == (other / ".env").resolve()


# --------------------------------------------------------------------------- keys


def test_a_misspelt_key_variable_is_named_in_a_warning(tmp_path):
    s = settings_from(tmp_path, {}, f"OPEN_AI_API_KEY={SECRET}\nOPENAI_MODEL=gpt-4o\n")
    assert s.backend == "offline"
    (warning,) = [w for w in s.warnings if "mal orthographiée" in w]
    assert "OPEN_AI_API_KEY" in warning and "OPENAI_API_KEY" in warning
    assert SECRET not in warning
    assert not settings_from(tmp_path, {}, "OPENAI_MODEL=gpt-4o\n").warnings


@pytest.mark.parametrize("key", ["sk-proj-abcXXXdef123", "sk-yourAbc123", "sk-...real-looking",
                                 "sk-votrecle9"])
def test_a_real_key_is_never_taken_for_a_placeholder(tmp_path, key):
    s = settings_from(tmp_path, {"OPENAI_API_KEY": key})
    assert s.backend == "openai" and s.api_key == key and not s.warnings


def test_every_example_value_of_env_example_is_a_known_placeholder():
    import re
    from pathlib import Path

    from course_utils.config import PLACEHOLDER_KEYS

    text = (Path(__file__).resolve().parent.parent / ".env.example").read_text(encoding="utf-8")
    values = re.findall(r"^#\s*(?:OPENAI|OPENROUTER)_API_KEY=(\S+)", text, re.MULTILINE)
    assert values and all(v in PLACEHOLDER_KEYS for v in values)


def test_env_example_lines_uncommented_give_clean_values(tmp_path):
    """Comments sit on their own lines: uncommenting a line never leaks « (…) » into a value."""
    from pathlib import Path

    import re

    text = (Path(__file__).resolve().parent.parent / ".env.example").read_text(encoding="utf-8")
    assignments = re.findall(r"^#\s*([A-Z_]+=.*)$", text, re.MULTILINE)
    assert assignments
    (tmp_path / ".env").write_text("\n".join(assignments) + "\n", encoding="utf-8")
    from dotenv import dotenv_values

    for name, value in dotenv_values(tmp_path / ".env").items():
        assert value is not None and " " not in value.strip() and "(" not in value, (name, value)


# --------------------------------------------------------------------------- provider


def test_provider_comes_from_settings_or_the_default_port(tmp_path):
    s = settings_from(tmp_path, {"OPENAI_BASE_URL": "http://127.0.0.1:9999/v1",
                                 "COURSE_PROVIDER": "lmstudio"})
    assert (s.backend, s.provider) == ("compatible", "lmstudio")
    assert "LM Studio" in s.banner()
    s = settings_from(tmp_path, {"OPENAI_BASE_URL": "http://localhost:11434/v1"})
    assert s.provider == "ollama"
    s = settings_from(tmp_path, {"COURSE_BACKEND": "openai", "OPENAI_API_KEY": SECRET,
                                 "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"})
    assert (s.backend, s.provider, s.key_variable) == ("openai", "openai", "OPENAI_API_KEY")
    s = settings_from(tmp_path, {"OPENROUTER_API_KEY": SECRET})
    assert s.base_url_variable == "OPENROUTER_BASE_URL"
    with pytest.raises(ConfigError, match="COURSE_PROVIDER"):
        settings_from(tmp_path, {"COURSE_PROVIDER": "gemini"})


# --------------------------------------------------------------------------- setup module


def test_setup_explains_a_configuration_error_and_goes_on_offline(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COURSE_BACKEND", "openrouter")
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    course = setup(True)
    out = capsys.readouterr().out
    assert "OPENROUTER_API_KEY" in out and "hors ligne" in out
    assert course.offline and course.fallback


def test_setup_lives_in_its_own_module_and_settings_do_not_import_llm():
    import subprocess
    import sys

    code = ("import sys, course_utils.settings; assert 'course_utils.llm' not in sys.modules; "
            "import course_utils.config as c; "
            "from course_utils import setup; from course_utils.session import setup as s2; "
            "assert setup is s2 is c.setup; from course_utils.config import Course; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


def test_setup_override_of_the_backend_also_sets_the_provider(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    course = setup(True, quiet=True, backend="offline")
    assert course.settings.provider == "offline" and course.offline
