# Sourced by containerd.sh and ../peers/containerd2.sh: the network namespaces a
# containerd's CRI plugin made for its pods.
#
# A pod not on the host network gets a namespace bind-mounted at
# /var/run/netns/cni-<id>, with a veth from it to the CNI bridge. Only
# StopPodSandbox (CNI DEL) removes them; killing the tasks and containerd leaves
# both behind. They piled up here, about 25 per test run, until the host had over
# a thousand veths and every program that lists the host's interfaces or routes
# slowed down (the standalone kubelet reads them on each pod sync: 80 % of its CPU).

# pod_netns CTR SOCK: the namespaces of the daemon's sandboxes, one path a line.
pod_netns() {
  local ctr=$1 sock=$2 id
  for id in $("$ctr" -a "$sock" -n k8s.io containers ls -q 'labels."io.cri-containerd.kind"==sandbox' 2>/dev/null); do
    "$ctr" -a "$sock" -n k8s.io containers info "$id" 2>/dev/null \
      | jq -r '.Spec.linux.namespaces[]? | select(.type == "network") | .path // empty' 2>/dev/null || true
  done | { grep -E '^(/var)?/run/netns/cni-' || true; } | sort -u
}

# drop_netns PATH...: unmounts and removes each (once its processes are gone the
# namespace goes, and its veth with it).
drop_netns() {
  local p
  for p in "$@"; do
    umount "$p" 2>/dev/null || true
    rm -f "$p"
  done
}
