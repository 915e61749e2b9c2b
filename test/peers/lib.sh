# Shared by the peer scripts (sourced, not run). The sourcing script defines die().

# A free TCP port on 127.0.0.1, below the ephemeral range (32768-60999 here) so an
# outgoing connection cannot take it between this check and the bind. Ports handed
# out once are not handed out again by the same script.
TAKEN=" "
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$(( 20000 + RANDOM % 12000 ))
    [[ $TAKEN == *" $p "* ]] && continue
    if [ -z "$(ss -Htln "sport = :$p" 2>/dev/null)" ]; then TAKEN="$TAKEN$p "; echo "$p"; return 0; fi
  done
  die "no free port found"
}

# names_dir PID DIR: whether process PID is ours, one of its arguments DIR or a path under
# it, so a stale pid file never kills a stranger. Until a component started in the
# background has exec'd, it is still the script's subshell, whose argument is DIR itself
# (a busy machine saw that window, and `up` took it for an exit).
names_dir() {
  [ -r "/proc/$1/cmdline" ] && tr '\0' '\n' < "/proc/$1/cmdline" 2>/dev/null | awk -v d="$2" '$0 == d || index($0, d "/") { found = 1 } END { exit !found }'
}

# still_ours LOOKUP...: whether LOOKUP (a pid look-up built on names_dir) finds the process,
# asked again 0.2 s later before saying no: while a component execs, its /proc/PID/cmdline
# reads empty for a moment (the kernel sets it once the new program is mapped), and a busy
# machine saw `up` take that for an exit, the component's log empty.
still_ours() {
  "$@" >/dev/null && return 0
  sleep 0.2
  "$@" >/dev/null
}
