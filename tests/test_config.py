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
