#!/usr/bin/env bash
# The real kubelet (built by build.sh, peer `kubelet`) standalone: no apiserver,
# static pods from a directory, on a CRI runtime the caller started (containerd2.sh).
# Its read-only port serves /pods with the pods' statuses: the oracle knode's pod
# statuses are compared with. Same shape as containerd2.sh and controlplane.sh; see
# README.md beside this file for the flags and why.
#
#   kubelet.sh up DIR --runtime-endpoint unix://SOCK [--port N] [--node-name NAME]
#                       [--cluster-dns IP] [--cluster-domain DOMAIN]
#                       [--kubeconfig FILE] [--config-extra FILE]
#                       write DIR/config.yaml, start the kubelet (root dir, certs, pod
#                       logs and its own log under DIR), wait until /healthz says ok and
#                       the read-only port answers /pods, print one line of JSON: pid,
#                       readOnlyPort and its URL, podsDir (write static pod manifests
#                       here), nodeName (static pods are named NAME-NODENAME), log, rootDir
#                       With --kubeconfig (a node's credentials, controlplane.sh
#                       node-kubeconfig) it joins that cluster as NAME (its node IP
#                       its own pick: it refuses loopback) and also runs the pods
#                       bound to it. --config-extra
#                       appends FILE's KubeletConfiguration fields (evictionHard, ...)
#                       to config.yaml; a field already there must not be repeated.
#   kubelet.sh down DIR stop it, unmount what it mounted under DIR, put back the host
#                       settings it changed, remove DIR. Pods and containers stay in the
#                       runtime: cleaning the runtime is the caller's job.
#
# The kubelet kills every pod sandbox on its runtime that is not one of its own pods,
# and garbage-collects their exited containers: never share a runtime with knode.
#
# Environment: KUBELET_DEADLINE (seconds the kubelet gets to answer, 60), KUBELET_V
# (klog verbosity, 0).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEADLINE=${KUBELET_DEADLINE:-60}
VERBOSITY=${KUBELET_V:-0}
# The kubelet creates this directory (hard-coded) and a symlink in it for every
# container it starts, pointing at the container's log under podLogsDir.
LEGACY_LOG_DIR=/var/log/containers
# The kernel settings the kubelet's container manager sets at start (setupKernelTunables:
# vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1 differ from this VM's);
# there is no setting that skips it (protectKernelDefaults: true makes it refuse to start
# instead), so up saves them and down puts them back.
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"

BIN=""   # the kubelet binary (set by up)

die() { echo "kubelet.sh: $*" >&2; exit 1; }

# free_port: a free TCP port on 127.0.0.1; names_dir: whether a pid is ours; still_ours (lib.sh).
source "$HERE/lib.sh"

# The kubelet's pid, only if that process is still ours (names_dir, lib.sh).
our_pid() {
  local dir=$1 pid
  [ -f "$dir/kubelet.pid" ] || return 1
  pid=$(cat "$dir/kubelet.pid")
  names_dir "$pid" "$dir" || return 1
  echo "$pid"
}

# The DIRs of the other kubelets kubelet.sh started that are running now (any process
# running BIN, whose --config is OTHERDIR/config.yaml).
other_dirs() {
  local dir=$1 bin=$2 p cfg
  [ -n "$bin" ] || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = "$bin" ] || continue
    cfg=$(tr '\0' '\n' < "$p/cmdline" 2>/dev/null | grep -A1 -x -- --config | tail -1) || continue
    [ -n "$cfg" ] && [ "${cfg%/config.yaml}" != "$dir" ] && echo "${cfg%/config.yaml}"
  done
  return 0
}

stop_kubelet() {
  local dir=$1 pid
  pid=$(our_pid "$dir") || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
}

# Mounts the kubelet made under DIR, deepest first: tmpfs volumes (emptyDir medium
# Memory, downwardAPI, projected, secret, configMap) under DIR/root/pods/UID/volumes,
# then DIR/root itself, which the kubelet bind-mounts onto itself to make it rshared.
unmount_under() {
  local dir=$1 m
  { awk '{print $2}' /proc/mounts | grep -F "$dir/" || true; } | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}

