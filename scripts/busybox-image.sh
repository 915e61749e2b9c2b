#!/usr/bin/env bash
# busybox:1.36 as an OCI layout tarball, built from Debian's busybox-static
# with umoci (every applet linked, PATH=/bin, `sleep infinity` as its command),
# for machines without a registry: the examples' image and the one the tests
# import into containerd. Built once into the cache; prints the tarball's path.
#
#   scripts/busybox-image.sh        (needs busybox-static and umoci)
set -euo pipefail

cache=${KNODE_CACHE_DIR:-$HOME/.cache/knode}
out=$cache/busybox-oci.tar
if [ -s "$out" ]; then
  echo "$out"
  exit 0
fi
for need in /bin/busybox umoci; do
  command -v "$need" >/dev/null || { echo "busybox-image.sh: $need is missing (apt-get install busybox-static umoci)" >&2; exit 1; }
done
mkdir -p "$cache"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
umoci init --layout "$work/oci" >/dev/null
umoci new --image "$work/oci:1.36" >/dev/null
umoci unpack --rootless --image "$work/oci:1.36" "$work/bundle" >/dev/null
mkdir -p "$work/bundle/rootfs/bin" "$work/bundle/rootfs/tmp" "$work/bundle/rootfs/etc"
cp /bin/busybox "$work/bundle/rootfs/bin/busybox"
for applet in $(/bin/busybox --list); do
  [ "$applet" = busybox ] || ln -sf busybox "$work/bundle/rootfs/bin/$applet"
done
umoci repack --image "$work/oci:1.36" "$work/bundle" >/dev/null
umoci config --image "$work/oci:1.36" --config.cmd=sleep --config.cmd=infinity \
  --config.env=PATH=/bin --config.workingdir=/ >/dev/null
tar -C "$work/oci" -cf "$out.partial" .
mv "$out.partial" "$out"
echo "$out"
