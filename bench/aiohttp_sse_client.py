#!/usr/bin/python3
"""The Python peers' hot loop, as a baseline: asyncio + aiohttp, N concurrent streaming
completions, each event's JSON parsed (as sglang.bench_serving and vllm bench serve do).
Prints one JSON line: streams, completed, events, wall seconds, events/s, client CPU seconds.

usage: aiohttp_sse_client.py URL STREAMS MAX_TOKENS
"""
import asyncio
import json
import resource
import sys
import time

import aiohttp


async def one(session, url, body, counts):
    async with session.post(url, json=body) as resp:
        if resp.status != 200:
            await resp.read()
            return
        async for line in resp.content:
            if not line.startswith(b"data: "):
                continue
            payload = line[6:].strip()
            counts["events"] += 1
            if payload == b"[DONE]":
                counts["completed"] += 1
                break
            json.loads(payload)


async def main():
    url, streams, tokens = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    body = {"prompt": " the" * 64, "max_tokens": tokens, "temperature": 0, "ignore_eos": True,
            "stream": True,
            "stream_options": {"include_usage": True, "continuous_usage_stats": True}}
    counts = {"events": 0, "completed": 0}
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=600)
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(one(session, url, body, counts) for _ in range(streams)),
                             return_exceptions=True)
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    print(json.dumps({"streams": streams, "completed": counts["completed"],
                      "events": counts["events"], "wall_s": wall,
                      "events_per_s": counts["events"] / wall if wall > 0 else 0,
                      "client_cpu_s": cpu}))


asyncio.run(main())
