/**
 * V8 flags every long-lived knode process runs with (bin/run.js's shebang
 * says the same; a unit test keeps them equal). A young generation of 1 MiB
 * semi-spaces instead of V8's 16 MiB: knode's garbage is small and short-lived,
 * and the larger nursery only kept tens of MiB resident (100 pods: 105 MiB peak
 * instead of 132, 81 MiB idle instead of 127; CPU the same).
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];
