#!/usr/bin/env bash
# A real OCI registry for knode's image tests: Debian's docker-registry
# (distribution 2.8) on 127.0.0.1, seeded with images built with umoci from
# busybox-static and pushed with skopeo.
#
#   registry.sh up DIR     start it under DIR, seed it, print JSON: {url, host, storage, images}
#   registry.sh down DIR   stop it and remove DIR
#
# The images (repository → what it is for):
#   library/busybox:1.36              OCI index: linux/amd64 (the host's busybox) and linux/arm64 (same
#                                     layer, arm64 config), Cmd `sleep infinity` — platform selection
#   library/busybox-entrypoint:1.0    Docker v2 schema 2 manifest, Entrypoint [/bin/echo, entrypoint], Cmd [hello]
#   library/busybox-user:1.0          User 1000:1000, WorkingDir /home/app
#   library/busybox-layers:1.0        3 layers: busybox; /data/{kept,removed,opaque/old}; a hand-made layer
#                                     with /data/.wh.removed, /data/opaque/.wh..wh..opq, /data/opaque/new
#   library/busybox-corrupt:1.0       busybox + a one-file layer whose blob is overwritten in the
#                                     registry's storage after the push: its digest no longer matches
#   library/evil:1.0                  one layer holding `../escape`, pushed by hand through the registry API
set -euo pipefail

BUSYBOX=/bin/busybox
# Bump when the images change, so a cached build is not reused.
IMAGES_VERSION=1

