#!/usr/bin/env bash
# Build the real Kubernetes peers that knode is measured against, at pinned
# versions, from the Go module proxy, into a cache outside git. See README.md
# beside this file for the versions, the method and the times measured.
#
#   build.sh NAME...        build the named peers (skip a binary already built)
#   build.sh all            every peer below
#   build.sh path NAME      print the directory holding NAME's binaries (no build;
#                           exit 1 if it is not built)
#
# Peers: critest crictl (cri-tools), containerd2 (containerd, containerd-shim-runc-v2,
# ctr), cricheck (a small CRI client of our own, cricheck/main.go, built on the
# published k8s.io/cri-client, that the integration suite drives the embedded runtime with),
# kube (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl from
# k8s.io/kubernetes), kubelet (the kubelet, same module, wrapper and version stamp
# as kube, in a cache dir of its own), etcd (the etcd server kube-apiserver stores into),
# nonewprivs (the program of Kubernetes' e2e image nonewprivs, test/images/nonewprivs in
# the same module: a setuid program that prints its effective uid, for critest's image).
# controlplane.sh runs kube and etcd; kubelet.sh runs the kubelet.
#
# Cache: ${KNODE_PEERS_DIR:-$HOME/.cache/knode/peers}/<name>-<version>/ holds the
# binaries and the build log; wrap/ the generated wrapper modules; go/ the Go
# module and build caches (GOMODCACHE, GOCACHE), so a second run takes seconds.
set -euo pipefail

# ---- pinned versions ---------------------------------------------------------
GO_MIN_VERSION=1.26            # the go the modules below ask for (go 1.26.x)
CRI_TOOLS_MODULE=sigs.k8s.io/cri-tools   # as cri-tools' go.mod names it (the proxy refuses its github.com path)
CRI_TOOLS_VERSION=v1.37.0      # Kubernetes 1.37 line (go 1.26.6 in its go.mod)
CONTAINERD_MODULE=github.com/containerd/containerd/v2
CONTAINERD_VERSION=v2.4.2      # latest 2.x release on the proxy
CONTAINERD_TAGS="no_btrfs urfave_cli_no_docs"         # no_btrfs: no libbtrfs headers here
CONTAINERD_SHIM_TAGS="no_btrfs urfave_cli_no_docs no_grpc"  # upstream's shim tags, CGO_ENABLED=0
CRI_CLIENT_VERSION=v0.37.2     # k8s.io/cri-client and k8s.io/cri-api for cricheck (Kubernetes 1.37.2)
KUBE_MODULE=k8s.io/kubernetes
KUBE_VERSION=v1.37.2           # newest release on the proxy (go 1.26.0 in its go.mod)
# Upstream's release flags (hack/lib/golang.sh): these four are static (CGO_ENABLED=0),
# built with -trimpath, -s -w and these tags.
KUBE_TAGS="selinux notest grpcnotrace"
KUBE_BINS="kube-apiserver kube-controller-manager kube-scheduler kubectl"
ETCD_MODULE=go.etcd.io/etcd/server/v3   # its root package is etcd's main (server/main.go)
ETCD_VERSION=v3.7.3            # Kubernetes 1.37 is on etcd 3.7 (build/dependencies.yaml: 3.7.0); latest 3.7 patch
# ------------------------------------------------------------------------------

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PEERS=${KNODE_PEERS_DIR:-$HOME/.cache/knode/peers}
ALL=(critest crictl containerd2 cricheck etcd kube kubelet nonewprivs)

die() { echo "build.sh: $*" >&2; exit 1; }

