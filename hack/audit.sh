#!/usr/bin/env bash
# Dependency audit for the test command: `npm audit` at high severity over the committed
# package-lock.json (production and development dependencies). Fails on any high or critical
# advisory. Where the registry's advisories endpoint cannot be reached (an offline mirror or a
# registry proxy that refuses the bulk advisory POST, as on our build machines), it says so loudly
# and does not fail, unless AUDIT_REQUIRED=1 (set it in a CI that has the real registry).
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
out=$(npm audit --audit-level=high --json 2>/dev/null)
status=$?
if [ $status -eq 0 ]; then
  echo "npm audit: no high or critical advisories"
  exit 0
fi
# A report has a "vulnerabilities" object; an endpoint failure has none (an HTTP error as
# {message, statusCode} or {error: {summary}}).
if ! printf '%s' "$out" | python3 -c 'import json,sys; sys.exit(0 if "vulnerabilities" in json.load(sys.stdin) else 1)' 2>/dev/null; then
  reason=$(printf '%s' "$out" | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
    print(d.get("message") or (d.get("error") or {}).get("summary") or "no report")
except ValueError:
    print("no report")' 2>/dev/null)
  echo "npm audit: NOT RUN: the registry's advisories endpoint cannot be reached from here ($reason)." >&2
  if [ "${AUDIT_REQUIRED:-0}" = "1" ]; then exit 1; fi
  echo "npm audit: set AUDIT_REQUIRED=1 where the registry answers to make this a failure." >&2
  exit 0
fi
npm audit --audit-level=high
exit 1
