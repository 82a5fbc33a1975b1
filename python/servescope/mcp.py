"""servescope as a Model Context Protocol server for coding agents, over stdio:

    python -m servescope.mcp        (pip install 'servescope[mcp]': the official mcp SDK)

Tools: plan, explain, lint, diff, why, check, logs and fit, each taking what the command line
takes and returning its --json result; resources: the GPU catalog, the bundled models and the
version. Bad input comes back as a tool error carrying servescope's one-line message."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from typing import Any, Dict, List, Optional

try:
    from mcp.server import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
except ImportError:  # the optional dependency
    print("servescope: error: servescope.mcp needs the mcp package: pip install "
          "'servescope[mcp]'", file=sys.stderr)
    sys.exit(2)

from . import __version__, _api
from ._binary import find_binary

server = MCPServer(
    "servescope",
    instructions=(
        "servescope predicts and explains how an SGLang or vLLM server splits GPU memory at "
        "startup (weights, KV cache, mamba state, CUDA graphs) and so how many tokens it caches "
        "and how many requests it runs at once, from the launch command, the GPU and the engine "
        "release, each figure with the engine rule behind it. Start with plan; when a figure "
        "surprises, use explain (its derivation), diff (which flag change moved it) or why (which "
        "changes reproduce an observed value); with a real startup log, use check; to choose "
        "GPUs and flags for a target, use fit. Launch commands are given as one string, as "
        "typed in a shell."
    ),
    version=__version__,
)

Env = Optional[Dict[str, str]]


def _reported(fn):
    """Bad input reaches the agent as a tool error with servescope's own one-line message (the
    SDK hides the text of any other exception)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _api.ServescopeError as e:
            raise ToolError(f"servescope: {e.message} (exit status {e.status})") from e

    return wrapper


def _result(r: _api.Result) -> Dict[str, Any]:
    data = r.data if isinstance(r.data, dict) else {"result": r.data}
    if r.exit_status != 0:
        data = {**data, "exit_status": r.exit_status}
    return data


def _scenario(gpu, gpus, model, engine, env) -> Dict[str, Any]:
    return dict(gpu=gpu, gpus=gpus, model=model, engine=engine, env=env)


@server.tool(
    description=(
        "Predict every capacity figure an SGLang or vLLM server decides at startup for a launch "
        "command on a GPU: KV cache tokens, max running requests, context length, CUDA-graph "
        "batch sizes, the memory split, whether it starts at all — each with the engine rule it "
        "comes from. Use it first, for 'how many requests or tokens will this server hold'. "
        "command: e.g. 'vllm serve Qwen/Qwen3-8B --max-model-len 32768'; gpu: a catalog key "
        "(h100-sxm, a100-80gb, rtx-pro-6000, ... see the servescope://gpus resource) or the "
        "name nvidia-smi prints; engine: NAME@VERSION to plan another release."
    )
)
@_reported
def plan(
    command: str,
    gpu: str,
    gpus: Optional[int] = None,
    model: Optional[str] = None,
    engine: Optional[str] = None,
    env: Env = None,
) -> Dict[str, Any]:
    return _result(_api.plan(command, **_scenario(gpu, gpus, model, engine, env)))


@server.tool(
    description=(
        "The derivation tree of one or more outputs of plan (max_running_requests, "
        "max_total_num_tokens, gpu_kv_cache_size_tokens, ...) down to the inputs and defaults "
        "they come from. Use it when asked why a figure has its value."
    )
)
@_reported
def explain(
    outputs: List[str],
    command: str,
    gpu: str,
    depth: Optional[int] = None,
    gpus: Optional[int] = None,
    model: Optional[str] = None,
    engine: Optional[str] = None,
    env: Env = None,
) -> Dict[str, Any]:
    return _result(
        _api.explain(outputs, command, depth=depth, **_scenario(gpu, gpus, model, engine, env))
    )


@server.tool(
    description=(
        "Criticise a launch command for a GPU and release: flags the GPU or release lacks, flags "
        "that do nothing, defaults they override, contradictions. Use it before restarting a "
        "server with new flags. exit_status 1 in the result means an error-level finding."
    )
)
@_reported
def lint(
    command: str,
    gpu: str,
    gpus: Optional[int] = None,
    model: Optional[str] = None,
    engine: Optional[str] = None,
    env: Env = None,
) -> Dict[str, Any]:
    return _result(_api.lint(command, **_scenario(gpu, gpus, model, engine, env)))