# Puts back the kernel settings saved by up (DIR/sysctl.saved, "name value" lines),
# unless another kubelet of ours still runs (it holds the same saved values, and the
# last one down restores them).
restore_sysctls() {
  local dir=$1 bin=$2 name value
  [ -f "$dir/sysctl.saved" ] || return 0
  [ -z "$(other_dirs "$dir" "$bin")" ] || return 0
  while read -r name value; do
    [ "$(sysctl -n "$name" 2>/dev/null)" = "$value" ] || sysctl -qw "$name=$value" >/dev/null 2>&1 || true
  done < "$dir/sysctl.saved"
}

# The symlinks the kubelet left in /var/log/containers for containers whose logs are
# under DIR, and the directory itself if up found it missing and it is now empty.
clean_legacy_logs() {
  local dir=$1 bin=$2
  [ -d "$LEGACY_LOG_DIR" ] || return 0
  find "$LEGACY_LOG_DIR" -maxdepth 1 -type l -lname "$dir/*" -delete 2>/dev/null || true
  [ -f "$dir/created-legacy-log-dir" ] && [ -z "$(other_dirs "$dir" "$bin")" ] && rmdir "$LEGACY_LOG_DIR" 2>/dev/null || true
}

# The directory of the kubelet binary, built first if missing.
peer_bin() {
  bash "$HERE/build.sh" path kubelet 2>/dev/null && return 0
  bash "$HERE/build.sh" kubelet >&2 && bash "$HERE/build.sh" path kubelet
}

