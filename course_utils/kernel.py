"""The Jupyter kernel that runs the course's notebooks: this very interpreter.

The runner, ``refresh`` and the grader all execute notebooks headless. A student's own ``python3``
kernelspec may point to another Python without the course's packages, so they use a kernelspec of
their own, written next to their outputs and put first on ``JUPYTER_PATH``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

KERNEL_NAME = "course-python"


def install_kernel(build: Path) -> None:
    """A kernelspec that runs this very interpreter, put first on ``JUPYTER_PATH``.

    A student's own ``python3`` kernelspec may point to another Python without the course's
    packages; naming our own kernel avoids that.
    """
    spec_dir = build / "jupyter" / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                 "--IPKernelApp.log_level=ERROR"],
        "display_name": "Python (cours agents)",
        "language": "python",
    }
    staging = spec_dir / f"kernel.json.{os.getpid()}.{threading.get_ident()}"
    staging.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    os.replace(staging, spec_dir / "kernel.json")  # atomic: parallel graders may share it
    jupyter_dir = str(build / "jupyter")
    paths = os.environ.get("JUPYTER_PATH", "")
    if jupyter_dir not in paths.split(os.pathsep):
        os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (jupyter_dir, paths) if p)
