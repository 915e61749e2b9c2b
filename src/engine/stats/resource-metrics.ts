import type { Summary } from './types.js';

/**
 * The kubelet's /metrics/resource: CPU and memory of the node, pods and
 * containers in the Prometheus text format, with the names metrics-server
 * scrapes for `kubectl top` (each sample carries its time in milliseconds).
 */
export function resourceMetrics(summary: Summary): string {
  const families: Record<string, { help: string; type: 'counter' | 'gauge'; samples: string[] }> = {
    container_cpu_usage_seconds_total: {
      help: '[STABLE] Cumulative cpu time consumed by the container in core-seconds',
      type: 'counter',
      samples: [],
    },
    container_memory_working_set_bytes: { help: '[STABLE] Current working set of the container in bytes', type: 'gauge', samples: [] },
    container_start_time_seconds: { help: '[STABLE] Start time of the container since unix epoch in seconds', type: 'gauge', samples: [] },
    node_cpu_usage_seconds_total: {
      help: '[STABLE] Cumulative cpu time consumed by the node in core-seconds',
      type: 'counter',
      samples: [],
    },
    node_memory_working_set_bytes: { help: '[STABLE] Current working set of the node in bytes', type: 'gauge', samples: [] },
    pod_cpu_usage_seconds_total: { help: '[STABLE] Cumulative cpu time consumed by the pod in core-seconds', type: 'counter', samples: [] },
    pod_memory_working_set_bytes: { help: '[STABLE] Current working set of the pod in bytes', type: 'gauge', samples: [] },
    resource_scrape_error: {
      help: '[STABLE] 1 if there was an error while getting container metrics, 0 otherwise',
      type: 'gauge',
      samples: [],
    },
  };
  const add = (name: string, labels: Record<string, string>, value: number | undefined, time?: string) => {
    if (value === undefined) return;
    const l = Object.entries(labels)
      .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
      .join(',');
    families[name].samples.push(`${name}${l ? `{${l}}` : ''} ${value}${time ? ` ${Date.parse(time)}` : ''}`);
  };
  const { node } = summary;
  add('node_cpu_usage_seconds_total', {}, seconds(node.cpu?.usageCoreNanoSeconds), node.cpu?.time);
  add('node_memory_working_set_bytes', {}, node.memory?.workingSetBytes, node.memory?.time);
  for (const pod of summary.pods) {
    const p = { namespace: pod.podRef.namespace, pod: pod.podRef.name };
    add('pod_cpu_usage_seconds_total', p, seconds(pod.cpu?.usageCoreNanoSeconds), pod.cpu?.time);
    add('pod_memory_working_set_bytes', p, pod.memory?.workingSetBytes, pod.memory?.time);
    for (const c of pod.containers) {
      const labels = { container: c.name, ...p };
      add('container_cpu_usage_seconds_total', labels, seconds(c.cpu?.usageCoreNanoSeconds), c.cpu?.time);
      add('container_memory_working_set_bytes', labels, c.memory?.workingSetBytes, c.memory?.time);
      add('container_start_time_seconds', labels, Date.parse(c.startTime) / 1000);
    }
  }
  add('resource_scrape_error', {}, 0);
  return Object.entries(families)
    .map(([name, f]) => [`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`, ...f.samples].join('\n'))
    .join('\n')
    .concat('\n');
}

function seconds(ns: number | undefined): number | undefined {
  return ns === undefined ? undefined : ns / 1e9;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}
