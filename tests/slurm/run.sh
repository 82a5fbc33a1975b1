#!/bin/bash
# usage: tests/slurm/run.sh SERVESCOPE
# `servescope bisect --launcher slurm` on a real single-node Slurm cluster this script starts
# (tests/slurm/cluster.sh: slurmctld, slurmd, munged on this host, four GRES GPUs) with the twin
# as the engine. Every experiment is a job; servers listen on 127.0.0.1; each step is bounded by
# `timeout`; the trap stops every daemon started here.
#  1. Eight flags, one culprit (--max-mamba-cache-size 100): one-at-a-time with --parallel 4
#     names it in fewer wall-clock rounds than --parallel 1, and the journal holds job ids.
#  2. `scancel` of a running experiment: the bisection stops and reports it as cancelled.
#  3. servescope killed (SIGKILL) while a job runs, then --resume: it re-attaches to that job
#     (same job id, no new submission) and relaunches nothing that finished.
#  4. A job held in the queue (--sbatch --begin=now+1hour) past --queue-timeout 5s is reported
#     and cancelled, not waited on.
#  5. Inside an allocation (salloc --no-shell): each experiment is an srun step of that job.
#  6. bench --slurm: the load generator runs as a Slurm job on the node named, and says so.
set -uo pipefail
SS=$(readlink -f "${1:?usage: run.sh SERVESCOPE}")
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/servescope-slurm.XXXXXX)
CLUSTER=$WORK/cluster
cleanup() {
  [ -n "${BP:-}" ] && kill -KILL $(pgrep -P "$BP") "$BP" 2>/dev/null
  if [ -f "$CLUSTER/slurm.conf" ]; then
    SLURM_CONF=$CLUSTER/slurm.conf scancel --user=root 2>/dev/null
    sleep 1
  fi
  "$HERE/cluster.sh" stop "$CLUSTER"
  pkill -KILL -f "$SS twin .*--served-model-name slurm-e2e" 2>/dev/null
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
"$HERE/cluster.sh" start "$CLUSTER" || { echo "slurm: the cluster did not start"; exit 1; }
export SLURM_CONF=$CLUSTER/slurm.conf
fail=0
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'r': r}))" "$@"; }

# The twin plays the founding command (SGLang, Qwen3.5-122B-A10B-FP8 on 4 × RTX PRO 6000, TP4,
# MTP); --max-mamba-cache-size 100 alone moves max_running_requests (48 → 20), the seven others
# do not (tests/lab/bisect_twin_e2e_test.cc shows it with `plan`).
twin() {
  echo "$SS twin --engine sglang@0.5.16 --gpu rtx-pro-6000 --gpus 4 --free-before-load 94.6 \
--free-after-load 64.6 --no-access-log --startup-seconds $1 \
-- python -m sglang.launch_server --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 \
--speculative-algorithm NEXTN --served-model-name slurm-e2e {flags} --host 127.0.0.1 --port {port}"
}
vary=(--vary "--kv-cache-dtype fp8_e4m3" --vary "--enable-fused-moe-sum-all-reduce"
  --vary "--schedule-policy lpm" --vary "--chunked-prefill-size 4096"
  --vary "--max-mamba-cache-size 100" --vary "--mamba-ssm-dtype bfloat16"
  --vary "--enable-metrics" --vary "--stream-interval 2")
common=(--launcher slurm --slurm-gpus 1 --ready "http://127.0.0.1:{port}/health"
  --metric max_running_requests --no-model --startup-timeout 60s --grace 5s --quiet)

# 1. parallel against sequential
for p in 4 1; do
  if ! timeout 600 "$SS" bisect --launch "$(twin 0.5)" "${vary[@]}" "${common[@]}" \
      --strategy one-at-a-time --parallel $p --out "$WORK/p$p" >"$WORK/p$p.txt" 2>&1; then
    echo "slurm: the bisection with --parallel $p failed:"; tail -20 "$WORK/p$p.txt"; exit 1
  fi
done
for p in 4 1; do
  echo "slurm: --parallel $p: culprits $(field "$WORK/p$p/report.json" "r['culprits']"), " \
    "$(field "$WORK/p$p/report.json" "r['launches']") launches in $(field "$WORK/p$p/report.json" "r['rounds']") rounds," \
    "$(field "$WORK/p$p/report.json" "round(r['wall_seconds'], 1)") s"
  [ "$(field "$WORK/p$p/report.json" "r['culprits']")" = "[['--max-mamba-cache-size 100']]" ] ||
    { echo "slurm: --parallel $p: wrong culprit"; fail=1; }
