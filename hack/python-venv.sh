#!/usr/bin/env bash
# Creates (once) a Python virtual environment with the pinned client packages of a requirements file
# and prints the path of its python on stdout. Progress goes to stderr.
#
#   hack/python-venv.sh [REQUIREMENTS]   (default: test/clients/requirements.txt)
#
# The venv lives in .cache/python/<key>/, where <key> hashes the requirements file, the interpreter's
# version and the machine, so a changed pin builds a fresh venv and an unchanged one is reused at once.
# Installation is hash-checked (pip --require-hashes) and serialised with flock, so test files that
# call this in parallel build the venv once. Environment: PYTHON (default python3, must be >= 3.9),
# TFJOB_CACHE_DIR (default <repo>/.cache), PIP_INDEX_URL and other PIP_* settings are honoured.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${TFJOB_CACHE_DIR:-$repo/.cache}
requirements=$(cd "$(dirname "${1:-$repo/test/clients/requirements.txt}")" && pwd)/$(basename "${1:-requirements.txt}")
python=${PYTHON:-python3}

log() { printf '[python-venv %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ -f $requirements ]] || die "no requirements file $requirements"
command -v "$python" >/dev/null || die "$python not found: install Python >= 3.9 (or set PYTHON)"
version=$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])') || die "$python does not run"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' || die "$python is $version; need >= 3.9"
"$python" -c 'import venv, ensurepip' 2>/dev/null || die "$python lacks the venv/ensurepip modules (Debian/Ubuntu: apt-get install python3-venv)"

key=$({ cat "$requirements"; echo "python=$version machine=$(uname -sm)"; } | sha256sum | cut -c1-16)
dir=$cache/python/$key
if [[ -f $dir/.complete ]]; then
  echo "$dir/bin/python"
  exit 0
fi

mkdir -p "$cache/python"
exec 9>"$cache/python/.lock"
if command -v flock >/dev/null; then
  flock 9   # held until exit; a parallel caller waits here
fi
# Another process may have finished it while we waited.
if [[ -f $dir/.complete ]]; then
  echo "$dir/bin/python"
  exit 0
fi

rm -rf "$dir"
log "creating $dir with $python $version for $(realpath --relative-to="$repo" "$requirements" 2>/dev/null || echo "$requirements")"
start=$SECONDS
"$python" -m venv "$dir" >&2
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_PROGRESS_BAR=off
if ! "$dir/bin/python" -m pip install --require-hashes --only-binary=kubeflow-training,kubernetes -r "$requirements" >&2; then
  rm -rf "$dir"
  die "pip install failed (network? PyPI reachable? see the pip output above)"
fi
"$dir/bin/python" -m pip check >&2 || { rm -rf "$dir"; die "pip check failed: the pinned set is inconsistent"; }
"$dir/bin/python" -c 'import kubeflow.training, kubernetes' || { rm -rf "$dir"; die "the installed packages do not import"; }
touch "$dir/.complete"
log "ready in $((SECONDS - start)) s: $("$dir/bin/python" -m pip freeze | grep -iE '^(kubeflow-training|kubernetes)==' | tr '\n' ' ')"
echo "$dir/bin/python"