need() {
  local missing=()
  command -v docker-registry >/dev/null || missing+=(docker-registry)
  command -v skopeo >/dev/null || missing+=(skopeo)
  command -v umoci >/dev/null || missing+=(umoci)
  command -v jq >/dev/null || missing+=(jq)
  command -v curl >/dev/null || missing+=(curl)
  [ -x "$BUSYBOX" ] || missing+=(busybox-static)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "registry.sh: missing ${missing[*]}; install: apt-get install ${missing[*]} (or: bash test/containerd/containerd.sh install)" >&2
    exit 1
  fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# A root filesystem with busybox and its applets, as the base of every image.
busybox_rootfs() {
  local rootfs=$1
  mkdir -p "$rootfs/bin" "$rootfs/tmp" "$rootfs/etc"
  cp "$BUSYBOX" "$rootfs/bin/busybox"
  for applet in $("$BUSYBOX" --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"
  done
}

# new_image LAYOUT TAG: a one-layer busybox image with PATH set.
new_image() {
  local layout=$1 tag=$2 bundle
  bundle=$(mktemp -d)
  [ -d "$layout" ] || umoci init --layout "$layout" >/dev/null
  umoci new --image "$layout:$tag" >/dev/null
  umoci unpack --rootless --image "$layout:$tag" "$bundle/b" >/dev/null
  busybox_rootfs "$bundle/b/rootfs"
  umoci repack --image "$layout:$tag" "$bundle/b" >/dev/null
  umoci config --image "$layout:$tag" --config.env=PATH=/bin --config.workingdir=/ >/dev/null
  rm -rf "$bundle"
}

blob_of() { # blob_of LAYOUT FILE → sha256:HEX after storing FILE as a blob
  local layout=$1 file=$2 hex
  hex=$(sha256sum "$file" | cut -d' ' -f1)
  cp "$file" "$layout/blobs/sha256/$hex"
  echo "sha256:$hex"
}

build_images() {
  local out=$1 work
  work=$(mktemp -d)
  local oci=$work/oci

  # busybox:1.36 for amd64, then an arm64 twin, then an index over both.
  new_image "$oci" amd64
  umoci config --image "$oci:amd64" --config.cmd=sleep --config.cmd=infinity >/dev/null
  umoci config --image "$oci:amd64" --tag arm64 --architecture arm64 >/dev/null
  local amd arm index
  amd=$(jq -c '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"]=="amd64") | del(.annotations) + {platform:{os:"linux",architecture:"amd64"}}' "$oci/index.json")
  arm=$(jq -c '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"]=="arm64") | del(.annotations) + {platform:{os:"linux",architecture:"arm64",variant:"v8"}}' "$oci/index.json")
  # arm64 first: a client that takes the first entry instead of matching the platform gets the wrong one.
  jq -n --argjson a "$arm" --argjson b "$amd" '{schemaVersion:2, mediaType:"application/vnd.oci.image.index.v1+json", manifests:[$a,$b]}' > "$work/index.json"
  index=$(blob_of "$oci" "$work/index.json")
  jq --arg d "$index" --argjson s "$(stat -c %s "$work/index.json")" \
    '.manifests += [{mediaType:"application/vnd.oci.image.index.v1+json", digest:$d, size:$s, annotations:{"org.opencontainers.image.ref.name":"busybox"}}]' \
    "$oci/index.json" > "$work/top.json" && mv "$work/top.json" "$oci/index.json"

  new_image "$oci" entrypoint
  umoci config --image "$oci:entrypoint" --config.entrypoint=/bin/echo --config.entrypoint=entrypoint --config.cmd=hello >/dev/null

  new_image "$oci" user
  local bundle=$work/user-bundle
  umoci unpack --rootless --image "$oci:user" "$bundle" >/dev/null
  mkdir -p "$bundle/rootfs/home/app"
  echo 'app:x:1000:1000::/home/app:/bin/sh' > "$bundle/rootfs/etc/passwd"
  umoci repack --image "$oci:user" "$bundle" >/dev/null
  umoci config --image "$oci:user" --config.user=1000:1000 --config.workingdir=/home/app \
    --config.cmd=/bin/sh --config.cmd=-c --config.cmd='id -u; pwd' >/dev/null

  new_image "$oci" layers
  bundle=$work/layers-bundle
  umoci unpack --rootless --image "$oci:layers" "$bundle" >/dev/null
  mkdir -p "$bundle/rootfs/data/opaque"
  echo kept > "$bundle/rootfs/data/kept"
  echo removed > "$bundle/rootfs/data/removed"
  echo old > "$bundle/rootfs/data/opaque/old"
  umoci repack --image "$oci:layers" "$bundle" >/dev/null
  mkdir -p "$work/wh/data/opaque"
  : > "$work/wh/data/.wh.removed"
  : > "$work/wh/data/opaque/.wh..wh..opq"
  echo new > "$work/wh/data/opaque/new"
  echo added > "$work/wh/data/added"
  tar -C "$work/wh" --owner=0 --group=0 -cf "$work/wh.tar" data
  umoci raw add-layer --image "$oci:layers" "$work/wh.tar" >/dev/null

  new_image "$oci" corrupt
  echo "this layer's blob is overwritten in the registry" > "$work/marker"
  umoci insert --image "$oci:corrupt" "$work/marker" /corrupt-marker >/dev/null

  # The escaping layer: GNU tar keeps `../` only with -P.
  mkdir -p "$work/evil"
  echo escaped > "$work/evil/escape"
  tar -C "$work/evil" -P --transform 's,^escape,../escape,' --owner=0 --group=0 -cf "$work/evil.tar" escape
  gzip -n "$work/evil.tar"

  rm -rf "$out"
  mkdir -p "$out"
  mv "$oci" "$out/oci"
  mv "$work/evil.tar.gz" "$out/evil-layer.tar.gz"
  echo "$IMAGES_VERSION" > "$out/version"
  rm -rf "$work"
}

images_dir() {
  local cache=${KNODE_CACHE_DIR:-$HOME/.cache/knode}/registry-images
  mkdir -p "$(dirname "$cache")"
  # Test files start registries in parallel: one builds, the others wait for it.
  exec 9>"$cache.lock"
  flock 9
  if [ "$(cat "$cache/version" 2>/dev/null)" != "$IMAGES_VERSION" ]; then build_images "$cache"; fi
  flock -u 9
  echo "$cache"
}

# Pushes one blob through the registry API (monolithic upload).
push_blob() {
  local url=$1 repo=$2 file=$3 digest location
  digest=sha256:$(sha256sum "$file" | cut -d' ' -f1)
  location=$(curl -fsS -X POST -D - -o /dev/null "$url/v2/$repo/blobs/uploads/" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
  case "$location" in http*) ;; *) location=$url$location ;; esac
  case "$location" in *\?*) location="$location&digest=$digest" ;; *) location="$location?digest=$digest" ;; esac
  curl -fsS -X PUT -H 'Content-Type: application/octet-stream' --data-binary "@$file" "$location" >/dev/null
  echo "$digest"
}

