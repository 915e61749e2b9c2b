#!/usr/bin/env bash
# Runs the CRI conformance suite (critest, from cri-tools: build.sh critest)
# against the embedded runtime, offline: a local registry (test/registry) is
# seeded with stand-ins for the images critest pulls, built with umoci from
# Debian's busybox (and nginx) under the names critest asks for (cri-tools' images/build),
# and the runtime uses it as the mirror of the registries critest names.
#
#   critest.sh DIR [--sandbox auto|off] [--network pod|host] [-- CRITEST_ARGS...]
#
# Pods get a pod network (--network pod, the default): a CNI configuration
# with Debian's bridge and host-local plugins on a bridge of its own, as
# containerd is configured for conformance; with --network host none is
# configured and pods share the host's network.
#
# Writes DIR/report.json (ginkgo's JSON report of every spec), DIR/critest.log and
# DIR/runtime.log; exits with critest's status. The registry and the runtime
# are stopped at the end; DIR stays for reading.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
# Bump when the images change, so a cached build is not reused.
IMAGES_VERSION=9

dir=${1:?usage: critest.sh DIR [--sandbox auto|off] [--network pod|host] [-- CRITEST_ARGS...]}
shift
sandbox=auto
network=pod
BRIDGE=knode-crt0
while [ $# -gt 0 ]; do
  case $1 in
    --sandbox) sandbox=${2:?--sandbox needs auto or off}; shift 2 ;;
    --network) network=${2:?--network needs pod or host}; shift 2 ;;
    --) shift; break ;;
    *) echo "critest.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

critest_dir=$(bash "$HERE/build.sh" path critest)
# Kubernetes' own nonewprivs program (build.sh nonewprivs), for its image.
nnp=$(bash "$HERE/build.sh" path nonewprivs)/nonewprivs

# A busybox root file system with an /etc/passwd and /etc/group as busybox's
# own image has them (www-data is 33), its applets hard links as there (critest
# masks /bin/ls with /dev/null, which through a symlink would mask busybox).
# The busybox is Debian's dynamic one (package busybox, with the libraries it
# links against): like upstream's image, its shell runs programs from PATH
# (busybox-static runs its own applets first, so a masked /bin/ls still ran).
rootfs() {
  local r=$1
  mkdir -p "$r/bin" "$r/etc" "$r/tmp" "$r/var/www"
  host_program "$r" "$BUSYBOX_DEB_DIR/bin/busybox"
  for applet in $("$r/bin/busybox" --list); do [ "$applet" = busybox ] || ln -f "$r/bin/busybox" "$r/bin/$applet"; done
  printf 'root:x:0:0:root:/root:/bin/sh\nwww-data:x:33:33:www-data:/var/www:/bin/false\nnobody:x:65534:65534:nobody:/home:/bin/false\n' > "$r/etc/passwd"
  printf 'root:x:0:\nwww-data:x:33:\nnobody:x:65534:\n' > "$r/etc/group"
  # Upstream's busybox has pgrep and ipcs applets, Debian's has not: the host's
  # (procps, util-linux) stand in, with the libraries they link against.
  local program
  for program in pgrep ipcs; do host_program "$r" "$(command -v "$program" || true)"; done
}

# host_program ROOT PATH: copies the program at PATH to ROOT/bin, and what ldd
# says it needs to the same paths under ROOT (nothing when PATH is empty).
host_program() {
  local r=$1 program=$2 lib
  [ -n "$program" ] || return 0
  cp "$program" "$r/bin/$(basename "$program")"
  for lib in $(ldd "$program" | grep -o '/[^ ]*'); do
    mkdir -p "$r$(dirname "$lib")"
    cp -L "$lib" "$r$lib"
  done
}

# image LAYOUT TAG [FILE] [SETUP-FUNCTION]: a one-layer busybox image; FILE (a
# name) is added at / as cri-tools' image-test does, so tags with different
# files are different images.
image() {
  local layout=$1 tag=$2 file=${3:-} setup=${4:-} b
  b=$(mktemp -d)
  [ -d "$layout" ] || umoci init --layout "$layout" >/dev/null
  umoci new --image "$layout:$tag" >/dev/null
  umoci unpack --rootless --image "$layout:$tag" "$b/b" >/dev/null
  rootfs "$b/b/rootfs"
  [ -z "$file" ] || : > "$b/b/rootfs/$file"
  [ -z "$setup" ] || "$setup" "$b/b/rootfs"
  umoci repack --image "$layout:$tag" "$b/b" >/dev/null
  umoci config --image "$layout:$tag" --config.env=PATH=/usr/sbin:/usr/bin:/sbin:/bin --config.cmd=sh >/dev/null
  rm -rf "$b"
}

predefined_group() { # images/image-predefined-group: default-user (1000) also in group 50000
  echo 'default-user:x:1000:1000::/home/default-user:/bin/sh' >> "$1/etc/passwd"
  printf 'default-user:x:1000:\ngroup-defined-in-image:x:50000:default-user\n' >> "$1/etc/group"
  mkdir -p "$1/home/default-user"
}

