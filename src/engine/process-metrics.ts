import { readdirSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The process's own footprint, read when /metrics is scraped: the kubelet's
 * `process_*` metrics (what Prometheus's process collector gives a Go
 * program), and in place of its `go_memstats_*` the V8 heap, so that a
 * resident size can be told apart from what JavaScript holds.
 */
export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers,
    collect() {
      const { user, system } = process.cpuUsage();
      this.reset();
      this.inc((user + system) / 1e6);
    },
  });
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  new Gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since unix epoch in seconds.',
    registers,
    collect() {
      this.set(startTime);
    },
  });
  new Gauge({
    name: 'process_open_fds',
    help: 'Number of open file descriptors.',
    registers,
    collect() {
      this.set(openFds());
    },
  });
  new Gauge({
    name: 'nodejs_heap_size_total_bytes',
    help: 'V8 heap committed, in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage().heapTotal);
    },
  });
  new Gauge({
    name: 'nodejs_heap_size_used_bytes',
    help: 'V8 heap in use by live and not yet collected objects, in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage().heapUsed);
    },
  });
  new Gauge({
    name: 'nodejs_external_memory_bytes',
    help: 'Memory outside the V8 heap held by JavaScript objects (buffers), in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage().external);
    },
  });
  new Gauge({
    name: 'nodejs_heap_space_size_committed_bytes',
    help: 'V8 heap committed, in bytes, by space.',
    labelNames: ['space'],
    registers,
    collect() {
      this.reset();
      for (const s of getHeapSpaceStatistics()) this.set({ space: s.space_name.replace(/_space$/, '') }, s.physical_space_size);
    },
  });
}

function openFds(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}
