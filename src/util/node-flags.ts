/**
 * V8 flags the knode CLI runs with (bin/run.js's shebang; a unit test keeps
 * them equal), for `knode run` above all: a young generation of 1 MiB
 * semi-spaces instead of V8's 16 MiB. The node agent's garbage is small and
 * short-lived, and the larger nursery only kept tens of MiB resident (beside
 * the kubelet: peak RSS 1.06-1.15x instead of 1.3-1.4x). The embedded
 * runtime knode starts runs without them: its StartContainer took 46 ms
 * instead of 40 at the median with them (bench/README). Its spawner
 * (runtime/spawner/), which only forks and writes logs, runs with them.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];
