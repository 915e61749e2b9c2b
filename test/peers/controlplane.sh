#!/usr/bin/env bash
# A real Kubernetes control plane on 127.0.0.1 for knode's tests: etcd and
# kube-apiserver (and, on request, kube-scheduler and kube-controller-manager),
# built by build.sh from the Go module proxy (peers `etcd` and `kube`). Same
# shape as containerd2.sh. See README.md beside this file for the flags and why.
#
#   controlplane.sh up DIR [--with-controllers]
#                       build the peers if needed, make a CA and certificates under
#                       DIR/pki (openssl), start etcd and kube-apiserver (plus the
#                       scheduler and controller manager with --with-controllers),
#                       wait until each answers, print one line of JSON: apiserver
#                       URL, admin kubeconfig, CA, kubectl, pids and ports
#   controlplane.sh node-kubeconfig DIR NODENAME
#                       write DIR/NODENAME.kubeconfig (client cert CN=system:node:NODENAME,
#                       O=system:nodes, signed by DIR's CA) and print its path
#   controlplane.sh join-token DIR [TTL]
#                       create a bootstrap token as `kubeadm token create` does (a Secret in
#                       kube-system, group system:bootstrappers:kubeadm:default-node-token,
#                       TTL a Go duration, 24h; 0 never expires) and print one line of JSON:
#                       token, caCertHash (sha256:<hex> of the CA's public key), apiserver
#   controlplane.sh restart-apiserver DIR
#                       stop the apiserver and start it again with the same flags (cuts
#                       every watch; resuming from an old resourceVersion gets 410)
#   controlplane.sh down DIR
#                       stop everything `up` started and remove DIR
#
# Environment: CONTROLPLANE_DEADLINE (seconds each component gets to answer, 60),
# CONTROLPLANE_TOLERATION_SECONDS (the not-ready/unreachable tolerationSeconds the
# apiserver gives every pod, i.e. how long after a node is NotReady/Unknown its
# pods are evicted; 30 here, upstream's default is 300), CONTROLPLANE_SIGNING_DURATION
# (the lifetime of the certificates the controller manager signs for CSRs, as its
# --cluster-signing-duration; 8760h, upstream's default).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DEADLINE=${CONTROLPLANE_DEADLINE:-60}
TOLERATION_SECONDS=${CONTROLPLANE_TOLERATION_SECONDS:-30}
SIGNING_DURATION=${CONTROLPLANE_SIGNING_DURATION:-8760h}
# Away from the 10.88/10.89 CNI ranges of the containerd scripts; the first address
# is the `kubernetes` Service's, so it goes into the serving certificate.
SERVICE_CIDR=10.96.0.0/16
SERVICE_IP=10.96.0.1
SA_ISSUER=https://kubernetes.default.svc.cluster.local   # kubeadm's default issuer

die() { echo "controlplane.sh: $*" >&2; exit 1; }

# ---- ports ---------------------------------------------------------------------
# free_port: a free TCP port on 127.0.0.1; names_dir: whether a pid is ours; still_ours (lib.sh).
source "$HERE/lib.sh"

# ---- certificates (openssl) ------------------------------------------------------
# ECDSA P-256 keys: each is made in milliseconds (RSA-2048 takes ~0.1 s apiece), and
# everything here accepts them: Go's TLS, the service-account token signer (ES256),
# the controller manager's CSR signer, Node's TLS.
new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; chmod 600 "$1"; }

# make_ca PKI [NAME]: NAME.key and a self-signed NAME.crt (NAME: ca).
make_ca() {
  local pki=$1 ca=${2:-ca}
  new_key "$pki/$ca.key"
  openssl req -x509 -new -key "$pki/$ca.key" -subj "/CN=knode-test-$ca" -days 3650 -out "$pki/$ca.crt" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,digitalSignature,keyCertSign,cRLSign" 2>/dev/null
}

