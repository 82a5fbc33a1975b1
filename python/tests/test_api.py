"""The Python API against the binary it runs (the installed wheel's, or SERVESCOPE_BINARY):
the founding case through every function, errors as ServescopeError, options as the command
line spells them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import servescope

FOUNDING = dict(gpu="rtx-pro-6000", gpus=4, free_before_load=94.6, free_after_load=64.6)
MTP = (
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
    "--speculative-algorithm NEXTN"
)
BOTH = MTP + " --enable-fused-moe-sum-all-reduce --enable-flashinfer-allreduce-fusion"


def test_plan_gives_the_founding_case_figures():
    r = servescope.plan(MTP, **FOUNDING)
    assert r.exit_status == 0
    assert r.outputs["max_running_requests"] == 48
    assert r["engine"]["name"] == "sglang"
    assert repr(r).startswith("<servescope.plan ")
    assert "max_running_requests=48" in repr(r) and "cuda_graph_bs=<23 items>" in repr(r)
    # An argv list is the same command.
    assert servescope.plan(MTP.split(), **FOUNDING).outputs == r.outputs


def test_explain_lint_diff_why():
    tree = servescope.explain("max_running_requests", MTP, depth=2, **FOUNDING)
    assert tree["max_running_requests"][0]["id"] == "max_running_requests"
    findings = servescope.lint(BOTH, **FOUNDING)
    assert findings.exit_status in (0, 1)  # 1: an error-level finding, by design
    assert isinstance(findings.data, (dict, list))
    d = servescope.diff(MTP, BOTH, **FOUNDING)
    assert d.exit_status == 0 and isinstance(d.data, dict)
    hypotheses = servescope.why("max_running_requests=26", MTP, **FOUNDING)
    assert hypotheses.exit_status in (0, 1) and isinstance(hypotheses.data, dict)


def test_check_and_logs_read_a_log(tmp_path: Path):
    log = tmp_path / "server.log"
    log.write_text(
        "[2025-01-23 19:34:55] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1, "
        "mem_fraction_static=0.88)\n"
        "[2025-01-23 19:35:40] Load weight begin. avail mem=78.52 GB\n"
    )
    facts = servescope.logs(str(log))
    assert isinstance(facts.data, dict)
    checked = servescope.check(str(log), gpu="h100-sxm")
    assert checked.exit_status in (0, 1) and isinstance(checked.data, dict)


def test_fit_answers_a_target():
    r = servescope.fit("vllm serve Qwen/Qwen3-8B", gpu="h100-sxm", concurrency=8, context=8192)
    assert r.exit_status == 0
    assert isinstance(r.data, dict)


def test_bad_input_raises_with_the_one_line_message_and_status_2():
    with pytest.raises(servescope.ServescopeError) as e:
        servescope.plan(MTP, gpu="h999")
    assert e.value.status == 2
    assert "closest catalog keys" in e.value.message
    assert not e.value.message.startswith("servescope:")
    assert "\n" not in e.value.message


def test_options_spell_as_on_the_command_line():
    r = servescope.plan(
        "vllm serve Qwen/Qwen3-8B", gpu="h100-sxm", env={"VLLM_USE_V1": "1"}, engine="vllm@0.34.0"
    )
    assert "--env" in r.argv and "VLLM_USE_V1=1" in r.argv
    assert r.argv[-4:] == ["--", "vllm", "serve", "Qwen/Qwen3-8B"]
    assert r["engine"]["release"] == "0.34.0"


def test_to_html_is_the_self_contained_report():
    html = servescope.plan(MTP, **FOUNDING).to_html()
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "max_running_requests" in html


def test_version_info_names_the_engine_releases():
    v = servescope.version_info()
    assert v["version"] == servescope.__version__
    assert set(v["engines"]) == {"sglang", "vllm"}


def test_python_dash_m_is_the_binary():
    out = subprocess.run(
        [sys.executable, "-m", "servescope", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.startswith("servescope " + servescope.__version__)
    bad = subprocess.run([sys.executable, "-m", "servescope", "plan"], capture_output=True, text=True)
    assert bad.returncode == 2
