import type { Setting } from './settings.js';

/**
 * The settings of a node that runs for months, in the one table's order
 * (SETTINGS spreads them in): the container log manager's rotation, and the
 * image garbage collector's thresholds and ages, with the kubelet's names
 * and defaults.
 */
export const LIFETIME_SETTINGS: readonly Setting[] = [
  {
    field: 'containerLogMaxSize',
    name: 'containerLogMaxSize',
    file: true,
    flag: 'container-log-max-size',
    commands: ['run'],
    type: 'quantity',
    default: 10 * 1024 * 1024,
    description: "A container's log file size at which it is rotated (a quantity such as 10Mi; negative: never rotate)",
  },
  {
    field: 'containerLogMaxFiles',
    name: 'containerLogMaxFiles',
    file: true,
    flag: 'container-log-max-files',
    commands: ['run'],
    type: 'int',
    default: 5,
    description: 'How many log files a container keeps, the current one and the rotated ones (more than 1)',
  },
  {
    field: 'containerLogMonitorInterval',
    name: 'containerLogMonitorInterval',
    file: true,
    flag: 'container-log-monitor-interval',
    commands: ['run'],
    type: 'duration',
    default: 10_000,
    description: "How often the running containers' log sizes are checked for rotation (Go duration, at least 3s)",
  },
  {
    field: 'containerLogMaxWorkers',
    name: 'containerLogMaxWorkers',
    file: true,
    flag: 'container-log-max-workers',
    commands: ['run'],
    type: 'int',
    default: 1,
    description: 'How many container logs are rotated at once (at least 1)',
  },
  {
    field: 'imageGCHighThresholdPercent',
    name: 'imageGCHighThresholdPercent',
    file: true,
    flag: 'image-gc-high-threshold',
    commands: ['run'],
    type: 'int',
    default: 85,
    description:
      "The image filesystem's usage (percent) at or above which unused images are collected (0-100; 100 with imageMaximumGCAge 0: never)",
  },
  {
    field: 'imageGCLowThresholdPercent',
    name: 'imageGCLowThresholdPercent',
    file: true,
    flag: 'image-gc-low-threshold',
    commands: ['run'],
    type: 'int',
    default: 80,
    description: "The image filesystem's usage (percent) image garbage collection frees down to (0-100, below imageGCHighThresholdPercent)",
  },
  {
    field: 'imageMinimumGCAge',
    name: 'imageMinimumGCAge',
    file: true,
    flag: 'minimum-image-ttl-duration',
    commands: ['run'],
    type: 'duration',
    default: 120_000,
    description: 'How long an unused image is kept after it was first seen before it may be collected',
  },
  {
    field: 'imageMaximumGCAge',
    name: 'imageMaximumGCAge',
    file: true,
    commands: [],
    type: 'duration',
    default: 0,
    description: 'How long an image may stay unused before it is collected whatever the disk usage (0: never; more than imageMinimumGCAge)',
  },
];
