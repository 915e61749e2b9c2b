/**
 * V8 flags the knode CLI starts with (bin/run.js's shebang; a unit test keeps
 * them equal): a young generation of 1 MiB semi-spaces instead of V8's
 * 16 MiB. The node agent's garbage is small and short-lived, and the larger
 * nursery only kept memory resident. The heap's layout is fixed when the
 * process starts, so this one flag cannot wait; src/cli/boot.ts gives it its
 * default back at once (the heap keeps its layout), because any flag off its
 * default makes V8 refuse Node's own code cache of its built-in modules.
 * The embedded runtime knode starts runs without it: the small nursery
 * slowed its StartContainer. Its spawner (runtime/spawner/), which only forks
 * and writes logs, runs with it and with HEAP_GROWING_FLAG. Figures:
 * bench/notes/kubelet-side-by-side.md, bench/notes/cri-and-startup.md and
 * bench/notes/density.md.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/**
 * The old generation grown by half after each full collection, where V8 lets
 * a busy process's grow up to fourfold: a burst of pods had the heap grow far
 * past what it kept, and the pages stayed resident after it. V8 reads it at
 * each collection, so the node sets it at run time, once its code has loaded
 * (src/cli/boot.ts).
 */
export const HEAP_GROWING_FLAG = '--heap-growing-percent=50';

/**
 * Each V8 flag knode sets, and the setting that gives it its default back
 * (V8 hashes only the flags off their defaults, and refuses a code cache made
 * under another hash).
 */
export const V8_FLAG_DEFAULTS: Readonly<Record<string, string>> = {
  '--max-semi-space-size=1': '--max-semi-space-size=0',
  '--heap-growing-percent=50': '--heap-growing-percent=0',
  '--no-opt': '--opt',
  '--no-sparkplug': '--sparkplug',
};

/**
 * glibc's malloc tunables bin/run.js's shebang sets (as GLIBC_TUNABLES, in
 * place of any the caller set), which the runtime knode starts inherits: a
 * fixed threshold of 128 KiB for mmap and for trimming the heap's top (glibc
 * raises the mmap threshold to the largest block freed, up to 32 MiB, after
 * which such blocks stay in the heap) and two arenas instead of eight per
 * core (each of libuv's and V8's threads otherwise takes one, and keeps what
 * it freed). With them, a churn leaves knode's RSS lower on the emptied
 * node, and its peak is lower too (bench/notes/churn.md).
 */
export const MALLOC_TUNABLES = 'glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2';
