#!/usr/bin/env bash
# Builds the pinned upstream binaries of the local control plane from Go modules (through the Go
# module proxy) and caches them under .cache/bin/<key>/, where <key> is derived from the tools
# module's go.mod and go.sum. A second run with the same pins builds nothing.
#
#   hack/build-upstream.sh [k8s] [etcd] [kwok] [training-operator] [helm] [kubelet] [coredns]
#                                                                       (default: k8s etcd kwok)
# kubelet and coredns are the real node's (lab/local-cluster/real-node): built only when asked for.
#
# Prints the directory of each component's binaries on stdout as `<component>=<dir>`; progress goes
# to stderr. Environment: TFJOB_CACHE_DIR (default <repo>/.cache), BUILD_PARALLELISM (go build -p).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${TFJOB_CACHE_DIR:-$repo/.cache}
tools=$repo/hack/tools
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-buildvcs=false
# Two cores and 24 GiB is a common CI shape; linking kube-apiserver takes a few GiB per process.
parallel=${BUILD_PARALLELISM:-$(( $(nproc) < 4 ? $(nproc) : 4 ))}

log() { printf '[build-upstream %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# The pinned versions live in the tools modules; read them back so there is one source of truth.
modversion() { sed -n "s#^require $2 \(v[^ ]*\).*#\1#p; s#^[[:space:]]*$2 \(v[^ ]*\)\$#\1#p" "$tools/$1/go.mod" | head -n1; }

key_for() { # component -> cache key: version plus a hash of the module files (so a pin change rebuilds)
  local dir=$tools/$1 version=$2
  printf '%s-%s-%s' "$1" "$version" "$(cat "$dir/go.mod" "$dir/go.sum" | sha256sum | cut -c1-12)"
}

build() { # component version output-dir ldflags packages...
  local component=$1 version=$2 out=$3 ldflags=$4; shift 4
  if [[ -f $out/.complete ]]; then
    log "$component $version: cached in $out"
    return
  fi
  local tmp=$out.partial.$$
  rm -rf "$tmp"; mkdir -p "$tmp"
  log "$component $version: building $* (go build -p $parallel; the first build takes many minutes)"
  local start=$SECONDS
  (
    cd "$tools/$component"
    for pkg in "$@"; do
      local name=${pkg##*/}
      [[ $name == v3 ]] && name=etcd                      # go.etcd.io/etcd/server/v3 is the etcd main
      [[ $name == training-operator.v1 ]] && name=training-operator
      [[ $name == . ]] && name=$component                  # a tools module that is itself a main package
      log "  $name ..."
      local t0=$SECONDS
      $timer go build -p "$parallel" -trimpath -ldflags "$ldflags" -o "$tmp/$name" "$pkg" 2>&1 \
        | sed 's/^/    /' >&2
      [[ -x $tmp/$name ]] || { log "  $name: build failed"; exit 1; }
      log "  $name done in $((SECONDS - t0)) s"
    done
  )
  echo "$version" >"$tmp/.complete"
  rm -rf "$out"; mv "$tmp" "$out"
  log "$component $version: built in $((SECONDS - start)) s"
}

# Version stamps of the Kubernetes binaries, as upstream's release build sets them.
k8s_ldflags() { # version
  local v=$1 minor p=k8s.io/component-base/version
  minor=$(echo "$v" | cut -d. -f2)
  printf '%s' "-s -w -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  printf '%s' " -X k8s.io/client-go/pkg/version.gitVersion=$v -X k8s.io/client-go/pkg/version.gitMajor=1 -X k8s.io/client-go/pkg/version.gitMinor=$minor"
}

# GNU time reports the peak memory of each build when the machine has it; it is optional.
timer=""
[[ -x /usr/bin/time ]] && timer='/usr/bin/time -f %e_s,_peak_RSS_%M_KiB'

components=("$@")
[[ ${#components[@]} -gt 0 ]] || components=(k8s etcd kwok)

for component in "${components[@]}"; do
  case $component in
    k8s)
      v=$(modversion k8s k8s.io/kubernetes)
      ldf=$(k8s_ldflags "$v")
      out=$cache/bin/$(key_for k8s "$v")
      build k8s "$v" "$out" "$ldf" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
        k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
      ;;
    etcd)
      v=$(modversion etcd go.etcd.io/etcd/server/v3)
      out=$cache/bin/$(key_for etcd "$v")
      build etcd "$v" "$out" "-s -w" go.etcd.io/etcd/server/v3
      ;;
    kwok)
      v=$(modversion kwok sigs.k8s.io/kwok)
      out=$cache/bin/$(key_for kwok "$v")
      build kwok "$v" "$out" "-s -w" sigs.k8s.io/kwok/cmd/kwok
      ;;
    kubelet)
      # Same module pin and ldflags as the control plane, so the node's version matches the apiserver's.
      v=$(modversion k8s k8s.io/kubernetes)
      ldf=$(k8s_ldflags "$v")
      out=$cache/bin/$(key_for k8s "$v" | sed 's/^k8s-/kubelet-/')
      build k8s "$v" "$out" "$ldf" k8s.io/kubernetes/cmd/kubelet
      ;;
    coredns)
      v=$(modversion coredns github.com/coredns/coredns)
      out=$cache/bin/$(key_for coredns "$v")-$(sha256sum "$tools/coredns/main.go" | cut -c1-8)
      build coredns "$v" "$out" "-s -w" .
      ;;
    helm)
      v=$(modversion helm helm.sh/helm/v3)
      p=helm.sh/helm/v3/internal/version
      out=$cache/bin/$(key_for helm "$v")
      build helm "$v" "$out" "-s -w -X $p.version=$v -X $p.gitTreeState=clean" helm.sh/helm/v3/cmd/helm
      ;;
    training-operator)
      v=$(modversion training-operator github.com/kubeflow/training-operator)
      out=$cache/bin/$(key_for training-operator "$v")
      build training-operator "$v" "$out" "-s -w" github.com/kubeflow/training-operator/cmd/training-operator.v1
      ;;
    *) log "unknown component $component"; exit 2 ;;
  esac
  echo "$component=$out"
done
