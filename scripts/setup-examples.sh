#!/usr/bin/env bash
# Readies the embedded runtime for the examples with real images in
# bubblewrap sandboxes: installs bubblewrap, busybox-static and umoci when
# run as root (apt-get), turns real images on for the root dir (an empty
# registries.yaml: images come from their registries), and imports the
# examples' image, busybox:1.36, built locally, so no registry is needed.
# Without those packages the examples still run, as host processes.
#
#   bash scripts/setup-examples.sh [ROOT_DIR]     (default: $KNODE_ROOT_DIR or ~/.knode)
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-${KNODE_ROOT_DIR:-$HOME/.knode}}
knode=./bin/run.js

missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
[ -x /bin/busybox ] || missing+=(busybox-static)
command -v umoci >/dev/null || missing+=(umoci)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup-examples.sh: ${missing[*]} missing (apt-get install ${missing[*]} as root); the examples run as host processes" >&2
    exit 0
  fi
fi

mkdir -p "$root"
if [ ! -e "$root/registries.yaml" ]; then
  cat > "$root/registries.yaml" <<'YAML'
# Real images for the embedded runtime (written by scripts/setup-examples.sh).
# Mirrors and insecure registries go here, e.g.:
# registries:
#   docker.io:
#     mirrors: ["http://127.0.0.1:5000"]
#   "127.0.0.1:5000":
#     insecure: true
YAML
fi
# A runtime started before registries.yaml existed still keeps image records: restart it.
if "$knode" runtime status --root-dir "$root" 2>/dev/null | grep -q '^Image store: *records'; then
  "$knode" runtime stop --root-dir "$root" >/dev/null
fi
archive=$(bash scripts/busybox-image.sh)
"$knode" image import "$archive" --base-name docker.io/library/busybox --root-dir "$root" >/dev/null
"$knode" runtime status --root-dir "$root" | grep -E '^(Isolation|Image store):' >&2
