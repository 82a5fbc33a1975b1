-- wrk script: non-streaming completions against the twin (bench/twin-wrk.sh).
wrk.method = "POST"
wrk.body = '{"prompt": "Benchmark the twin server now", "max_tokens": 16, "ignore_eos": true}'
wrk.headers["Content-Type"] = "application/json"