# sign PKI NAME SUBJECT EXTENSIONS [CA]: NAME.key and NAME.crt signed by CA (ca). A
# random serial rather than a serial file, so node-kubeconfig can run concurrently.
sign() {
  local pki=$1 name=$2 subj=$3 ext=$4 ca=${5:-ca}
  new_key "$pki/$name.key"
  openssl req -new -key "$pki/$name.key" -subj "$subj" 2>/dev/null |
    openssl x509 -req -CA "$pki/$ca.crt" -CAkey "$pki/$ca.key" -set_serial "0x$(openssl rand -hex 16)" \
      -days 365 -out "$pki/$name.crt" -extfile <(printf '%s\n' "basicConstraints=critical,CA:FALSE" \
      "keyUsage=critical,digitalSignature" "$ext") 2>/dev/null
}
client_cert() { sign "$1" "$2" "$3" "extendedKeyUsage=clientAuth" "${4:-ca}"; }

# kubeconfig FILE SERVER PKI NAME: a kubeconfig with the CA and NAME's client cert
# embedded (so it stays valid on its own, and knode reads one file).
kubeconfig() {
  local file=$1 server=$2 pki=$3 name=$4
  cat > "$file" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: knode-test
  cluster:
    server: $server
    certificate-authority-data: $(base64 -w0 < "$pki/ca.crt")
users:
- name: $name
  user:
    client-certificate-data: $(base64 -w0 < "$pki/$name.crt")
    client-key-data: $(base64 -w0 < "$pki/$name.key")
contexts:
- name: $name@knode-test
  context: { cluster: knode-test, user: $name }
current-context: $name@knode-test
YAML
  chmod 600 "$file"
}

# ---- processes ---------------------------------------------------------------------
# start DIR NAME CMD...: run CMD in the background, log to DIR/NAME.log, pid to DIR/NAME.pid.
# No fd of ours is left open in it, so whoever reads up's stdout is not held open.
start() {
  local dir=$1 name=$2; shift 2
  "$@" > "$dir/$name.log" 2>&1 < /dev/null &
  echo $! > "$dir/$name.pid"
}

# A pid from DIR/NAME.pid, only if that process is still ours (names_dir, lib.sh).
our_pid() {
  local dir=$1 name=$2 pid
  [ -f "$dir/$name.pid" ] || return 1
  pid=$(cat "$dir/$name.pid")
  names_dir "$pid" "$dir" || return 1
  echo "$pid"
}

