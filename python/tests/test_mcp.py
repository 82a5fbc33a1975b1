"""The MCP server with the official SDK's own client: started over stdio as a user's agent
starts it, its tools and resources listed, every tool called once on the founding case, and bad
input coming back as a tool error with servescope's message."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[2]
MTP = (
    "python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 "
    "--speculative-algorithm NEXTN"
)
FOUNDING = {"gpu": "rtx-pro-6000", "gpus": 4}
LOG = str(ROOT / "tests" / "real" / "logs" / "kv2-len2048-bs64-seqs16-f32hd32.log")
MODEL = str(ROOT / "tests" / "real" / "models" / "llama-f32-hd32" / "config.json")

CALLS = {
    "plan": {"command": MTP, **FOUNDING},
    "explain": {"outputs": ["max_running_requests"], "command": MTP, "depth": 2, **FOUNDING},
    "lint": {"command": MTP + " --enable-flashinfer-allreduce-fusion", **FOUNDING},
    "diff": {"a": MTP, "b": MTP + " --enable-flashinfer-allreduce-fusion", **FOUNDING},
    "why": {"observation": "max_running_requests=26", "command": MTP, **FOUNDING},
    "check": {"log": LOG, "model": MODEL},
    "logs": {"log": LOG},
    "fit": {"command": "vllm serve Qwen/Qwen3-8B", "gpu": "h100-sxm", "concurrency": 8,
            "context": "8192"},
}


def server() -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "SERVESCOPE_BINARY", "PYTHONPATH")}
    env["HF_HUB_OFFLINE"] = "1"
    return StdioServerParameters(command=sys.executable, args=["-m", "servescope.mcp"], env=env,
                                 cwd=str(ROOT))


async def session_checks() -> None:
    async with Client(server()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == set(CALLS), set(tools)
        for name, tool in tools.items():
            assert tool.description and len(tool.description) > 80, name
            assert tool.input_schema["type"] == "object", name
        assert "bisect" in tools["why"].description
        assert set(tools["plan"].input_schema["required"]) == {"command", "gpu"}

        for name, arguments in CALLS.items():
            result = await client.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)
            assert isinstance(result.structured_content, dict), name
        planned = await client.call_tool("plan", CALLS["plan"])
        # The SDK carries a dict result as {"result": ...}; the text content is the same JSON.
        assert planned.structured_content["result"]["outputs"]["max_running_requests"] == 48

        bad = await client.call_tool("plan", {"command": MTP, "gpu": "h999"})
        assert bad.is_error
        assert "closest catalog keys" in bad.content[0].text, bad.content

        uris = {str(r.uri) for r in (await client.list_resources()).resources}
        assert {"servescope://gpus", "servescope://models", "servescope://version"} <= uris
        gpus = await client.read_resource("servescope://gpus")
        assert "h100-sxm" in gpus.contents[0].text


def test_the_mcp_server_through_the_sdk_client():
    asyncio.run(asyncio.wait_for(session_checks(), timeout=120))
