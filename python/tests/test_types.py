"""The typed results: servescope.types is made from schema/ (each module's digest is its
schema's), and a type checker (mypy, pinned) takes a result's fields as the schema has them and
rejects a field the schema lacks."""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

import pytest
from mypy import api as mypy

ROOT = Path(__file__).resolve().parents[2]

USES_FIELDS_THE_SCHEMA_HAS = """
import servescope
r = servescope.plan("vllm serve Qwen/Qwen3-8B", gpu="h100-sxm")
engine: str = r.data["engine"]["name"]
for c in servescope.check("server.log").data["comparisons"]:
    within: bool | None = c["estimated"]["within"] if c["estimated"] else None
"""

USES_A_FIELD_THE_SCHEMA_LACKS = """
import servescope
r = servescope.plan("vllm serve Qwen/Qwen3-8B", gpu="h100-sxm")
print(r.data["no_such_field"])
"""


@pytest.mark.parametrize("schema", sorted((ROOT / "schema").glob("*.schema.json")), ids=lambda p: p.name)
def test_each_types_module_is_made_from_its_schema(schema: Path):
    module = importlib.import_module("servescope.types." + schema.name.removesuffix(".schema.json"))
    assert module.SCHEMA_SHA256 == hashlib.sha256(schema.read_bytes()).hexdigest(), (
        f"servescope/types is older than schema/{schema.name}: run make schemas"
    )


def check_types(tmp_path: Path, code: str) -> tuple[str, int]:
    source = tmp_path / "use.py"
    source.write_text(code)
    out, err, status = mypy.run(["--no-incremental", "--strict-optional", str(source)])
    return out + err, status


def test_a_checker_takes_the_fields_the_schema_has(tmp_path: Path):
    report, status = check_types(tmp_path, USES_FIELDS_THE_SCHEMA_HAS)
    assert status == 0, report


def test_a_checker_rejects_a_field_the_schema_lacks(tmp_path: Path):
    report, status = check_types(tmp_path, USES_A_FIELD_THE_SCHEMA_LACKS)
    assert status == 1, report
    assert '"PlanOutput" has no key "no_such_field"' in report, report
