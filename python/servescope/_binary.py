"""Where the servescope binary is: the one this package was installed with."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

_NAME = "servescope.exe" if sys.platform == "win32" else "servescope"


def find_binary() -> str:
    """The servescope binary: $SERVESCOPE_BINARY, else the one pip installed beside this package
    (the interpreter's scripts folder, the user scheme's, or the folder above the package for
    `pip install --target`), else the first on PATH."""
    override = os.environ.get("SERVESCOPE_BINARY")
    if override:
        if not os.access(override, os.X_OK):
            raise FileNotFoundError(f"SERVESCOPE_BINARY={override} is not an executable file")
        return override
    candidates = [Path(sysconfig.get_path("scripts")) / _NAME]
    user_scheme = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") else None
    if user_scheme:
        candidates.append(Path(sysconfig.get_path("scripts", user_scheme)) / _NAME)
    candidates.append(Path(__file__).resolve().parent.parent / "bin" / _NAME)
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    found = shutil.which(_NAME)
    if found:
        return found
    raise FileNotFoundError(
        "the servescope binary was not found beside this package or on PATH; reinstall the "
        "wheel (pip install servescope-*.whl) or set SERVESCOPE_BINARY"
    )
