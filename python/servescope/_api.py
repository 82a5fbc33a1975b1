"""The commands as functions: each runs the bundled binary with --json and returns a Result.

Inputs are those of the command line: the launch command as a string or an argv list, options
as keywords (``gpu="h100-sxm"`` is ``--gpu h100-sxm``, ``calibrate_from=...`` is
``--calibrate-from ...``, ``True`` a bare flag, a list or tuple the option once per item,
``env={"K": "V"}`` one ``--env K=V`` each). Bad input raises ServescopeError with the binary's
one-line message and exit status 2; a run whose verdict is negative (exit 1: a figure that
disagrees, a target no configuration meets) returns its Result with ``exit_status == 1``.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from typing import TYPE_CHECKING, Any, Generic, Iterable, Mapping, Sequence, TypeVar, Union

from ._binary import find_binary

if TYPE_CHECKING:  # servescope.types needs Python 3.11 at run time; type checkers read it always
    from .types import (
        CheckOutput,
        DiffOutput,
        ExplainOutput,
        FitOutput,
        LintOutput,
        LogsOutput,
        PlanOutput,
        WhyOutput,
    )

Launch = Union[str, Sequence[str], None]
T = TypeVar("T")


class ServescopeError(Exception):
    """A run that servescope refused or could not do: its one-line message and exit status."""

    def __init__(self, message: str, status: int, argv: Sequence[str]):
        super().__init__(message)
        self.message = message
        self.status = status
        self.argv = list(argv)


# The figures a reader looks for first, in this order, where a result has them.
_HEADLINE = (
    "max_running_requests",
    "max_num_seqs",
    "max_total_num_tokens",
    "gpu_kv_cache_size_tokens",
    "context_len",
    "max_model_len",
)


class Result(Generic[T]):
    """One command's --json output: ``.data`` (the parsed JSON, typed for a type checker as the
    command's schema says: ``Result[PlanOutput]``, servescope.types), item and attribute access
    to its fields, ``exit_status``, and ``to_html()`` (the same self-contained report as --html)."""

    data: T

    def __init__(self, command: str, argv: Sequence[str], data: T, exit_status: int):
        self.command = command
        self.argv = list(argv)
        self.data = data
        self.exit_status = exit_status

    def __getitem__(self, key: Any) -> Any:
        return self.data[key]

    def __getattr__(self, name: str) -> Any:
        data = self.__dict__.get("data")
        if isinstance(data, dict) and name in data:
            return data[name]
        raise AttributeError(f"{self.command} result has no field {name!r}")

    def __contains__(self, key: Any) -> bool:
        return key in self.data

    def keys(self) -> Iterable[str]:
        return self.data.keys() if isinstance(self.data, dict) else []

    def __repr__(self) -> str:
        # The figures first where the result has them (plan's "outputs"), else its own fields.
        data = self.data
        if isinstance(data, dict) and isinstance(data.get("outputs"), dict):
            data = data["outputs"]
        fields = []
        if isinstance(data, dict):
            first = [k for k in _HEADLINE if k in data]
            for key, value in [(k, data[k]) for k in first] + [
                (k, v) for k, v in data.items() if k not in first
            ]:
                if len(fields) == 8:
                    fields.append("...")
                    break
                if isinstance(value, str) and len(value) > 40:
                    value = value[:37] + "..."
                if isinstance(value, (list, dict)):
                    fields.append(f"{key}=<{len(value)} {'items' if isinstance(value, list) else 'fields'}>")
                else:
                    fields.append(f"{key}={value!r}")
        elif isinstance(data, list):
            fields.append(f"<{len(data)} items>")
        status = "" if self.exit_status == 0 else f" exit_status={self.exit_status}"
        return f"<servescope.{self.command}{status} {' '.join(fields)}>"

    def to_html(self) -> str:
        """The self-contained HTML report of the same run (the command with --html -)."""
        argv = [a for a in self.argv if a != "--json"]
        # --html goes before the launch command's separator.
        split = argv.index("--") if "--" in argv else len(argv)
        proc = _run_binary(argv[:split] + ["--html", "-"] + argv[split:])
        return proc.stdout

    def _repr_html_(self) -> str:  # notebooks
        return self.to_html()


def _options(options: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif key == "env" and isinstance(value, Mapping):
            for k, v in value.items():
                out += ["--env", f"{k}={v}"]
        elif isinstance(value, (list, tuple)):
            for item in value:
                out += [flag, str(item)]
        else:
            out += [flag, str(value)]
    return out


def _launch(launch: Launch) -> list[str]:
    if launch is None:
        return []
    words = shlex.split(launch) if isinstance(launch, str) else [str(w) for w in launch]
    return ["--", *words] if words else []


def _run_binary(argv: Sequence[str]) -> subprocess.CompletedProcess:
    binary = find_binary()
    proc = subprocess.run([binary, *argv], capture_output=True, text=True)
    if proc.returncode >= 2:
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        message = lines[-1] if lines else f"servescope exited {proc.returncode}"
        for prefix in ("servescope: error: ", "servescope: "):
            if message.startswith(prefix):
                message = message[len(prefix):]
                break
        raise ServescopeError(message, proc.returncode, argv)
    return proc


def run(command: str, *arguments: str, launch: Launch = None, **options: Any) -> Result[Any]:
    """Runs ``servescope COMMAND ARGUMENTS... --json OPTIONS... [-- LAUNCH]``."""
    argv = [command, *map(str, arguments), *_options(options), "--json", *_launch(launch)]
    proc = _run_binary(argv)
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError as e:
        raise ServescopeError(
            f"servescope {command} --json printed no JSON ({e.msg} at {e.pos})", 3, argv
        ) from e
    return Result(command, argv, data, proc.returncode)


def plan(launch: Launch, **options: Any) -> Result[PlanOutput]:
    """Every capacity figure the engine derives at startup, with the rule behind each."""
    return run("plan", launch=launch, **options)


def explain(
    outputs: Union[str, Sequence[str]], launch: Launch, **options: Any
) -> Result[ExplainOutput]:
    """The derivation tree of one or more outputs (``"max_running_requests"``) down to inputs."""
    names = [outputs] if isinstance(outputs, str) else list(outputs)
    return run("explain", *names, launch=launch, **options)


def lint(launch: Launch, **options: Any) -> Result[LintOutput]:
    """Flags the GPU or release lacks, no-ops, overrides and contradictions in a command."""
    return run("lint", launch=launch, **options)


def diff(
    a: Union[str, Sequence[str]], b: Union[str, Sequence[str]], **options: Any
) -> Result[DiffOutput]:
    """Every output that differs between two launch commands, attributed to the changes that
    cause it."""
    as_text = lambda c: c if isinstance(c, str) else shlex.join(c)  # noqa: E731
    return run("diff", a=as_text(a), b=as_text(b), **options)


def why(observation: str, launch: Launch, **options: Any) -> Result[WhyOutput]:
    """Which plausible changes reproduce an observed value (``"max_running_requests=26"``)."""
    return run("why", observation, launch=launch, **options)


def check(*logs: str, launch: Launch = None, **options: Any) -> Result[CheckOutput]:
    """Every capacity figure a server log states, held against the prediction. Typed for one log;
    several logs or a folder give the totals table (``logs``, ``total``, ``would_check``)."""
    return run("check", *logs, launch=launch, **options)


def logs(log: str, **options: Any) -> Result[LogsOutput]:
    """A server log's startup capacity facts, inferred engine release and batch timeline."""
    return run("logs", log, **options)


def fit(launch: Launch = None, **options: Any) -> Result[FitOutput]:
    """From a target (``concurrency=``, ``context=``, ``ttft_p99=``...) to the configurations
    that meet it, each with its launch command."""
    return run("fit", launch=launch, **options)


def version_info() -> dict:
    """The binary's version, commit and the newest engine releases its rules reach."""
    return json.loads(_run_binary(["--version", "--json"]).stdout)
