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

/**
 * glibc's malloc tunables bin/run.js's shebang sets (as GLIBC_TUNABLES, in
 * place of any the caller set), which the runtime knode starts inherits: a
 * fixed threshold of 128 KiB for mmap and for trimming the heap's top (glibc
 * raises the mmap threshold to the largest block freed, up to 32 MiB, after
 * which such blocks stay in the heap) and two arenas instead of eight per
 * core (each of libuv's and V8's threads otherwise takes one, and keeps what
 * it freed). In a churn of 100 pods/s for 30 s knode's RSS on the emptied
 * node went from 101.0 to 112.9 MiB without them, from 89.6 to 94.1 with
 * them (peak 268 and 220 MiB; bench/README.md).
 */
export const MALLOC_TUNABLES = 'glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2';