@server.tool(
    description=(
        "Attribute every capacity figure that differs between two launch commands (a and b) to "
        "the flag changes that cause it. Use it when a change of flags moved a figure, e.g. "
        "max_running_requests fell from 48 to 26 after two flags were added: it says which flag "
        "did it, or that none of them sizes any memory pool."
    )
)
@_reported
def diff(
    a: str,
    b: str,
    gpu: str,
    gpus: Optional[int] = None,
    model: Optional[str] = None,
    engine: Optional[str] = None,
    env: Env = None,
) -> Dict[str, Any]:
    return _result(_api.diff(a, b, **_scenario(gpu, gpus, model, engine, env)))


@server.tool(
    description=(
        "Given a value a server showed (observation 'max_running_requests=26') for a launch "
        "command, search the plausible changes (flags, releases, GPU memory, environment) that "
        "reproduce it and the experiments that tell them apart. Use it when a server shows a "
        "number nobody expected; then confirm on real servers with the command line's "
        "`servescope bisect`."
    )
)
@_reported
def why(
    observation: str,
    command: str,
    gpu: str,
    expected: Optional[str] = None,
    gpus: Optional[int] = None,
    model: Optional[str] = None,
    engine: Optional[str] = None,
    env: Env = None,
) -> Dict[str, Any]:
    return _result(
        _api.why(observation, command, expected=expected,
                 **_scenario(gpu, gpus, model, engine, env))
    )


@server.tool(
    description=(
        "Hold every capacity figure a real server startup log states (SGLang or vLLM) against "
        "the prediction for the scenario the log came from, and say for each unchecked figure "
        "what input would check it. Use it when the user has a log: log is a path on this "
        "machine; command (optional) is the launch command beside the log."
    )
)
@_reported
def check(
    log: str,
    command: Optional[str] = None,
    gpu: Optional[str] = None,
    model: Optional[str] = None,
    engine: Optional[str] = None,
    env: Env = None,
) -> Dict[str, Any]:
    return _result(_api.check(log, launch=command, gpu=gpu, model=model, engine=engine, env=env))


@server.tool(
    description=(
        "Read a server log (a path): its startup capacity facts, the engine release it implies, "
        "and the batch-line timeline (running and queued requests, KV usage over time). Use it "
        "to see what a log says before checking it."
    )
)
@_reported
def logs(log: str) -> Dict[str, Any]:
    return _result(_api.logs(log))


@server.tool(
    description=(
        "From a target to the configurations that meet it — GPU kind and count, parallelism, "
        "flags — each planned with the engine's rules and given with its launch command. "
        "Targets: concurrency (requests resident at once) with context (tokens each, or "
        "'max'), kv_tokens, max_running_requests, or latency (rate with ttft_p99/tpot_p99). "
        "command: the user's launch command to start from; gpu: kinds to try, comma-separated "
        "(default every catalog GPU). Use it for 'which configuration meets my target'."
    )
)
@_reported
def fit(
    command: str,
    gpu: Optional[str] = None,
    concurrency: Optional[int] = None,
    context: Optional[str] = None,
    kv_tokens: Optional[int] = None,
    max_running_requests: Optional[int] = None,
    max_gpus: Optional[int] = None,
    rate: Optional[float] = None,
    ttft_p99: Optional[str] = None,
    tpot_p99: Optional[str] = None,
    engine: Optional[str] = None,
    limit: Optional[int] = None,
) -> Dict[str, Any]:
    return _result(
        _api.fit(command, gpu=gpu, concurrency=concurrency, context=context, kv_tokens=kv_tokens,
                 max_running_requests=max_running_requests, max_gpus=max_gpus, rate=rate,
                 ttft_p99=ttft_p99, tpot_p99=tpot_p99, engine=engine, limit=limit)
    )


def _text(*argv: str) -> str:
    return subprocess.run([find_binary(), *argv], capture_output=True, text=True, check=True).stdout


@server.resource("servescope://gpus", mime_type="text/plain",
                 description="The GPU catalog: keys, memory, architecture (servescope gpus)")
def gpus_resource() -> str:
    return _text("gpus")


@server.resource("servescope://models", mime_type="text/plain",
                 description="The model configs bundled with servescope (servescope models)")
def models_resource() -> str:
    return _text("models")


@server.resource("servescope://version", mime_type="application/json",
                 description="The version, commit and newest engine releases the rules reach")
def version_resource() -> str:
    return json.dumps(_api.version_info())


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
