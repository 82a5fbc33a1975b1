"""servescope: explain, predict and isolate the serving capacity of SGLang and vLLM servers.

The functions run the servescope binary installed with this package (``--json``) and return
its results; see ``help(servescope.plan)``. The command line is the same binary:
``servescope plan --gpu h100-sxm -- vllm serve Qwen/Qwen3-8B``.
"""

from ._api import (
    Result,
    ServescopeError,
    check,
    diff,
    explain,
    fit,
    lint,
    logs,
    plan,
    run,
    version_info,
    why,
)
from ._binary import find_binary

__version__ = "0.1.0"

__all__ = [
    "Result",
    "ServescopeError",
    "check",
    "diff",
    "explain",
    "find_binary",
    "fit",
    "lint",
    "logs",
    "plan",
    "run",
    "version_info",
    "why",
    "__version__",
]
