"""Test-suite defaults: offline, no personal .env, a fixed seed."""

from __future__ import annotations

import os

# A developer's own .env (with a real key) must not change what the tests see.
os.environ["COURSE_ENV_FILE"] = "none"
os.environ["COURSE_BACKEND"] = "offline"
os.environ.setdefault("COURSE_SEED", "0")
for _var in ("OPENAI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_BASE_URL", "BATCH_MODE"):
    os.environ.pop(_var, None)
