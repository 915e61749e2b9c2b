#!/usr/bin/env bash
# mirror-hosts.sh DIR: with KNODE_REGISTRY_MIRROR=HOST:PORT (the tests' local
# registry, test/registry/registry.sh), writes DIR/certs.d/docker.io/hosts.toml
# so that a containerd whose registry config_path is DIR/certs.d resolves and
# pulls docker.io images there, over plain HTTP, and nowhere else (as the
# embedded runtime's `server: none`): a missing tag is the registry's "not
# found", not a failure to reach Docker Hub. Without it, nothing.
set -euo pipefail
dir=$1
[ -n "${KNODE_REGISTRY_MIRROR:-}" ] || exit 0
mkdir -p "$dir/certs.d/docker.io"
cat > "$dir/certs.d/docker.io/hosts.toml" <<TOML
server = "http://$KNODE_REGISTRY_MIRROR"
[host."http://$KNODE_REGISTRY_MIRROR"]
  capabilities = ["pull", "resolve"]
TOML
