#!/usr/bin/env bash
# Idle figures of a fresh operator (this checkout) on the memory benchmark's cluster: time to ready,
# time to quiescence, then CPU while idle (docs/benchmarks.md). Run under `hack/dev shell`.
#   bash bench/idle-measure.sh KUBECONFIG OUT
set -u
KC=$1; OUT=$2
cd "$(dirname "$0")/.."
LOG_LEVEL=warn node src/cli/main.ts run --kubeconfig "$KC" --policy ours --metrics-bind-address 127.0.0.1:48123 --health-probe-bind-address 127.0.0.1:48124 >/tmp/idle-op.log 2>&1 &
pid=$!
start=$(date +%s.%N)
until curl -sf http://127.0.0.1:48124/readyz >/dev/null; do sleep 0.5; done
ready=$(echo "$(date +%s.%N) - $start" | bc)
echo "ready after $ready s" | tee $OUT
# quiescence: reconcile count stable for 15 s
prev=-1
while true; do
  n=$(curl -s http://127.0.0.1:48123/metrics | awk '/^controller_runtime_reconcile_total/ {s+=$2} END {print s+0}')
  [ "$n" = "$prev" ] && break
  prev=$n; sleep 15
done
echo "idle after $(echo "$(date +%s.%N) - $start" | bc) s, reconciles $n" | tee -a $OUT
tick=$(getconf CLK_TCK)
cpu() { awk -v t=$tick '{print ($14+$15)/t}' /proc/$pid/stat; }
req() { curl -s http://127.0.0.1:48123/metrics | awk '/^rest_client_requests_total/ {s+=$2} END {print s+0}'; }
c0=$(cpu); r0=$(req); n0=$n
rss=()
for i in $(seq 1 12); do sleep 5; rss+=($(awk '/VmRSS/ {print $2}' /proc/$pid/status)); done
c1=$(cpu); r1=$(req)
n1=$(curl -s http://127.0.0.1:48123/metrics | awk '/^controller_runtime_reconcile_total/ {s+=$2} END {print s+0}')
heap=$(curl -s http://127.0.0.1:48123/metrics | awk '/^nodejs_heap_size_used_bytes/ {print $2/1048576}')
echo "idle 60 s: cpu $(echo "$c1 - $c0" | bc) s, requests $((r1 - r0)), reconciles $(echo "$n1 - $n0" | bc)" | tee -a $OUT
printf 'rss KiB samples: %s\n' "${rss[*]}" | tee -a $OUT
echo "heap used MiB $heap; peak RSS $(awk '/VmHWM/ {print $2}' /proc/$pid/status) KiB" | tee -a $OUT
kill -TERM $pid; wait $pid; echo "exit $?" | tee -a $OUT