peer_version() {
  case $1 in
    critest|crictl) echo "$CRI_TOOLS_VERSION" ;;
    containerd2) echo "$CONTAINERD_VERSION" ;;
    cricheck) echo "$CRI_CLIENT_VERSION" ;;
    kube|kubelet|nonewprivs) echo "$KUBE_VERSION" ;;
    etcd) echo "$ETCD_VERSION" ;;
    *) die "unknown peer '$1' (known: ${ALL[*]} all)" ;;
  esac
}
peer_dir() { echo "$PEERS/$1-$(peer_version "$1")"; }
peer_bins() {
  case $1 in
    containerd2) echo containerd containerd-shim-runc-v2 ctr ;;
    kube) echo "$KUBE_BINS" ;;
    *) echo "$1" ;;
  esac
}

setup_go() {
  if ! command -v go >/dev/null; then
    [ -x /usr/local/go/bin/go ] && PATH=/usr/local/go/bin:$PATH || die "no go on PATH nor in /usr/local/go/bin"
  fi
  local have
  have=$(go env GOVERSION) # go1.26.8
  have=${have#go}
  if [ "$(printf '%s\n%s\n' "$GO_MIN_VERSION" "$have" | sort -V | head -1)" != "$GO_MIN_VERSION" ]; then
    die "go $have is older than $GO_MIN_VERSION, which the pinned modules need"
  fi
  export GOPATH=$PEERS/go GOMODCACHE=$PEERS/go/mod GOCACHE=$PEERS/go/cache
  export GOFLAGS="-mod=mod -buildvcs=false" GOTOOLCHAIN=local
  mkdir -p "$GOMODCACHE" "$GOCACHE"
}

# go mod download -json M@V, failing loudly with the proxy's own words.
module_dir() {
  local mv=$1 json
  json=$(cd "$PEERS" && go mod download -json "$mv" 2>&1) || true
  local dir err
  dir=$(printf '%s' "$json" | jq -r '.Dir // empty' 2>/dev/null || true)
  err=$(printf '%s' "$json" | jq -r '.Error // empty' 2>/dev/null || printf '%s' "$json")
  if [ -z "$dir" ] || [ -n "$err" ]; then
    echo "build.sh: cannot download $mv from the Go module proxy:" >&2
    echo "  ${err:-$json}" >&2
    return 1
  fi
  echo "$dir"
}

# A wrapper module under $PEERS/wrap/NAME that requires M@V and repeats M's
# replace and exclude lines, a local-path replace turned into the published module.
# Prints the wrapper's directory.
wrapper() {
  local name=$1 mod=$2 ver=$3 src wrap goline
  src=$(module_dir "$mod@$ver") || return 1
  wrap=$PEERS/wrap/$name-$ver
  if [ -f "$wrap/go.mod" ] && [ -f "$wrap/.complete" ]; then echo "$wrap"; return 0; fi
  rm -rf "$wrap"; mkdir -p "$wrap"
  goline=$(go mod edit -json "$src/go.mod" | jq -r '.Go')
  printf 'module knode.peers/wrap/%s\n\ngo %s\n' "$name" "$goline" > "$wrap/go.mod"
  local args=(-require="$mod@$ver")
  local mminor mpatch
  # k8s.io/kubernetes v1.N.P publishes its staging repos as v0.N.P.
  if [[ $mod == k8s.io/kubernetes ]]; then mminor=$(echo "$ver" | cut -d. -f2); mpatch=$(echo "$ver" | cut -d. -f3); fi
  while IFS=$'\t' read -r oldp oldv newp newv; do
    [ -n "$oldp" ] || continue
    local lhs=$oldp; [ "$oldv" = "-" ] || lhs="$oldp@$oldv"
    if [ "$newv" != "-" ]; then
      args+=(-replace="$lhs=$newp@$newv")
    elif [[ $newp == ./* || $newp == ../* || $newp == /* ]]; then
      # A local path: the published module at the version M requires, or v0.N.P for kubernetes' staging.
      local want
      want=$(go mod edit -json "$src/go.mod" | jq -r --arg p "$oldp" '.Require[]? | select(.Path==$p) | .Version' | head -1)
      if [[ ( -z $want || $want == v0.0.0 ) && -n ${mminor:-} ]]; then want=v0.$mminor.$mpatch; fi
      [ -n "$want" ] && [ "$want" != v0.0.0 ] || { echo "build.sh: $mod replaces $oldp with local $newp and requires no published version of it" >&2; return 1; }
      args+=(-replace="$lhs=$oldp@$want")
    else
      args+=(-replace="$lhs=$newp")
    fi
  done < <(go mod edit -json "$src/go.mod" | jq -r '.Replace[]? | [.Old.Path, (.Old.Version // "-"), .New.Path, (.New.Version // "-")] | @tsv')
  while read -r ex; do [ -n "$ex" ] && args+=(-exclude="$ex"); done \
    < <(go mod edit -json "$src/go.mod" | jq -r '.Exclude[]? | "\(.Path)@\(.Version)"')
  # godebug lines (kubernetes: default=go1.26) only take effect in the main module.
  while read -r gd; do [ -n "$gd" ] && args+=(-godebug="$gd"); done \
    < <(go mod edit -json "$src/go.mod" | jq -r '.GoDebug[]? | "\(.Key)=\(.Value)"')
  (cd "$wrap" && go mod edit "${args[@]}") || return 1
  touch "$wrap/.complete"
  echo "$wrap"
}

# build_bin PEER BIN LOGFILE CMD... : run CMD (which writes $OUT) unless BIN exists.
declare -A RESULT
build_bin() {
  local peer=$1 bin=$2; shift 2
  local dir out log start
  dir=$(peer_dir "$peer"); out=$dir/$bin; log=$dir/build-$bin.log
  if [ -x "$out" ]; then
    RESULT[$bin]="$out (cached, $(du -h "$out" | cut -f1))"
    return 0
  fi
  mkdir -p "$dir"
  start=$(date +%s%N)
  echo "build.sh: building $bin ($peer $(peer_version "$peer")) ..." >&2
  if ! OUT=$out.tmp "$@" > "$log" 2>&1; then
    rm -f "$out.tmp"
    echo "build.sh: FAILED to build $bin; last lines of $log:" >&2
    tail -25 "$log" | sed 's/^/  /' >&2
    RESULT[$bin]="FAILED (see $log)"
    return 1
  fi
  mv "$out.tmp" "$out"
  local tenths=$(( ($(date +%s%N) - start) / 100000000 ))
  RESULT[$bin]="$out (built in $((tenths / 10)).$((tenths % 10)) s, $(du -h "$out" | cut -f1))"
}

go_in() { local wrap=$1; shift; (cd "$wrap" && "$@"); }

# What hack/lib/version.sh stamps, so --version and /version say v1.N.P: kubectl
# and the apiserver compare these (version skew), and the emulation/compatibility
# version is derived from them. The module zip carries no git commit: gitCommit
# is left empty rather than claimed; buildDate is the release's time on the proxy.
kube_ldflags() {
  local major minor date k v ld
  major=$(echo "${KUBE_VERSION#v}" | cut -d. -f1); minor=$(echo "$KUBE_VERSION" | cut -d. -f2)
  date=$(cd "$PEERS" && go list -m -json "$KUBE_MODULE@$KUBE_VERSION" | jq -r '.Time // "1970-01-01T00:00:00Z"') || return 1
  date=${date%%.*}; date=${date%Z}Z
  ld="-s -w"
  for k in gitVersion=$KUBE_VERSION gitMajor=$major gitMinor=$minor gitCommit= buildDate=$date; do
    for v in k8s.io/client-go/pkg/version k8s.io/component-base/version; do ld="$ld -X $v.$k"; done
  done
  echo "$ld"
}

build_peer() {
  local peer=$1 wrap ver ld
  case $peer in
    critest)
      wrap=$(wrapper cri-tools "$CRI_TOOLS_MODULE" "$CRI_TOOLS_VERSION") || { RESULT[critest]="FAILED: $CRI_TOOLS_MODULE@$CRI_TOOLS_VERSION is not available from the module proxy"; return 1; }
      ld="-X $CRI_TOOLS_MODULE/pkg/version.Version=$CRI_TOOLS_VERSION"
      build_bin critest critest sh -c 'cd "$0" && go test -c -ldflags "$1" -o "$OUT" "$2/cmd/critest"' "$wrap" "$ld" "$CRI_TOOLS_MODULE" ;;
    crictl)
      wrap=$(wrapper cri-tools "$CRI_TOOLS_MODULE" "$CRI_TOOLS_VERSION") || { RESULT[crictl]="FAILED: $CRI_TOOLS_MODULE@$CRI_TOOLS_VERSION is not available from the module proxy"; return 1; }
      ld="-X $CRI_TOOLS_MODULE/pkg/version.Version=$CRI_TOOLS_VERSION"
      build_bin crictl crictl sh -c 'cd "$0" && go build -ldflags "$1" -o "$OUT" "$2/cmd/crictl"' "$wrap" "$ld" "$CRI_TOOLS_MODULE" ;;
    containerd2)
      wrap=$(wrapper containerd2 "$CONTAINERD_MODULE" "$CONTAINERD_VERSION") || { RESULT[containerd]="FAILED: $CONTAINERD_MODULE@$CONTAINERD_VERSION is not available from the module proxy"; return 1; }
      ver=$CONTAINERD_VERSION
      ld="-X $CONTAINERD_MODULE/version.Version=$ver -X $CONTAINERD_MODULE/version.Package=$CONTAINERD_MODULE"
      local rc=0
      build_bin containerd2 containerd sh -c 'cd "$0" && go build -tags "$1" -ldflags "$2" -o "$OUT" "$3/cmd/containerd"' \
        "$wrap" "$CONTAINERD_TAGS" "$ld" "$CONTAINERD_MODULE" || rc=1
      build_bin containerd2 containerd-shim-runc-v2 sh -c 'cd "$0" && CGO_ENABLED=0 go build -tags "$1" -ldflags "$2" -o "$OUT" "$3/cmd/containerd-shim-runc-v2"' \
        "$wrap" "$CONTAINERD_SHIM_TAGS" "$ld" "$CONTAINERD_MODULE" || rc=1
      build_bin containerd2 ctr sh -c 'cd "$0" && go build -tags "$1" -ldflags "$2" -o "$OUT" "$3/cmd/ctr"' \
        "$wrap" "$CONTAINERD_TAGS" "$ld" "$CONTAINERD_MODULE" || rc=1
      return $rc ;;
    cricheck)
      # Our own source (cricheck/main.go) in a generated module under wrap/.
      wrap=$PEERS/wrap/cricheck-$CRI_CLIENT_VERSION
      mkdir -p "$wrap"
      if ! cmp -s "$HERE/cricheck/main.go" "$wrap/main.go"; then
        cp "$HERE/cricheck/main.go" "$wrap/main.go"
        rm -f "$(peer_dir cricheck)/cricheck"
      fi
      if [ ! -f "$wrap/go.mod" ]; then
        printf 'module knode.peers/cricheck\n\ngo 1.26.0\n' > "$wrap/go.mod"
        (cd "$wrap" && go mod edit -require="k8s.io/cri-client@$CRI_CLIENT_VERSION" -require="k8s.io/cri-api@$CRI_CLIENT_VERSION")
      fi
      build_bin cricheck cricheck sh -c 'cd "$0" && go build -o "$OUT" .' "$wrap" ;;
    kube)
      wrap=$(wrapper kube "$KUBE_MODULE" "$KUBE_VERSION") || { RESULT[kube-apiserver]="FAILED: $KUBE_MODULE@$KUBE_VERSION is not available from the module proxy"; return 1; }
      ld=$(kube_ldflags) || return 1
      local rc=0 b
      for b in $KUBE_BINS; do
        build_bin kube "$b" sh -c 'cd "$0" && CGO_ENABLED=0 go build -trimpath -tags "$1" -ldflags "$2" -o "$OUT" "$3"' \
          "$wrap" "$KUBE_TAGS" "$ld" "$KUBE_MODULE/cmd/$b" || rc=1
      done
      return $rc ;;
    kubelet)
      # The kube peer's wrapper module (same go.mod, same build cache entries); the
      # binary goes to kubelet-VERSION/, so kube-VERSION/ is left as it is.
      # Upstream links the kubelet with cgo (it is not in KUBE_STATIC_BINARIES); here it
      # is static like kube's binaries: in its whole dependency graph only the standard
      # library's net (DNS through getaddrinfo) and os/user use cgo, so the kubelet does
      # nothing differently, and the build reuses the kube build's cache (a cgo net
      # would recompile nearly all of Kubernetes on top of it).
      wrap=$(wrapper kube "$KUBE_MODULE" "$KUBE_VERSION") || { RESULT[kubelet]="FAILED: $KUBE_MODULE@$KUBE_VERSION is not available from the module proxy"; return 1; }
      ld=$(kube_ldflags) || return 1
      build_bin kubelet kubelet sh -c 'cd "$0" && CGO_ENABLED=0 go build -trimpath -tags "$1" -ldflags "$2" -o "$OUT" "$3"' \
        "$wrap" "$KUBE_TAGS" "$ld" "$KUBE_MODULE/cmd/kubelet" ;;
    nonewprivs)
      # Static, as its image's Dockerfile copies it onto a base image that has no libc of Go's choosing.
      wrap=$(wrapper kube "$KUBE_MODULE" "$KUBE_VERSION") || { RESULT[nonewprivs]="FAILED: $KUBE_MODULE@$KUBE_VERSION is not available from the module proxy"; return 1; }
      build_bin nonewprivs nonewprivs sh -c 'cd "$0" && CGO_ENABLED=0 go build -trimpath -o "$OUT" "$1"' \
        "$wrap" "$KUBE_MODULE/test/images/nonewprivs" ;;
    etcd)
      wrap=$(wrapper etcd "$ETCD_MODULE" "$ETCD_VERSION") || { RESULT[etcd]="FAILED: $ETCD_MODULE@$ETCD_VERSION is not available from the module proxy"; return 1; }
      # As etcd's scripts/build_lib.sh: static, -trimpath. The version is a constant in
      # go.etcd.io/etcd/api/v3/version; GitSHA (which it stamps from git) stays unset.
      build_bin etcd etcd sh -c 'cd "$0" && CGO_ENABLED=0 go build -trimpath -o "$OUT" "$1"' "$wrap" "$ETCD_MODULE" ;;
  esac
}

main() {
  [ $# -gt 0 ] || { sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
  if [ "$1" = path ]; then
    local peer=${2:?usage: build.sh path NAME}
    peer_version "$peer" >/dev/null   # an unknown name fails here, not inside $(...)
    local d; d=$(peer_dir "$peer")
    local b
    for b in $(peer_bins "$peer"); do
      [ -x "$d/$b" ] || { echo "build.sh: $peer is not built ($d/$b missing: run build.sh $peer)" >&2; exit 1; }
    done
    echo "$d"; exit 0
  fi
  local peers=()
  for a in "$@"; do
    if [ "$a" = all ]; then peers+=("${ALL[@]}"); else peer_version "$a" >/dev/null; peers+=("$a"); fi
  done
  command -v jq >/dev/null || die "jq is needed (apt-get install jq)"
  setup_go
  local failed=() p
  for p in "${peers[@]}"; do build_peer "$p" || failed+=("$p"); done
  local k
  for k in critest crictl containerd containerd-shim-runc-v2 ctr cricheck etcd $KUBE_BINS kubelet; do
    [ -n "${RESULT[$k]:-}" ] && printf '%-24s %s\n' "$k" "${RESULT[$k]}"
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "build.sh: failed: ${failed[*]}" >&2
    exit 1
  fi
}

main "$@"