push_evil() {
  local url=$1 layer=$2 work config_digest layer_digest diff_id
  work=$(mktemp -d)
  diff_id=sha256:$(gzip -dc "$layer" | sha256sum | cut -d' ' -f1)
  jq -n --arg d "$diff_id" '{architecture:"amd64", os:"linux", config:{Cmd:["/escape"]}, rootfs:{type:"layers", diff_ids:[$d]}}' > "$work/config.json"
  config_digest=$(push_blob "$url" library/evil "$work/config.json")
  layer_digest=$(push_blob "$url" library/evil "$layer")
  jq -n --arg c "$config_digest" --argjson cs "$(stat -c %s "$work/config.json")" --arg l "$layer_digest" --argjson ls "$(stat -c %s "$layer")" \
    '{schemaVersion:2, mediaType:"application/vnd.oci.image.manifest.v1+json",
      config:{mediaType:"application/vnd.oci.image.config.v1+json", digest:$c, size:$cs},
      layers:[{mediaType:"application/vnd.oci.image.layer.v1.tar+gzip", digest:$l, size:$ls}]}' > "$work/manifest.json"
  curl -fsS -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' --data-binary "@$work/manifest.json" \
    "$url/v2/library/evil/manifests/1.0" >/dev/null
  rm -rf "$work"
}

up() {
  local dir=$1 port images host
  need
  images=$(images_dir)
  mkdir -p "$dir/storage"
  port=$(free_port)
  host=127.0.0.1:$port
  cat > "$dir/config.yml" <<YAML
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $dir/storage
  delete:
    enabled: true
http:
  addr: $host
YAML
  docker-registry serve "$dir/config.yml" > "$dir/registry.log" 2>&1 &
  echo $! > "$dir/registry.pid"
  for _ in $(seq 1 200); do curl -fsS "http://$host/v2/" >/dev/null 2>&1 && break; sleep 0.05; done
  if ! curl -fsS "http://$host/v2/" >/dev/null 2>&1; then
    echo "registry.sh: docker-registry did not start; its log:" >&2
    tail -20 "$dir/registry.log" >&2
    exit 1
  fi
  local copy=(skopeo copy -q --dest-tls-verify=false)
  "${copy[@]}" --all "oci:$images/oci:busybox" "docker://$host/library/busybox:1.36"
  "${copy[@]}" --format v2s2 "oci:$images/oci:entrypoint" "docker://$host/library/busybox-entrypoint:1.0"
  "${copy[@]}" "oci:$images/oci:user" "docker://$host/library/busybox-user:1.0"
  "${copy[@]}" "oci:$images/oci:layers" "docker://$host/library/busybox-layers:1.0"
  "${copy[@]}" "oci:$images/oci:corrupt" "docker://$host/library/busybox-corrupt:1.0"
  # Overwrite the corrupt image's own (last) layer in the registry's storage: it is served as it is.
  local corrupt_layer
  corrupt_layer=$(jq -r '.layers[-1].digest' "$images/oci/blobs/sha256/$(jq -r '.manifests[] | select(.annotations["org.opencontainers.image.ref.name"]=="corrupt") | .digest' "$images/oci/index.json" | cut -d: -f2)" | cut -d: -f2)
  local data=$dir/storage/docker/registry/v2/blobs/sha256/${corrupt_layer:0:2}/$corrupt_layer/data
  gzip -dc "$data" | sed 's/overwritten/OVERWRITTEN/' | gzip -n > "$dir/corrupt" && cat "$dir/corrupt" > "$data" && rm "$dir/corrupt"
  push_evil "http://$host" "$images/evil-layer.tar.gz"
  jq -n --arg url "http://$host" --arg host "$host" --arg storage "$dir/storage" '{url:$url, host:$host, storage:$storage, images:{
    busybox: "\($host)/library/busybox:1.36",
    entrypoint: "\($host)/library/busybox-entrypoint:1.0",
    user: "\($host)/library/busybox-user:1.0",
    layers: "\($host)/library/busybox-layers:1.0",
    corrupt: "\($host)/library/busybox-corrupt:1.0",
    evil: "\($host)/library/evil:1.0"}}'
}

down() {
  local dir=$1
  [ -d "$dir" ] || return 0
  if [ -f "$dir/registry.pid" ]; then
    kill "$(cat "$dir/registry.pid")" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$(cat "$dir/registry.pid")" 2>/dev/null || break; sleep 0.05; done
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  up) up "${2:?usage: registry.sh up DIR}" ;;
  down) down "${2:?usage: registry.sh down DIR}" ;;
  *) echo "usage: registry.sh up DIR | down DIR" >&2; exit 2 ;;
esac