healthz_ok() { [ "$(curl -sS -m 2 "http://127.0.0.1:$1/healthz" 2>/dev/null)" = ok ]; }
pods_ok() { curl -sS -m 2 --fail -o /dev/null "http://127.0.0.1:$1/pods" 2>/dev/null; }

# wait_for DIR WHAT CHECK...: poll CHECK until it succeeds, the kubelet dies, or the
# deadline passes; on failure stop the kubelet (DIR stays, for its log), print the
# log's tail and exit 1.
wait_for() {
  local dir=$1 what=$2; shift 2
  local end=$(( $(date +%s) + DEADLINE ))
  while ! "$@"; do
    local why=""
    still_ours our_pid "$dir" || why="exited"
    [ -z "$why" ] && [ "$(date +%s)" -ge "$end" ] && why="did not answer $what within ${DEADLINE}s"
    if [ -n "$why" ]; then
      echo "kubelet.sh: the kubelet $why; last lines of $dir/kubelet.log:" >&2
      tail -25 "$dir/kubelet.log" | sed 's/^/  /' >&2
      stop_kubelet "$dir"
      restore_sysctls "$dir" "$BIN"
      echo "kubelet.sh: stopped it; its log is in $dir (kubelet.sh down $dir removes it)" >&2
      exit 1
    fi
    sleep 0.05
  done
}

up() {
  local dir=$1 endpoint=$2 ro_port=$3 node=$4 cluster_dns=$5 cluster_domain=$6 kubeconfig=$7 extra=$8 bin
  command -v curl >/dev/null || die "curl missing (apt-get install curl)"
  command -v jq >/dev/null || die "jq missing (apt-get install jq)"
  [[ $endpoint == unix://* ]] || die "--runtime-endpoint unix://SOCKET is needed (containerd2.sh up prints it)"
  [ -S "${endpoint#unix://}" ] || die "no runtime socket at ${endpoint#unix://}"
  bin=$(peer_bin)/kubelet; BIN=$bin
  [ ! -e "$dir/kubelet.json" ] || die "$dir already holds a kubelet (kubelet.sh down $dir first)"
  dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
  mkdir -p "$dir/pods" "$dir/root" "$dir/pki" "$dir/logs" "$dir/volume-plugins"

  local healthz_port port
  [ -n "$ro_port" ] && TAKEN=" $ro_port " || ro_port=$(free_port)
  healthz_port=$(free_port); port=$(free_port)

  # The host's own values: from a kubelet of ours already running if there is one (the
  # current values are then that kubelet's), else as they are now.
  local name other
  other=$(other_dirs "$dir" "$bin" | head -1)
  if [ -n "$other" ] && [ -f "$other/sysctl.saved" ]; then
    cp "$other/sysctl.saved" "$dir/sysctl.saved"
    [ ! -f "$other/created-legacy-log-dir" ] || touch "$dir/created-legacy-log-dir"
  else
    for name in $SYSCTLS; do echo "$name $(sysctl -n "$name")"; done > "$dir/sysctl.saved"
    [ -d "$LEGACY_LOG_DIR" ] || touch "$dir/created-legacy-log-dir"
  fi

  # Why each setting (README.md has the errors seen without them):
  # - failCgroupV1: false: since 1.35 the kubelet refuses a cgroup v1 host without it.
  # - cgroupDriver: cgroupfs: no systemd here; it is also what containerd2.sh's
  #   containerd reports (RuntimeConfig), which the kubelet checks.
  # - cgroupsPerQOS: false, enforceNodeAllocatable: []: no kubepods/QoS cgroup tree
  #   (with it on the kubelet runs, but leaves kubepods/ in every v1 hierarchy of the
  #   host); the second must be empty when the first is off ([], not omitted: omitted
  #   defaults to [pods] and validation fails).
  # - failSwapOn: false: the kubelet refuses a host with swap on unless told (no swap
  #   here today; the setting keeps it from depending on that).
  # - oomScoreAdj: 0: its default -999 is refused here (permission denied on a negative
  #   oom_score_adj); the kubelet only logs that and goes on, 0 is what it gets anyway.
  # - address/healthzBindAddress 127.0.0.1: nothing listens beyond this machine;
  #   port (the HTTPS API, default 10250) is a free port too, so knode's may run.
  # - authentication anonymous, webhook off, authorization AlwaysAllow: the webhook
  #   modes need an apiserver.
  # - fileCheckFrequency 1s (default 20s): a manifest written is seen within a second
  #   (the directory is also watched with inotify; this is the fallback re-list).
  # - syncFrequency 10s (default 1m): the periodic re-sync of every pod comes sooner.
  # - makeIPTablesUtilChains: false: it would add KUBE-IPTABLES-HINT and KUBE-FIREWALL
  #   chains to the host's iptables, only for other components' benefit.
  # - podLogsDir, volumePluginDir under DIR: their defaults (/var/log/pods,
  #   /usr/libexec/kubernetes/...) are on the host.
  # - clusterDNS, clusterDomain (--cluster-dns, --cluster-domain): only when asked; the pods'
  #   resolv.conf (ClusterFirst) and the /etc/hosts name of a pod with a subdomain.
  cat > "$dir/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: $endpoint
imageServiceEndpoint: $endpoint
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
oomScoreAdj: 0
staticPodPath: $dir/pods
fileCheckFrequency: 1s
syncFrequency: 10s
address: 127.0.0.1
port: $port
readOnlyPort: $ro_port
healthzBindAddress: 127.0.0.1
healthzPort: $healthz_port
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
makeIPTablesUtilChains: false
podLogsDir: $dir/logs
volumePluginDir: $dir/volume-plugins
YAML
  [ -z "$cluster_dns" ] || echo "clusterDNS: [$cluster_dns]" >> "$dir/config.yaml"
  [ -z "$cluster_domain" ] || echo "clusterDomain: $cluster_domain" >> "$dir/config.yaml"
  [ -z "$extra" ] || cat "$extra" >> "$dir/config.yaml"

  local args=(--config "$dir/config.yaml" --root-dir "$dir/root" --cert-dir "$dir/pki" --v "$VERBOSITY")
  [ -n "$node" ] && args+=(--hostname-override "$node")
  [ -z "$kubeconfig" ] || args+=(--kubeconfig "$kubeconfig")
  local t0; t0=$(date +%s%N)
  # No fd of ours is left open in it, so whoever reads up's stdout is not held open.
  "$bin" "${args[@]}" > "$dir/kubelet.log" 2>&1 < /dev/null &
  echo $! > "$dir/kubelet.pid"
  wait_for "$dir" /healthz healthz_ok "$healthz_port"
  local t1; t1=$(date +%s%N)
  wait_for "$dir" /pods pods_ok "$ro_port"
  local t2; t2=$(date +%s%N)

  # The node name the kubelet took (static pods are named NAME-NODENAME): the override,
  # or the host name, lower-cased as the kubelet does.
  [ -n "$node" ] || node=$(hostname | tr '[:upper:]' '[:lower:]')
  jq -nc --arg dir "$dir" --argjson pid "$(our_pid "$dir")" --argjson ro "$ro_port" --argjson hz "$healthz_port" \
    --argjson port "$port" --arg node "$node" --arg bin "$bin" --arg version "$("$bin" --version | awk '{print $2}')" \
    --arg endpoint "$endpoint" --argjson healthzMs $(( (t1 - t0) / 1000000 )) --argjson podsMs $(( (t2 - t0) / 1000000 )) \
    '{pid: $pid, readOnlyPort: $ro, url: "http://127.0.0.1:\($ro)", podsUrl: "http://127.0.0.1:\($ro)/pods",
      healthz: "http://127.0.0.1:\($hz)/healthz", port: $port, podsDir: "\($dir)/pods", nodeName: $node,
      log: "\($dir)/kubelet.log", rootDir: "\($dir)/root", config: "\($dir)/config.yaml", dir: $dir,
      runtimeEndpoint: $endpoint, bin: $bin, version: $version, startMs: {healthz: $healthzMs, pods: $podsMs}}' \
    | tee "$dir/kubelet.json"
}

down() {
  local dir=$1
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  local bin
  bin=$(bash "$HERE/build.sh" path kubelet 2>/dev/null)/kubelet || bin=""
  stop_kubelet "$dir"
  unmount_under "$dir"
  restore_sysctls "$dir" "$bin"
  clean_legacy_logs "$dir" "$bin"
  rm -rf "$dir" 2>/dev/null || true
  [ ! -e "$dir" ] || echo "kubelet.sh: could not remove all of $dir" >&2
}

usage() { echo "usage: kubelet.sh up DIR --runtime-endpoint unix://SOCK [--port N] [--node-name NAME] [--cluster-dns IP] [--cluster-domain DOMAIN] [--kubeconfig FILE] [--config-extra FILE] | down DIR" >&2; exit 2; }

case "${1:-}" in
  up)
    [ -n "${2:-}" ] || usage
    dir=$2; shift 2
    endpoint="" ro_port="" node="" cluster_dns="" cluster_domain="" kubeconfig="" extra=""
    while [ $# -gt 0 ]; do
      case $1 in
        --runtime-endpoint) endpoint=${2:?--runtime-endpoint needs a value}; shift 2 ;;
        --port) ro_port=${2:?--port needs a value}; [[ $ro_port =~ ^[0-9]+$ ]] || die "--port $ro_port is not a number"; shift 2 ;;
        --node-name) node=${2:?--node-name needs a value}; shift 2 ;;
        --cluster-dns) cluster_dns=${2:?--cluster-dns needs a value}; shift 2 ;;
        --cluster-domain) cluster_domain=${2:?--cluster-domain needs a value}; shift 2 ;;
        --kubeconfig) kubeconfig=${2:?--kubeconfig needs a value}; [ -f "$kubeconfig" ] || die "no kubeconfig at $kubeconfig"; shift 2 ;;
        --config-extra) extra=${2:?--config-extra needs a value}; [ -f "$extra" ] || die "no file at $extra"; shift 2 ;;
        *) die "unknown option '$1'" ;;
      esac
    done
    [ -n "$endpoint" ] || usage
    up "$dir" "$endpoint" "$ro_port" "$node" "$cluster_dns" "$cluster_domain" "$kubeconfig" "$extra" ;;
  down) down "${2:?usage: kubelet.sh down DIR}" ;;
  *) usage ;;
esac