COMPONENTS=(kube-controller-manager kube-scheduler kube-apiserver etcd)   # stop order
stop_all() {
  local dir=$1 name pid pids=()
  for name in "${COMPONENTS[@]}"; do
    pid=$(our_pid "$dir" "$name") || continue
    kill "$pid" 2>/dev/null || true; pids+=("$pid")
  done
  [ ${#pids[@]} -gt 0 ] || return 0
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.05
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}

# wait_for DIR NAME CHECK...: poll CHECK (a command) until it succeeds, NAME's process
# dies, or the deadline passes; on failure stop everything (DIR stays, for its logs),
# print NAME's log tail and exit 1.
wait_for() {
  local dir=$1 name=$2; shift 2
  local end=$(( $(date +%s) + DEADLINE ))
  while ! "$@" >/dev/null 2>&1; do
    local why=""
    still_ours our_pid "$dir" "$name" || why="exited"
    [ -z "$why" ] && [ "$(date +%s)" -ge "$end" ] && why="did not answer within ${DEADLINE}s"
    if [ -n "$why" ]; then
      echo "controlplane.sh: $name $why; last lines of $dir/$name.log:" >&2
      tail -25 "$dir/$name.log" | sed 's/^/  /' >&2
      stop_all "$dir"
      echo "controlplane.sh: stopped what had started; logs are in $dir (controlplane.sh down $dir removes it)" >&2
      exit 1
    fi
    sleep 0.1
  done
}

# HTTPS to the apiserver as the admin (curl: no kubectl start-up cost in the loops).
api() { local dir=$1; shift; curl -sS --fail-with-body --cacert "$dir/pki/ca.crt" --cert "$dir/pki/admin.crt" --key "$dir/pki/admin.key" "$@"; }
api_ready() { [ "$(api "$1" "$2/readyz" 2>/dev/null)" = ok ]; }
healthz() { [ "$(curl -sSk "https://127.0.0.1:$1/healthz" 2>/dev/null)" = ok ]; }
etcd_ok() { curl -sS "http://127.0.0.1:$1/health" 2>/dev/null | grep -q '"health":"true"'; }
# api_create DIR URL JSON: POST an object; AlreadyExists (409) counts as done.
api_create() {
  local dir=$1 url=$2 body=$3 code
  code=$(api "$dir" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary "$body" "$url" 2>/dev/null) || true
  [ "$code" = 201 ] || [ "$code" = 409 ]
}
sa_exists() { api "$1" "$2/api/v1/namespaces/default/serviceaccounts/default" >/dev/null 2>&1; }

# The directory of a peer's binaries, built first if missing (`build.sh path` alone
# costs no Go call; `build.sh NAME` on a built peer still asks go for ~0.5 s).
peer_bin() {
  bash "$HERE/build.sh" path "$1" 2>/dev/null && return 0
  bash "$HERE/build.sh" "$1" >&2 && bash "$HERE/build.sh" path "$1"
}

up() {
  local dir=$1 controllers=$2 kube etcd_bin
  command -v openssl >/dev/null || die "openssl missing (apt-get install openssl)"
  command -v jq >/dev/null || die "jq missing (apt-get install jq)"
  command -v curl >/dev/null || die "curl missing (apt-get install curl)"
  kube=$(peer_bin kube)
  etcd_bin=$(peer_bin etcd)/etcd
  [ ! -e "$dir/controlplane.json" ] || die "$dir already holds a control plane (controlplane.sh down $dir first)"
  dir=$(mkdir -p "$dir" && cd "$dir" && pwd)
  local pki=$dir/pki; mkdir -p "$pki"

  local etcd_port etcd_peer api_port sched_port kcm_port url
  etcd_port=$(free_port); etcd_peer=$(free_port); api_port=$(free_port)
  sched_port=$(free_port); kcm_port=$(free_port)
  url=https://127.0.0.1:$api_port

  # etcd first: it needs no certificate, and starts while openssl works.
  # --unsafe-no-fsync: test data, and fsync is most of etcd's write latency on this VM's disk.
  start "$dir" etcd "$etcd_bin" --name knode-test --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "knode-test=http://127.0.0.1:$etcd_peer" --initial-cluster-state new \
    --unsafe-no-fsync --log-level warn

  make_ca "$pki"
  sign "$pki" apiserver "/CN=kube-apiserver" \
    "extendedKeyUsage=serverAuth
subjectAltName=IP:127.0.0.1,IP:$SERVICE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  client_cert "$pki" admin "/O=system:masters/CN=kubernetes-admin"
  # The apiserver's identity towards kubelets (logs, exec, port-forward): knode's
  # kubelet API sees this certificate, as a kubelet sees kubeadm's.
  client_cert "$pki" apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  # The front-proxy (request-header) CA and the apiserver's client cert under it, as
  # kubeadm makes them: the aggregation layer works, and the scheduler and controller
  # manager, which load this CA through --authentication-kubeconfig, find one (without
  # it they log "missing content for CA bundle ... requestheader-client-ca-file").
  make_ca "$pki" front-proxy-ca
  client_cert "$pki" front-proxy-client "/CN=front-proxy-client" front-proxy-ca
  new_key "$pki/sa.key"; openssl pkey -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  kubeconfig "$dir/admin.kubeconfig" "$url" "$pki" admin
  if [ "$controllers" = 1 ]; then
    # The identities the bootstrap RBAC policy binds their roles to.
    client_cert "$pki" kube-scheduler "/CN=system:kube-scheduler"
    client_cert "$pki" kube-controller-manager "/CN=system:kube-controller-manager"
    kubeconfig "$dir/kube-scheduler.kubeconfig" "$url" "$pki" kube-scheduler
    kubeconfig "$dir/kube-controller-manager.kubeconfig" "$url" "$pki" kube-controller-manager
  fi

  wait_for "$dir" etcd etcd_ok "$etcd_port"

  # --endpoint-reconciler-type none: the default (lease) reconciler refuses a loopback
  # advertise address ("cannot use public IP 127.0.0.1 with endpoint reconciler: ...
  # may not be in the loopback range"), as Endpoints validation does; with none the
  # `kubernetes` Service simply has no endpoints, which nothing here uses.
  local api_cmd=("$kube/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --endpoint-reconciler-type none \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" \
    --requestheader-client-ca-file "$pki/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$pki/front-proxy-client.crt" --proxy-client-key-file "$pki/front-proxy-client.key" \
    --service-account-issuer "$SA_ISSUER" \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --authorization-mode Node,RBAC \
    --enable-bootstrap-token-auth \
    --enable-admission-plugins NodeRestriction \
    --allow-privileged=true \
    --kubelet-client-certificate "$pki/apiserver-kubelet-client.crt" --kubelet-client-key "$pki/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types InternalIP,Hostname \
    --default-not-ready-toleration-seconds "$TOLERATION_SECONDS" \
    --default-unreachable-toleration-seconds "$TOLERATION_SECONDS")
  # Kept, so restart-apiserver starts the same apiserver again.
  printf '%s\0' "${api_cmd[@]}" > "$dir/kube-apiserver.cmd"
  start "$dir" kube-apiserver "${api_cmd[@]}"

  wait_for "$dir" kube-apiserver api_ready "$dir" "$url"
  if [ "$controllers" = 1 ]; then
    # Only once /readyz is ok: before the RBAC bootstrap is done, reading
    # kube-system/extension-apiserver-authentication (for --authentication-kubeconfig)
    # is forbidden and they exit instead of retrying.
    local k
    k=$dir/kube-scheduler.kubeconfig
    start "$dir" kube-scheduler "$kube/kube-scheduler" \
      --kubeconfig "$k" --authentication-kubeconfig "$k" --authorization-kubeconfig "$k" \
      --bind-address 127.0.0.1 --secure-port "$sched_port" --leader-elect=false
    # --use-service-account-credentials: each controller acts as its own ServiceAccount,
    # as in kubeadm's clusters. Node lifecycle shortened for tests: a node that stops
    # posting status is NotReady/Unknown after 20 s (default 50 s), checked every 2 s
    # (5 s); its pods are evicted after the apiserver's toleration seconds (above).
    # --flex-volume-plugin-dir: its default is /usr/libexec/kubernetes/kubelet-plugins/
    # volume/exec/, which it creates when missing.
    k=$dir/kube-controller-manager.kubeconfig
    start "$dir" kube-controller-manager "$kube/kube-controller-manager" \
      --kubeconfig "$k" --authentication-kubeconfig "$k" --authorization-kubeconfig "$k" \
      --bind-address 127.0.0.1 --secure-port "$kcm_port" --leader-elect=false \
      --use-service-account-credentials=true \
      --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt" \
      --cluster-signing-cert-file "$pki/ca.crt" --cluster-signing-key-file "$pki/ca.key" \
      --cluster-signing-duration "$SIGNING_DURATION" --controllers '*,bootstrapsigner,tokencleaner' \
      --node-monitor-period 2s --node-monitor-grace-period 20s --node-startup-grace-period 20s \
      --flex-volume-plugin-dir "$dir/flexvolume"
    wait_for "$dir" kube-scheduler healthz "$sched_port"
    wait_for "$dir" kube-controller-manager healthz "$kcm_port"
    # healthz answers before the controllers run; the default ServiceAccount appearing
    # shows the serviceaccount controller (and the token it uses) at work.
    wait_for "$dir" kube-controller-manager sa_exists "$dir" "$url"
    bootstrap_objects "$dir" "$url"
  else
    # What the controller manager would do, and pods need: the ServiceAccount admission
    # plugin refuses a pod whose ServiceAccount (here `default`) is missing, and the
    # token volume it adds projects the kube-root-ca.crt ConfigMap.
    # Retried: the `default` namespace itself appears shortly after /readyz.
    wait_for "$dir" kube-apiserver api_create "$dir" "$url/api/v1/namespaces/default/serviceaccounts" \
      '{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}'
    wait_for "$dir" kube-apiserver api_create "$dir" "$url/api/v1/namespaces/default/configmaps" \
      "$(jq -nc --rawfile ca "$pki/ca.crt" '{apiVersion:"v1",kind:"ConfigMap",metadata:{name:"kube-root-ca.crt"},data:{"ca.crt":$ca}}')"
  fi

  pid_of() { our_pid "$dir" "$1" || echo null; }
  jq -nc --arg dir "$dir" --arg url "$url" --arg kc "$dir/admin.kubeconfig" --arg ca "$pki/ca.crt" \
    --arg kubectl "$kube/kubectl" --arg bin "$kube" --arg version "$("$kube/kube-apiserver" --version | awk '{print $2}')" \
    --argjson ep "$etcd_port" --argjson epid "$(pid_of etcd)" --argjson ap "$api_port" --argjson apid "$(pid_of kube-apiserver)" \
    --argjson ctl "$controllers" --argjson sp "$sched_port" --argjson spid "$(pid_of kube-scheduler)" \
    --argjson kp "$kcm_port" --argjson kpid "$(pid_of kube-controller-manager)" \
    '{apiserver: $url, kubeconfig: $kc, ca: $ca, kubectl: $kubectl, bin: $bin, version: $version, dir: $dir,
      etcd: {url: "http://127.0.0.1:\($ep)", port: $ep, pid: $epid},
      kubeApiserver: {port: $ap, pid: $apid}}
     + (if $ctl == 1 then {kubeScheduler: {port: $sp, pid: $spid}, kubeControllerManager: {port: $kp, pid: $kpid}} else {} end)' \
    | tee "$dir/controlplane.json"
}

# ---- bootstrap tokens (what kubeadm init and kubeadm token create make) -----------------
BOOTSTRAP_GROUP=system:bootstrappers:kubeadm:default-node-token

# bootstrap_objects DIR URL: the objects a node joining with a bootstrap token needs.
# cluster-info in kube-public (the apiserver's URL and CA, which the controller manager's
# bootstrapsigner signs with each token), readable anonymously; the token's group may
# create CSRs, which the csrapproving controller approves; nodes may renew their own.
bootstrap_objects() {
  local dir=$1 url=$2 cluster_info
  cluster_info=$(printf 'apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    certificate-authority-data: %s\n    server: %s\ncontexts: null\ncurrent-context: ""\npreferences: {}\nusers: null\n' \
    "$(base64 -w0 < "$dir/pki/ca.crt")" "$url")
  api_create "$dir" "$url/api/v1/namespaces/kube-public/configmaps" \
    "$(jq -nc --arg k "$cluster_info" '{apiVersion:"v1",kind:"ConfigMap",metadata:{name:"cluster-info",namespace:"kube-public"},data:{kubeconfig:$k}}')"
  api_create "$dir" "$url/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles" \
    '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"kubeadm:bootstrap-signer-clusterinfo","namespace":"kube-public"},"rules":[{"apiGroups":[""],"resources":["configmaps"],"resourceNames":["cluster-info"],"verbs":["get"]}]}'
  api_create "$dir" "$url/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/rolebindings" \
    '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"kubeadm:bootstrap-signer-clusterinfo","namespace":"kube-public"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"kubeadm:bootstrap-signer-clusterinfo"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"system:anonymous"}]}'
  local binding role group
  for binding in "kubeadm:kubelet-bootstrap system:node-bootstrapper $BOOTSTRAP_GROUP" \
    "kubeadm:node-autoapprove-bootstrap system:certificates.k8s.io:certificatesigningrequests:nodeclient $BOOTSTRAP_GROUP" \
    "kubeadm:node-autoapprove-certificate-rotation system:certificates.k8s.io:certificatesigningrequests:selfnodeclient system:nodes"; do
    read -r binding role group <<< "$binding"
    api_create "$dir" "$url/apis/rbac.authorization.k8s.io/v1/clusterrolebindings" \
      "$(jq -nc --arg n "$binding" --arg r "$role" --arg g "$group" '{apiVersion:"rbac.authorization.k8s.io/v1",kind:"ClusterRoleBinding",metadata:{name:$n},roleRef:{apiGroup:"rbac.authorization.k8s.io",kind:"ClusterRole",name:$r},subjects:[{apiGroup:"rbac.authorization.k8s.io",kind:"Group",name:$g}]}')" \
      || die "cannot create ClusterRoleBinding $binding"
  done
}

# join_token DIR [TTL]: a new bootstrap token's Secret; prints token, CA hash and URL.
join_token() {
  local dir=$1 ttl=${2:-24h} id secret url expiration=null seconds
  [ -f "$dir/controlplane.json" ] || die "no control plane in $dir (controlplane.sh up $dir)"
  dir=$(cd "$dir" && pwd)
  url=$(jq -r .apiserver "$dir/controlplane.json")
  # tr ends on SIGPIPE once head has its characters: that status is not a failure.
  id=$(LC_ALL=C tr -dc 'a-z0-9' < /dev/urandom | head -c 6 || true)
  secret=$(LC_ALL=C tr -dc 'a-z0-9' < /dev/urandom | head -c 16 || true)
  if [ "$ttl" != 0 ]; then
    case $ttl in *h) seconds=$(( ${ttl%h} * 3600 )) ;; *m) seconds=$(( ${ttl%m} * 60 )) ;; *s) seconds=${ttl%s} ;; *) die "TTL '$ttl': give it as 24h, 30m or 90s" ;; esac
    expiration="\"$(date -u -d "+$seconds seconds" +%Y-%m-%dT%H:%M:%SZ)\""
  fi
  api_create "$dir" "$url/api/v1/namespaces/kube-system/secrets" \
    "$(jq -nc --arg id "$id" --arg s "$secret" --arg g "$BOOTSTRAP_GROUP" --argjson e "$expiration" \
      '{apiVersion:"v1",kind:"Secret",type:"bootstrap.kubernetes.io/token",metadata:{name:"bootstrap-token-\($id)",namespace:"kube-system"},
        stringData:({"token-id":$id,"token-secret":$s,"usage-bootstrap-authentication":"true","usage-bootstrap-signing":"true",
          "auth-extra-groups":$g,description:"made by controlplane.sh join-token"} + (if $e == null then {} else {expiration:$e} end))}')" \
    || die "cannot create the token's Secret"
  jq -nc --arg t "$id.$secret" --arg h "sha256:$(openssl x509 -in "$dir/pki/ca.crt" -pubkey -noout | openssl pkey -pubin -outform der | sha256sum | cut -d' ' -f1)" \
    --arg u "$url" '{token:$t, caCertHash:$h, apiserver:$u}'
}

