import { POD_COMMANDS } from './complete-pods.js';

// The shell code `knode autocomplete:script` adds after oclif's: oclif's
// completion scripts are generated once and static, so pod names come from
// a hook that asks `knode __complete pods` at each TAB in a pod's place and
// hands every other TAB to oclif's function.

/** The first words of the commands that take a pod (`describe pod` starts with describe). */
const FIRST_WORDS = [...new Set(Object.keys(POD_COMMANDS).map((id) => id.split(':')[0]))].sort();

/** The hook for a shell, calling BIN; empty for a shell without one (powershell). */
export function completionHook(shell: string, bin: string): string {
  const fn = `_${bin.replaceAll('-', '_')}`;
  const commands = FIRST_WORDS.join('|');
  if (shell === 'bash')
    return `
${fn}_pods_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}" words candidates
  read -ra words <<< "$line"
  [[ "$line" =~ [[:space:]]$ ]] && words+=("")
  case "\${words[1]}" in
    ${commands})
      if candidates=$(${bin} __complete pods -- "\${words[@]:1}" 2>/dev/null); then
        COMPREPLY=()
        [[ -n "$candidates" ]] && mapfile -t COMPREPLY <<< "$candidates"
        if [[ "\${words[1]}" == cp ]]; then
          # POD: takes no space after it; a local path is as good a side of cp.
          compopt -o nospace 2>/dev/null
          mapfile -t -O "\${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "\${words[-1]}")
        else
          compopt +o default 2>/dev/null
          # A lone TYPE/ (deployments/) goes on with its name: no space after it.
          [[ \${#COMPREPLY[@]} -eq 1 && "\${COMPREPLY[0]}" == */ ]] && compopt -o nospace 2>/dev/null
        fi
        return 0
      fi ;;
  esac
  ${fn}_autocomplete
  # oclif's list names a topic once for each command under it (describe pod, describe job…): each name once.
  local -A seen=()
  local reply=() c
  for c in "\${COMPREPLY[@]}"; do [[ -n "$c" && -z "\${seen[$c]}" ]] && seen[$c]=1 && reply+=("$c"); done
  COMPREPLY=("\${reply[@]}")
}
complete -o default -F ${fn}_pods_complete ${bin} # ${bin} pod names
`;
  if (shell === 'zsh')
    return `
${fn}_pods_complete() {
  local -a candidates
  local out
  case "\${words[2]}" in
    ${commands})
      if out=$(${bin} __complete pods -- "\${(@)words[2,CURRENT]}" 2>/dev/null); then
        candidates=(\${(f)out})
        if [[ "\${words[2]}" == cp ]]; then
          compadd -S '' -- "\${(@)candidates}"
          _files
        else
          # TYPE/ (deployments/) goes on with its name: no space after it.
          compadd -S '' -- "\${(@M)candidates:#*/}"
          compadd -- "\${(@)candidates:#*/}"
        fi
        return 0
      fi ;;
  esac
  ${fn} "$@"
}
compdef ${fn}_pods_complete ${bin} # ${bin} pod names
`;
  return '';
}