# images/nonewprivs: its program setuid root at /usr/local/bin/nnp, as its Dockerfile puts it.
nonewprivs_program() { mkdir -p "$1/usr/local/bin"; cp "$nnp" "$1/usr/local/bin/nnp"; chmod 4755 "$1/usr/local/bin/nnp"; }

web_root() { mkdir -p "$1/usr/share/nginx/html"; echo '<h1>Welcome to nginx!</h1>' > "$1/usr/share/nginx/html/index.html"; }

# images/nginx: Debian's nginx (its package, downloaded and unpacked, not installed: no
# service starts on the host), with the libraries it links against, a configuration as the
# e2e image's (port 80, its pid in /var/run/nginx.pid) and the directories it writes to.
nginx_server() {
  local r=$1
  web_root "$r"
  mkdir -p "$r/usr/sbin" "$r/etc/nginx" "$r/var/log/nginx" "$r/var/run" "$r/var/lib/nginx/body" "$r/var/lib/nginx/proxy" \
    "$r/var/lib/nginx/fastcgi" "$r/var/lib/nginx/uwsgi" "$r/var/lib/nginx/scgi"
  host_program "$r" "$NGINX_DEB_DIR/usr/sbin/nginx"
  mv "$r/bin/nginx" "$r/usr/sbin/nginx"
  cat > "$r/etc/nginx/nginx.conf" <<'CONF'
user www-data;
worker_processes 1;
pid /var/run/nginx.pid;
error_log stderr;
events { worker_connections 64; }
http {
  access_log off;
  server { listen 80; root /usr/share/nginx/html; }
}
CONF
}

# deb_dir PACKAGE: a directory holding Debian's PACKAGE unpacked (apt-get download; the
# package lists are brought up to date first if it fails; nothing is installed).
deb_dir() {
  local d; d=$(mktemp -d)
  if ! (cd "$d" && apt-get download -q "$1" >/dev/null 2>&1); then
    apt-get update -qq >/dev/null 2>&1 || true
    (cd "$d" && apt-get download -q "$1" >/dev/null 2>&1) || { echo "critest.sh: cannot download Debian's $1 package (apt-get download $1)" >&2; return 1; }
  fi
  dpkg-deb -x "$d/$1"_*.deb "$d/x"
  echo "$d/x"
}

build_images() {
  local out=$1 oci
  rm -rf "$out"; mkdir -p "$out"; oci=$out/oci
  BUSYBOX_DEB_DIR=$(deb_dir busybox)
  NGINX_DEB_DIR=$(deb_dir nginx)
  image "$oci" busybox
  # Images of their own, so that each has only its own tags (critest counts them).
  image "$oci" pause pause
  image "$oci" nonewprivs "" nonewprivs_program
  umoci config --image "$oci:nonewprivs" --config.env=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --config.cmd=nnp >/dev/null
  for n in 1 2 3 latest; do image "$oci" "test-image-$n" "test-image-$n"; done
  image "$oci" same-image same-image
  for t in test all; do image "$oci" "tag-$t" "$t"; done
  # images/image-user: busybox with USER set.
  image "$oci" user-uid && umoci config --image "$oci:user-uid" --config.user=1002 >/dev/null
  image "$oci" user-username && umoci config --image "$oci:user-username" --config.user=www-data >/dev/null
  image "$oci" user-uid-group && umoci config --image "$oci:user-uid-group" --config.user=1003:1004 >/dev/null
  image "$oci" user-username-group && umoci config --image "$oci:user-username-group" --config.user=www-data:1004 >/dev/null
  image "$oci" predefined-group "" predefined_group && umoci config --image "$oci:predefined-group" --config.user=1000 >/dev/null
  # Web servers: Debian's nginx where critest's is nginx (port 80; it writes /var/run/nginx.pid,
  # which critest's namespace tests read), busybox httpd for its httpd and for the
  # host-network one (port 12003).
  image "$oci" web "" nginx_server
  umoci config --image "$oci:web" --config.cmd=/usr/sbin/nginx --config.cmd=-g --config.cmd='daemon off;' >/dev/null
  # critest looks for "httpd" in the httpd container's log.
  image "$oci" httpd "" web_root
  umoci config --image "$oci:httpd" --config.cmd=sh --config.cmd=-c --config.cmd='echo "httpd: serving on port 80"; exec httpd -f -p 80 -h /usr/share/nginx/html' >/dev/null
  image "$oci" hostnet-web "" web_root
  umoci config --image "$oci:hostnet-web" --config.cmd=httpd --config.cmd=-f --config.cmd=-p --config.cmd=12003 --config.cmd=-h --config.cmd=/usr/share/nginx/html >/dev/null
  rm -rf "$(dirname "$BUSYBOX_DEB_DIR")" "$(dirname "$NGINX_DEB_DIR")"
  echo "$IMAGES_VERSION" > "$out/version"
}