node_kubeconfig() {
  local dir=$1 node=$2 url
  [ -f "$dir/controlplane.json" ] || die "no control plane in $dir (controlplane.sh up $dir)"
  dir=$(cd "$dir" && pwd)
  [[ $node =~ ^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$ ]] || die "'$node' is not a valid node name"
  case $node in admin|kube-scheduler|kube-controller-manager) die "'$node' would overwrite DIR/$node.kubeconfig" ;; esac
  url=$(jq -r .apiserver "$dir/controlplane.json")
  # The Node authorizer and NodeRestriction know a kubelet by exactly this identity.
  client_cert "$dir/pki" "node-$node" "/O=system:nodes/CN=system:node:$node"
  kubeconfig "$dir/$node.kubeconfig" "$url" "$dir/pki" "node-$node"
  echo "$dir/$node.kubeconfig"
}

# Stops the apiserver and starts it again with the same flags: every watch is cut,
# and the new apiserver's watch cache begins at etcd's current revision, so a
# client resuming from an older resourceVersion gets 410 Gone and must relist.
restart_apiserver() {
  local dir=$1 pid cmd=()
  dir=$(cd "$dir" && pwd)
  [ -f "$dir/kube-apiserver.cmd" ] || die "no control plane in $dir (controlplane.sh up $dir)"
  if pid=$(our_pid "$dir" kube-apiserver); then
    kill "$pid"
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  mapfile -d '' cmd < "$dir/kube-apiserver.cmd"
  start "$dir" kube-apiserver "${cmd[@]}"
  wait_for "$dir" kube-apiserver api_ready "$dir" "$(jq -r .apiserver "$dir/controlplane.json")"
}

down() {
  local dir=$1
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  stop_all "$dir"
  rm -rf "$dir"
}

case "${1:-}" in
  up)
    [ -n "${2:-}" ] || die "usage: controlplane.sh up DIR [--with-controllers]"
    case "${3:-}" in
      "") up "$2" 0 ;;
      --with-controllers) up "$2" 1 ;;
      *) die "unknown option '$3' (known: --with-controllers)" ;;
    esac ;;
  join-token) join_token "${2:?usage: controlplane.sh join-token DIR [TTL]}" "${3:-24h}" ;;
  restart-apiserver) restart_apiserver "${2:?usage: controlplane.sh restart-apiserver DIR}" ;;
  node-kubeconfig) node_kubeconfig "${2:?usage: controlplane.sh node-kubeconfig DIR NODENAME}" "${3:?usage: controlplane.sh node-kubeconfig DIR NODENAME}" ;;
  down) down "${2:?usage: controlplane.sh down DIR}" ;;
  *) echo "usage: controlplane.sh up DIR [--with-controllers] | node-kubeconfig DIR NODENAME | join-token DIR [TTL] | restart-apiserver DIR | down DIR" >&2; exit 2 ;;
esac
