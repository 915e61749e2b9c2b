#!/usr/bin/env bash
# A real containerd for knode's tests, CI and benchmarks, on this kind of machine
# (Debian bookworm, root, no registry). See ../shared/cri/README.md for the facts
# behind each setting.
#
#   containerd.sh install      apt-get the packages (containerd, runc, CNI plugins, busybox-static, umoci, jq,
#                              and docker-registry and skopeo for test/registry/registry.sh)
#   containerd.sh up DIR       start containerd with its own config under DIR, import the
#                              busybox image, print the endpoint (unix://DIR/containerd.sock)
#   containerd.sh down DIR     stop it, its shims and containers, and remove DIR
#   containerd.sh restart DIR  start the daemon of DIR again (after a crash: its shims and
#                              containers kept running), with the same config and state
#   containerd.sh image        build the busybox OCI archive (cached) and print its path
set -euo pipefail
# shellcheck source=pod-netns.sh
. "$(dirname "${BASH_SOURCE[0]}")/pod-netns.sh"

# jq: test/peers/build.sh reads the Go modules' metadata with it; openssl and
# curl: the tests' certificates and the control plane's health checks;
# docker-registry and skopeo: the local registry of the image-pull tests;
# bubblewrap: the embedded runtime's sandboxes for containers of real images.
PACKAGES=(containerd runc containernetworking-plugins busybox-static umoci iproute2 jq openssl curl docker-registry skopeo bubblewrap)
IMAGE=docker.io/library/busybox:1.36

install() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [ -x /usr/lib/cni/bridge ] || missing+=(containernetworking-plugins)
  [ -x /bin/busybox ] || missing+=(busybox-static)
  command -v umoci >/dev/null || missing+=(umoci)
  command -v jq >/dev/null || missing+=(jq)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v curl >/dev/null || missing+=(curl)
  command -v docker-registry >/dev/null || missing+=(docker-registry)
  command -v skopeo >/dev/null || missing+=(skopeo)
  command -v bwrap >/dev/null || missing+=(bubblewrap)
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "containerd.sh: missing ${missing[*]} and not root; install: apt-get install ${PACKAGES[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
}

# The busybox OCI archive (scripts/busybox-image.sh, cached); prints its path.
image() {
  bash "$(dirname "$0")/../../scripts/busybox-image.sh"
}

up() {
  local dir=$1
  install
  mkdir -p "$dir/cni" "$dir/root" "$dir/state"
  bash "$(dirname "$0")/mirror-hosts.sh" "$dir"
  cat > "$dir/config.toml" <<TOML
version = 2
root = "$dir/root"
state = "$dir/state"
[grpc]
  address = "$dir/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMAGE"
  # This VM refuses a negative oom_score_adj; without this every RunPodSandbox fails.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$dir/certs.d"
TOML
  cat > "$dir/cni/10-knode.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "knode-test",
  "plugins": [
    { "type": "bridge", "bridge": "knode-cni0", "isGateway": true, "ipMasq": false,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "10.88.0.0/16" }]], "dataDir": "$dir/ipam" } },
    { "type": "loopback" }
  ]
}
JSON
  start_daemon "$dir"
  ctr -a "$dir/containerd.sock" -n k8s.io images import --base-name docker.io/library/busybox --digests \
    "$(image)" >/dev/null
  echo "unix://$dir/containerd.sock"
}

start_daemon() {
  local dir=$1
  containerd --config "$dir/config.toml" >> "$dir/containerd.log" 2>&1 &
  echo $! > "$dir/containerd.pid"
  for _ in $(seq 1 200); do
    [ -S "$dir/containerd.sock" ] && ctr -a "$dir/containerd.sock" version >/dev/null 2>&1 && break
    sleep 0.05
  done
  if ! ctr -a "$dir/containerd.sock" version >/dev/null 2>&1; then
    echo "containerd.sh: containerd did not start; its log:" >&2
    tail -20 "$dir/containerd.log" >&2
    exit 1
  fi
}

down() {
  local dir=$1
  [ -d "$dir" ] || return 0
  local netns=()
  if [ -S "$dir/containerd.sock" ]; then
    mapfile -t netns < <(pod_netns ctr "$dir/containerd.sock")
    # Stop every pod so no shim or container outlives the test run.
    for task in $(ctr -a "$dir/containerd.sock" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr -a "$dir/containerd.sock" -n k8s.io tasks kill -s SIGKILL "$task" >/dev/null 2>&1 || true
    done
  fi
  if [ -f "$dir/containerd.pid" ]; then
    kill "$(cat "$dir/containerd.pid")" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$(cat "$dir/containerd.pid")" 2>/dev/null || break; sleep 0.05; done
  fi
  pkill -f "containerd-shim-runc-v2 -namespace k8s.io .*-address $dir/containerd.sock" 2>/dev/null || true
  drop_netns "${netns[@]}"
  { grep -o " $dir/[^ ]*" /proc/mounts || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  rm -rf "$dir" 2>/dev/null || true
}

case "${1:-}" in
  install) install ;;
  image) image ;;
  up) up "${2:?usage: containerd.sh up DIR}" ;;
  down) down "${2:?usage: containerd.sh down DIR}" ;;
  restart) start_daemon "${2:?usage: containerd.sh restart DIR}" ;;
  *) echo "usage: containerd.sh install | image | up DIR | down DIR | restart DIR" >&2; exit 2 ;;
esac