images_dir() {
  local cache=${KNODE_CACHE_DIR:-$HOME/.cache/knode}/critest-images
  mkdir -p "$(dirname "$cache")"
  exec 8>"$cache.lock"
  flock 8
  if [ "$(cat "$cache/version" 2>/dev/null)" != "$IMAGES_VERSION" ]; then build_images "$cache"; fi
  flock -u 8
  echo "$cache"
}

rm -rf "$dir"; mkdir -p "$dir"
images=$(images_dir)
registry=$(bash "$REPO/test/registry/registry.sh" up "$dir/registry")
host=$(printf '%s' "$registry" | jq -r .host)
runtime_pid=
# critest sets the hostname from a privileged container on the host's network, which is the host's,
# and its network-management specs add a bridge "foobar" (brctl addbr), there without a pod network:
# both are undone, and so is the pod network's bridge, and the namespaces of pods left running.
host_name=$(hostname)
had_foobar=$(ip link show foobar >/dev/null 2>&1 && echo yes || echo no)
cleanup() {
  [ "$(hostname)" = "$host_name" ] || hostname "$host_name" || true
  [ "$had_foobar" = yes ] || ip link delete foobar 2>/dev/null || true
  [ -z "$runtime_pid" ] || { kill "$runtime_pid" 2>/dev/null || true; wait "$runtime_pid" 2>/dev/null || true; }
  local ns
  for ns in "$dir"/root/runtime/netns/*; do [ -e "$ns" ] || continue; umount "$ns" 2>/dev/null || true; rm -f "$ns"; done
  [ "$network" != pod ] || ip link delete "$BRIDGE" 2>/dev/null || true
  bash "$REPO/test/registry/registry.sh" down "$dir/registry" || true
}
trap cleanup EXIT

# Under the names critest asks for (read from its source; cri-tools' images/build for
# what they hold), in one local registry that the runtime uses as the mirror of
# registry.k8s.io, k8s.gcr.io and gcr.io. (critest's --registry-prefix is not used: it
# pulls the prefixed name without its tag, then creates containers from the name as
# given.) test-image-digest@sha256:9700f9… cannot be made here: its digest is that of
# upstream's manifest.
push() { skopeo copy -q --dest-tls-verify=false "oci:$images/oci:$1" "docker://$host/$2"; }
s=k8s-staging-cri-tools
push busybox e2e-test-images/busybox:1.29-2
push pause pause:3.9
push web e2e-test-images/nginx:1.14-2
push httpd e2e-test-images/httpd:2.4.39-4
push nonewprivs e2e-test-images/nonewprivs:1.3
push hostnet-web "$s/hostnet-nginx-amd64:latest"
for n in 1 2 3 latest; do push "test-image-$n" "$s/test-image-$n:latest"; done
for t in 1 2 3; do push same-image "$s/test-image-tags:$t"; done
for t in test all; do push "tag-$t" "$s/test-image-tag:$t"; done
push user-uid "$s/test-image-user-uid:latest"
push user-username "$s/test-image-user-username:latest"
push user-uid-group "$s/test-image-user-uid-group:latest"
push user-username-group "$s/test-image-user-username-group:latest"
push predefined-group "$s/test-image-predefined-group:latest"

root=$dir/root
mkdir -p "$root"
{
  echo 'registries:'
  for r in registry.k8s.io k8s.gcr.io gcr.io; do printf '  %s:\n    mirrors: ["http://%s"]\n    server: none\n' "$r" "$host"; done
  printf '  "%s":\n    insecure: true\n' "$host"
} > "$root/registries.yaml"
if [ "$network" = pod ]; then
  mkdir -p "$root/cni/net.d"
  cat > "$root/cni/net.d/10-critest.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "critest",
  "plugins": [
    { "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "10.90.0.0/24" }]], "routes": [{ "dst": "0.0.0.0/0" }], "dataDir": "$dir/ipam" } }
  ]
}
JSON
fi
node "$REPO/bin/run.js" runtime serve --root-dir "$root" --sandbox "$sandbox" > "$dir/runtime.log" 2>&1 &
runtime_pid=$!
for _ in $(seq 1 300); do [ -S "$root/run/runtime.sock" ] && break; sleep 0.1; done
[ -S "$root/run/runtime.sock" ] || { echo "critest.sh: the runtime did not start; its log:" >&2; tail -20 "$dir/runtime.log" >&2; exit 1; }

set +e
"$critest_dir/critest" --runtime-endpoint "unix://$root/run/runtime.sock" --ginkgo.json-report "$dir/report.json" --ginkgo.no-color "$@" > "$dir/critest.log" 2>&1
rc=$?
set -e
echo "critest.sh: critest exited $rc; $dir/critest.log, $dir/report.json" >&2
exit $rc
