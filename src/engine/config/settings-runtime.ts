import type { Setting } from './settings.js';

/**
 * How the node follows its runtime and paces what it asks of it, knode's own
 * settings (flags only): the PLEG's mode, periods and health threshold, and
 * the sandboxes asked for at once. Part of the one settings table
 * (settings.ts), in the order `--print-config` prints them.
 */
export const RUNTIME_SETTINGS: readonly Setting[] = [
  {
    field: 'eventedPleg',
    name: 'pleg',
    file: false,
    flag: 'pleg',
    commands: ['run', 'apply', 'delete'],
    type: 'enum',
    options: { evented: true, relist: false },
    default: true,
    description:
      'evented: runtime container events trigger relists of the pod (falls back to relist when the runtime has none); relist: relist every --pleg-relist-period only',
  },
  {
    field: 'plegRelistPeriod',
    name: 'plegRelistPeriod',
    file: false,
    flag: 'pleg-relist-period',
    commands: ['run', 'apply', 'delete'],
    type: 'duration',
    default: 1_000,
    description: 'Period of the full PLEG relist (Go duration)',
  },
  {
    field: 'plegEventedRelistPeriod',
    name: 'plegEventedRelistPeriod',
    file: false,
    commands: [],
    type: 'duration',
    default: 30_000,
    description: "The full relist period while container events arrive (a safety net), and the longest a pod's sync holds back its events",
  },
  {
    field: 'plegRelistThreshold',
    name: 'plegRelistThreshold',
    file: false,
    flag: 'pleg-relist-threshold',
    commands: ['run', 'apply', 'delete'],
    type: 'duration',
    default: 180_000,
    description: 'How long without a finished relist before the PLEG, and so the node, is unhealthy (Go duration)',
  },
  {
    field: 'maxParallelSandboxStarts',
    name: 'maxParallelSandboxStarts',
    file: false,
    flag: 'max-parallel-sandbox-starts',
    commands: ['run', 'apply'],
    type: 'int',
    default: 4,
    description:
      'Pod sandboxes asked of the runtime at once, at most (0: no bound), so that in a burst the first pods start first; a sandbox that takes over 5s stops counting, so a hanging network plugin delays no other pod for longer',
  },
];