done
r4=$(field "$WORK/p4/report.json" "r['rounds']"); r1=$(field "$WORK/p1/report.json" "r['rounds']")
[ "$r4" -lt "$r1" ] || { echo "slurm: --parallel 4 took $r4 rounds, not fewer than $r1"; fail=1; }
jobs=$(field "$WORK/p4/report.json" "len({e['job_id'] for e in r['experiments'] if e['job_id']})")
n=$(field "$WORK/p4/report.json" "len(r['experiments'])")
[ "$jobs" = "$n" ] || { echo "slurm: $n experiments but $jobs distinct job ids"; fail=1; }
journal_jobs=$(python3 -c "
import json,sys
ids=[json.loads(l).get('job_id') for l in open(sys.argv[1]).read().splitlines()[1:] if 'outcome' in l]
print(sum(1 for i in ids if i))" "$WORK/p4/journal.jsonl")
[ "$journal_jobs" = "$n" ] || { echo "slurm: the journal holds $journal_jobs job ids for $n experiments"; fail=1; }
grep -q '"launched"' "$WORK/p4/journal.jsonl" || { echo "slurm: no launched lines in the journal"; fail=1; }
nodes=$(field "$WORK/p4/report.json" "sorted({e['node'] for e in r['experiments']})")
[ "$nodes" = "['$(hostname -s)']" ] || { echo "slurm: experiments ran on $nodes"; fail=1; }

# 2. scancel of a running experiment
timeout 300 "$SS" bisect --launch "$(twin 30)" "${vary[@]}" "${common[@]}" --strategy one-at-a-time \
  --out "$WORK/cancel" >"$WORK/cancel.txt" 2>&1 &
BP=$!
job=""
for _ in $(seq 300); do
  job=$(squeue -h -t RUNNING -o %i | head -1); [ -n "$job" ] && break; sleep 0.2
done
[ -n "$job" ] && scancel "$job"
wait "$BP"; BP=""
outcomes=$(field "$WORK/cancel/report.json" "[e['outcome'] for e in r['experiments']]")
error=$(field "$WORK/cancel/report.json" "r['error']")
echo "slurm: scancel $job: outcomes $outcomes; error: $error"
[[ "$outcomes" == *cancelled* ]] || { echo "slurm: the cancelled experiment is not reported as cancelled"; fail=1; }
[[ "$error" == *"cancelled outside servescope"* ]] || { echo "slurm: the report does not say it was cancelled"; fail=1; }
if grep -q "\"job_id\":\"$job\".*\"outcome\"" "$WORK/cancel/journal.jsonl"; then
  echo "slurm: the cancelled experiment was journaled as finished"; fail=1
fi
scancel --user=root 2>/dev/null; sleep 1

# 3. killed midway, then --resume re-attaches
timeout 300 "$SS" bisect --launch "$(twin 4)" "${vary[@]}" "${common[@]}" --strategy one-at-a-time \
  --parallel 2 --out "$WORK/resume" >"$WORK/first.txt" 2>&1 &
BP=$!
for _ in $(seq 600); do
  [ "$(cat "$WORK/resume/journal.jsonl" 2>/dev/null | grep -c '"outcome"')" -ge 2 ] &&
    [ -n "$(squeue -h -t RUNNING -o %i)" ] && break
  sleep 0.1
done
kill -KILL $(pgrep -P "$BP") "$BP" 2>/dev/null; wait "$BP" 2>/dev/null; BP=""
finished=$(grep -c '"outcome"' "$WORK/resume/journal.jsonl")
running=$(squeue -h -t RUNNING,PENDING -o %i | sort | tr '\n' ' ')
submitted=$(grep -c '"launched"' "$WORK/resume/journal.jsonl")
echo "slurm: killed with $finished finished, jobs still running: $running"
[ -n "$running" ] || { echo "slurm: no job was running when servescope was killed"; fail=1; }
if ! timeout 300 "$SS" bisect --launch "$(twin 4)" "${vary[@]}" "${common[@]}" --strategy one-at-a-time \
    --parallel 2 --out "$WORK/resume" --resume >"$WORK/second.txt" 2>&1; then
  echo "slurm: the resumed bisection failed:"; tail -20 "$WORK/second.txt"; fail=1
fi
reused=$(field "$WORK/resume/report.json" "r['reused']")
reattached=$(field "$WORK/resume/report.json" "sorted(e['job_id'] for e in r['experiments'] if e['reattached'])")
culprits=$(field "$WORK/resume/report.json" "r['culprits']")
echo "slurm: resumed: reused $reused, re-attached to jobs $reattached; culprits $culprits"
[ "$reused" -ge "$finished" ] || { echo "slurm: the resume relaunched a finished experiment"; fail=1; }
[ "$reattached" != "[]" ] || { echo "slurm: the resume re-attached to no job"; fail=1; }
for j in $running; do
  [[ "$reattached" == *"'$j'"* ]] || { echo "slurm: job $j was running but not re-attached"; fail=1; }
done
# No configuration was submitted twice: one launched line per experiment id.
dup=$(python3 -c "
import json,sys,collections
c=collections.Counter(json.loads(l)['launched']['id'] for l in open(sys.argv[1]) if '\"launched\"' in l)
print([i for i,n in c.items() if n>1])" "$WORK/resume/journal.jsonl")
[ "$dup" = "[]" ] || { echo "slurm: experiments submitted twice: $dup"; fail=1; }
[ "$culprits" = "[['--max-mamba-cache-size 100']]" ] || { echo "slurm: wrong culprit after resume"; fail=1; }

# 4. stuck in the queue
timeout 120 "$SS" bisect --launch "$(twin 0)" --vary "--enable-metrics" "${common[@]}" \
  --sbatch "--begin=now+1hour" --queue-timeout 5s --out "$WORK/queue" >"$WORK/queue.txt" 2>&1
rc=$?
error=$(field "$WORK/queue/report.json" "r['error']")
qjob=$(field "$WORK/queue/report.json" "r['experiments'][0]['job_id']")
state=$(scontrol show job -o "$qjob" | grep -o 'JobState=[A-Z]*')
echo "slurm: queue timeout: exit $rc; $error; job $qjob now $state"
[[ "$error" == *"--queue-timeout"* ]] || { echo "slurm: the queue timeout is not reported"; fail=1; }
[ "$state" = "JobState=CANCELLED" ] || { echo "slurm: the stuck job was not cancelled"; fail=1; }

# 5. experiments as steps of an allocation
salloc --no-shell -N1 -n1 --gres=gpu:4 >"$WORK/salloc.txt" 2>&1
alloc=$(squeue -h -t RUNNING -n no-shell -o %i | head -1)
if [ -z "$alloc" ]; then
  echo "slurm: salloc gave no allocation: $(cat "$WORK/salloc.txt")"; fail=1
else
  timeout 300 "$SS" bisect --launch "$(twin 0.5)" --vary "--enable-metrics" \
    --vary "--max-mamba-cache-size 100" "${common[@]}" --slurm-allocation "$alloc" \
    --out "$WORK/alloc" >"$WORK/alloc.txt" 2>&1
  culprits=$(field "$WORK/alloc/report.json" "r['culprits']")
  jobs=$(field "$WORK/alloc/report.json" "sorted({e['job_id'] for e in r['experiments']})")
  echo "slurm: in allocation $alloc: culprits $culprits; experiments ran in jobs $jobs"
  [ "$culprits" = "[['--max-mamba-cache-size 100']]" ] || { echo "slurm: wrong culprit in the allocation"; tail "$WORK/alloc.txt"; fail=1; }
  [ "$jobs" = "['$alloc']" ] || { echo "slurm: the experiments did not run in allocation $alloc"; fail=1; }
  scancel "$alloc"
fi

# 6. bench --slurm on a twin listening on 127.0.0.1 of this (the only) node
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$SS" twin --engine sglang@0.5.16 --gpu rtx-pro-6000 --gpus 4 --free-before-load 94.6 \
  --free-after-load 64.6 --no-access-log --speed inf -- python -m sglang.launch_server \
  --model-path Qwen/Qwen3.5-122B-A10B-FP8 --tp 4 --served-model-name slurm-e2e \
  --host 127.0.0.1 --port "$port" >"$WORK/twin.log" 2>&1 &
TP=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
timeout 120 "$SS" bench --slurm --slurm-node "$(hostname -s)" --url "http://127.0.0.1:$port" \
  --concurrency 2 --requests 8 --input-len 32 --output-len 8 --json "$WORK/bench.json" \
  >"$WORK/bench.txt" 2>&1
rc=$?
kill "$TP"; wait "$TP" 2>/dev/null
where=$(field "$WORK/bench.json" "(r['client']['slurm_node'], bool(r['client']['slurm_job_id']), r['points'][0]['requests_completed'])" 2>/dev/null)
echo "slurm: bench --slurm: exit $rc; (node, in a job, completed) = $where"
[ "$where" = "('$(hostname -s)', True, 8)" ] || { echo "slurm: bench did not run in a Slurm job"; tail "$WORK/bench.txt"; fail=1; }

[ $fail = 0 ] && echo "slurm: all passed"
exit $fail
