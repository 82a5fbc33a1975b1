"""Every --json output against its published schema (schema/COMMAND.schema.json): the runs the
schemas were made from, more runs than those (other engines, models and logs), a schema that is
current with what the binary prints, and broken fields that must fail."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import jsonschema
import pytest

import servescope

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "wheel"))
import schema_runs  # noqa: E402

BINARY = servescope.find_binary()


def schema(command: str) -> dict:
    return json.loads((ROOT / "schema" / f"{command}.schema.json").read_text())


def validate(command: str, output: object) -> None:
    s = schema(command)
    jsonschema.Draft202012Validator.check_schema(s)
    jsonschema.Draft202012Validator(s).validate(output)


@pytest.fixture(scope="module")
def outputs() -> dict:
    return schema_runs.outputs(BINARY)


def test_every_command_with_json_has_a_schema(outputs):
    assert set(outputs) == {p.name.split(".")[0] for p in (ROOT / "schema").glob("*.schema.json")}
    help_text = schema_runs.run_text(BINARY, ["--help"])
    commands = [l.split()[0] for l in help_text.splitlines() if l.startswith("  ") and l.split()]
    with_json = [c for c in commands if "--json" in schema_runs.run_text(BINARY, [c, "--help"])]
    # report renders a --json result; it has no output of its own to describe.
    assert set(with_json) - {"report"} <= set(outputs), set(with_json) - set(outputs)


def test_the_runs_validate(outputs):
    for command, runs in outputs.items():
        for output in runs:
            validate(command, output)


def test_the_schemas_are_current(outputs):
    """A schema made again from today's outputs is the committed one: a field added, renamed or
    removed needs `make schemas` (and, removed or renamed, a version bump in CHANGELOG.md)."""
    import make_schemas

    for command, runs in outputs.items():
        made = make_schemas.schema_of(command, runs, schema(command)["x-servescope-schema-version"])
        assert made == schema(command), f"schema/{command}.schema.json is stale: run make schemas"


MORE_PLANS = [
    ["--gpu", "h200", "--", "vllm", "serve", "deepseek-ai/DeepSeek-V3", "-tp", "8"],
    ["--gpu", "a100-80gb", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
     "--kv-cache-dtype", "fp8"],
    ["--gpu", "h100-sxm", "--gpus", "8", "--", "python", "-m", "sglang.launch_server",
     "--model-path", "deepseek-ai/DeepSeek-V3", "--tp", "8"],
    ["--gpu", "rtx-pro-6000", "--", "python", "-m", "sglang.launch_server", "--model-path",
     "Qwen/Qwen3-30B-A3B", "--enable-dp-attention", "--dp", "1"],
]


@pytest.mark.parametrize("argv", MORE_PLANS, ids=lambda a: " ".join(a[:2] + a[-3:]))
def test_more_plans_validate(argv):
    sep = argv.index("--")
    status, out = schema_runs.run(BINARY, ["plan", *argv[:sep], "--json", *argv[sep:]])
    validate("plan", out)


def _logs():
    return sorted((ROOT / "tests" / "real" / "logs").glob("*.log")) + sorted(
        (ROOT / "tests" / "gb10" / "logs").glob("*.log"))


@pytest.mark.parametrize("log", _logs(), ids=lambda p: p.name)
def test_every_log_the_repository_carries_validates(log):
    validate("logs", schema_runs.run(BINARY, ["logs", str(log), "--json"])[1])


@pytest.mark.parametrize("log", sorted((ROOT / "tests" / "real" / "logs").glob("*.log")),
                         ids=lambda p: p.name)
def test_checks_of_the_real_engine_logs_validate(log):
    model = "hybrid-bf16-hd128" if "hybrid" in log.name else (
        "llama-f32-hd32" if "f32hd32" in log.name else "llama-bf16-hd80")
    config = ROOT / "tests" / "real" / "models" / model / "config.json"
    validate("check", schema_runs.run(BINARY, ["check", str(log), "--model", str(config),
                                                "--json"])[1])


def test_a_broken_field_fails(outputs):
    plan = outputs["plan"][0]
    renamed = copy.deepcopy(plan)
    renamed["output"] = renamed.pop("outputs")
    with pytest.raises(jsonschema.ValidationError):
        validate("plan", renamed)
    retyped = copy.deepcopy(plan)
    retyped["outputs"]["max_running_requests"] = "48"
    with pytest.raises(jsonschema.ValidationError):
        validate("plan", retyped)
    bench = copy.deepcopy(outputs["bench"][0])
    del bench["points"][0]["ttft_ms"]
    with pytest.raises(jsonschema.ValidationError):
        validate("bench", bench)
