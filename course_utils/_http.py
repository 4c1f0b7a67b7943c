"""The HTTP library family of the installed ``openai`` SDK.

openai >= 3 is built on ``httpx2``; older releases on ``httpx``. The offline model's transport and
the clients we build must come from the same family, so it is detected here, not hard-coded.
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType


@functools.lru_cache(maxsize=1)
def http_module() -> ModuleType:
    """Return ``httpx2`` when the installed SDK uses it, else ``httpx``."""
    import openai._base_client as base

    for name in ("httpx2", "httpx"):
        if getattr(base, name, None) is not None:
            return importlib.import_module(name)
    return importlib.import_module("httpx")
