#!/usr/bin/env bash
# Writes every scheduling decision the core makes on a fixed set of inputs into DIR: the plans of
# every policy on bench/random-cluster.ts clusters (hack/decision-fingerprint.ts) and the simulator
# output of every scenario in scenarios/ with every policy. Run it before and after a change that
# must not change decisions, then `diff -r BEFORE AFTER` (must print nothing).
#   bash hack/decision-check.sh DIR
set -euo pipefail
dir=${1:?usage: hack/decision-check.sh DIR}
mkdir -p "$dir"
cd "$(dirname "$0")/.."
node hack/decision-fingerprint.ts --out "$dir/random-clusters.jsonl"
# scenarios/ablations/ holds scheduler configurations and scenarios/base/ templates, not scenarios.
for f in scenarios/*.yaml; do
  name=${f#scenarios/}
  node lab/cli/main.ts simulate --scenario "$f" --policy all --json "$dir/sim-$name.json" --quiet > /dev/null
done
