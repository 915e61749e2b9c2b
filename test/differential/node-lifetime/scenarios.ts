// What the node-lifetime differential runs (README.md of test/differential,
// "Node lifetime"): the log rotation settings both agents get, a pod whose
// container writes about 200 KiB of log a second, and a pod whose container
// exits at once under restartPolicy Always.
import { pod, sh, type Scenario } from '../scenario-parts.js';

/** The rotation settings: rotate past 1 MiB, keep 3 files (the current one and two rotated), look every 10 s. */
export const LOG_MAX_SIZE = 1024 * 1024;
export const LOG_MAX_FILES = 3;
export const LOG_MONITOR_SECONDS = 10;

/** The kubelet's KubeletConfiguration fields for them (kubelet.sh --config-extra). */
export const KUBELET_CONFIG = [
  'containerLogMaxSize: 1Mi',
  `containerLogMaxFiles: ${LOG_MAX_FILES}`,
  `containerLogMonitorInterval: ${LOG_MONITOR_SECONDS}s`,
  '',
].join('\n');

/** knode's flags for the same. */
export const KNODE_ARGS = [
  '--container-log-max-size',
  '1Mi',
  '--container-log-max-files',
  String(LOG_MAX_FILES),
  '--container-log-monitor-interval',
  `${LOG_MONITOR_SECONDS}s`,
];

/** Lines a batch writes, each `b=<batch> ` and 100 zeros; a batch every 0.1 s. */
export const BATCH_LINES = 150;

/**
 * About 200 KiB of log a second: 150 lines of 108 bytes (148 in the CRI log
 * file, with its timestamp, stream and tag) every 0.1 s, each line naming its
 * batch, so the newest batch a log read returns can be told.
 */
export const LOGGER: Scenario = {
  name: 'logger',
  what: 'a container writing about 200 KiB of log lines a second',
  spec: pod([
    sh('writer', `pad=$(printf '%0100d' 0); n=0; while true; do n=$((n+1)); yes "b=$n $pad" | head -n ${BATCH_LINES}; sleep 0.1; done`),
  ]),
};

/** A container that exits at once, restarted under Always: its back-off (10 s, 20 s, 40 s) leaves a dead instance each round. */
export const CRASHER: Scenario = {
  name: 'crasher',
  what: 'a container that exits 1 at once under restartPolicy Always',
  spec: pod([sh('crash', 'exit 1')], { restartPolicy: 'Always' }),
};

/** The kubelet's ContainerGCPeriod (pkg/kubelet/kubelet.go), knode's CONTAINER_GC_PERIOD: a pass at start and every minute. */
export const GC_PERIOD_MS = 60_000;
