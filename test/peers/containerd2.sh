#!/usr/bin/env bash
# containerd 2 (built by build.sh from the Go module proxy) for knode's tests and
# benchmarks: the runtime that answers GetContainerEvents. Same shape as
# ../containerd/containerd.sh (Debian's containerd 1.6), config version 3.
#
#   containerd2.sh up DIR     build containerd 2 if needed, start it with its own config,
#                             root, state and socket under DIR, import the busybox image,
#                             print the endpoint (unix://DIR/containerd.sock)
#   containerd2.sh down DIR   stop it, its shims and containers, and remove DIR
#
# Needs runc, containernetworking-plugins, busybox-static and umoci from Debian
# (`bash test/containerd/containerd.sh install` installs them).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../containerd/pod-netns.sh
. "$HERE/../containerd/pod-netns.sh"
IMAGE=docker.io/library/busybox:1.36

up() {
  local dir=$1 bin
  for tool in runc umoci; do
    command -v $tool >/dev/null || { echo "containerd2.sh: $tool missing: bash test/containerd/containerd.sh install" >&2; exit 1; }
  done
  [ -x /usr/lib/cni/bridge ] && [ -x /bin/busybox ] || { echo "containerd2.sh: CNI plugins or busybox-static missing: bash test/containerd/containerd.sh install" >&2; exit 1; }
  bash "$HERE/build.sh" containerd2 >&2
  bin=$(bash "$HERE/build.sh" path containerd2)
  dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
  mkdir -p "$dir/cni" "$dir/root" "$dir/state"
  bash "$HERE/../containerd/mirror-hosts.sh" "$dir"
  cat > "$dir/config.toml" <<TOML
version = 3
root = "$dir/root"
state = "$dir/state"
[grpc]
  address = "$dir/containerd.sock"
[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "$IMAGE"
  [plugins.'io.containerd.cri.v1.images'.registry]
    config_path = "$dir/certs.d"
[plugins.'io.containerd.cri.v1.runtime']
  # This VM refuses a negative oom_score_adj; without this every RunPodSandbox fails.
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = "$dir/cni"
# Not used here, and its default socket under /var/run is shared by every containerd.
[plugins.'io.containerd.nri.v1.nri']
  disable = true
TOML
  cat > "$dir/cni/10-knode.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "knode-test2",
  "plugins": [
    { "type": "bridge", "bridge": "knode-cni2", "isGateway": true, "ipMasq": false,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "10.89.0.0/16" }]], "dataDir": "$dir/ipam" } },
    { "type": "loopback" }
  ]
}
JSON
  # The runc shim must be on containerd's PATH.
  PATH="$bin:$PATH" "$bin/containerd" --config "$dir/config.toml" > "$dir/containerd.log" 2>&1 &
  echo $! > "$dir/containerd.pid"
  for _ in $(seq 1 200); do
    [ -S "$dir/containerd.sock" ] && "$bin/ctr" -a "$dir/containerd.sock" version >/dev/null 2>&1 && break
    sleep 0.05
  done
  if ! "$bin/ctr" -a "$dir/containerd.sock" version >/dev/null 2>&1; then
    echo "containerd2.sh: containerd did not start; its log:" >&2
    tail -20 "$dir/containerd.log" >&2
    exit 1
  fi
  # The same image as Debian's containerd gets (../containerd/containerd.sh builds it).
  "$bin/ctr" -a "$dir/containerd.sock" -n k8s.io images import --base-name docker.io/library/busybox --digests \
    "$(bash "$HERE/../containerd/containerd.sh" image)" >/dev/null
  echo "unix://$dir/containerd.sock"
}

# Pids of the shims serving this containerd (their command line names its socket).
shim_pids() {
  local sock=$1 p
  for p in /proc/[0-9]*; do
    tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -q "^[^ ]*containerd-shim-runc-v2 .*-address $sock" && echo "${p#/proc/}"
  done
  return 0
}

down() {
  local dir=$1 bin ctr=""
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  bin=$(bash "$HERE/build.sh" path containerd2 2>/dev/null) && ctr=$bin/ctr
  local netns=()
  if [ -n "$ctr" ] && [ -S "$dir/containerd.sock" ]; then
    mapfile -t netns < <(pod_netns "$ctr" "$dir/containerd.sock")
    # Stop every pod so no shim or container outlives the test run.
    for task in $("$ctr" -a "$dir/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
      "$ctr" -a "$dir/containerd.sock" -n k8s.io tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true
    done
  fi
  if [ -f "$dir/containerd.pid" ]; then
    kill "$(cat "$dir/containerd.pid")" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null || break; sleep 0.05; done
  fi
  local pid
  for pid in $(shim_pids "$dir/containerd.sock"); do kill "$pid" 2>/dev/null || true; done
  drop_netns "${netns[@]}"
  { grep -o " $dir/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  rm -rf "$dir" 2>/dev/null || true
}

case "${1:-}" in
  up) up "${2:?usage: containerd2.sh up DIR}" ;;
  down) down "${2:?usage: containerd2.sh down DIR}" ;;
  *) echo "usage: containerd2.sh up DIR | down DIR" >&2; exit 2 ;;
esac
