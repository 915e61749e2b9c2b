import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Event } from '../../../src/engine/api/cluster.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import { describePod } from '../../../src/ui/describe-pod.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const pod = JSON.parse(fixture('describe-pod.json')) as Pod;
const now = Date.parse('2026-12-01T12:00:00Z');
const ago = (s: number) => new Date(now - s * 1000).toISOString().replace('.000Z', 'Z');

// kubectl prints times in the local zone: the expectations are in UTC.
let zone: string | undefined;
beforeAll(() => {
  zone = process.env.TZ;
  process.env.TZ = 'UTC';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('knode describe pod', () => {
  it('lays a pod out as kubectl describe pod does', () => {
    const out = describePod(pod, undefined, now);
    // Column 0 aligns across the pod's own fields up to the first line without a tab.
    expect(out).toMatch(/^Name: {13}web-n1\nNamespace: {8}shop\nPriority: {9}0\nService Account: {2}default\nNode: {13}n1\/10\.0\.0\.5\n/);
    expect(out).toContain('Start Time:       Tue, 01 Dec 2026 10:00:01 +0000\n');
    expect(out).toContain('Labels:           app=web\n                  tier=front\n');
    // Multi-line annotations go on lines of their own; last-applied-configuration is left out.
    expect(out).toContain(
      'Annotations:      kubernetes.io/config.source: file\n                  note:\n                    a line\n                    and another\n',
    );
    expect(out).not.toContain('last-applied');
    expect(out).toContain('IPs:\n  IP:           10.88.0.7\nControlled By:  ReplicaSet/web-5d8f\nInit Containers:\n');
    expect(out).toContain('    Ports:         8080/TCP (http), 9090/UDP\n    Host Ports:    0/TCP (http), 19090/UDP\n');
    expect(out).toContain('    Args:\n      while true; do\n        sleep 1\n      done\n');
    expect(out).toContain(
      [
        '    State:          Waiting',
        '      Reason:       CrashLoopBackOff',
        '    Last State:     Terminated',
        '      Reason:       Error',
        '      Message:      killed',
        '      Exit Code:    137',
        '      Signal:       9',
        '      Started:      Tue, 01 Dec 2026 10:05:00 +0000',
        '      Finished:     Tue, 01 Dec 2026 10:05:07 +0000',
        '    Ready:          False',
        '    Restart Count:  4',
        '    Limits:',
        '      cpu:     500m',
        '      memory:  128Mi',
        '    Requests:',
        '      cpu:      250m',
        '      memory:   64Mi',
        '    Liveness:   http-get http://:8080/healthz delay=3s timeout=1s period=10s successThreshold=1 failureThreshold=3',
        '    Readiness:  tcp-socket :8080 delay=0s timeout=2s period=5s successThreshold=1 failureThreshold=3',
        '    Startup:    exec [cat /tmp/ok] delay=0s timeout=1s period=10s successThreshold=1 failureThreshold=30',
        '',
      ].join('\n'),
    );
    expect(out).toContain(
      [
        '    Environment:',
        '      PLAIN:      one',
        '      POD_NAME:   web-n1 (v1:metadata.name)',
        "      APP_LABEL:  web (v1:metadata.labels['app'])",
        '      MEM:        128Mi (limits.memory)',
        '      CPU_LIMIT:  500m (limits.cpu)',
        "      TOKEN:      <set to the key 'token' in secret 'creds'>        Optional: false",
        "      MODE:       <set to the key 'mode' of config map 'settings'>  Optional: true",
        '    Mounts:',
        '      /etc/app from config (ro,path="app")',
        '      /var/data from data (rw)',
        '',
      ].join('\n'),
    );
    expect(out).toContain('Conditions:\n  Type                        Status\n  PodReadyToStartContainers   True \n');
    expect(out).toContain(
      "  data:\n    Type:       EmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:     \n    SizeLimit:  1Gi\n",
    );
    expect(out).toContain(
      '    Type:          HostPath (bare host directory volume)\n    Path:          /var/log\n    HostPathType:  Directory\n',
    );
    expect(out).toContain(
      '    TokenExpirationSeconds:  3607\n    ConfigMapName:           kube-root-ca.crt\n    Optional:                false\n    DownwardAPI:             true\n',
    );
    expect(out).toMatch(
      /QoS Class: +Burstable\nNode-Selectors: +kubernetes\.io\/os=linux\nTolerations: +:NoExecute op=Exists\n +dedicated=web:NoSchedule\n +node\.kubernetes\.io\/not-ready:NoExecute op=Exists for 300s\n$/,
    );
  });

  it('ends with the events, aligned on their own, with repeats and the container they are about', () => {
    const event = (reason: string, type: 'Normal' | 'Warning', first: number, last: number, count: number): Event => ({
      metadata: { name: `web-n1.${reason}`, namespace: 'shop' },
      involvedObject: { kind: 'Pod', name: 'web-n1', namespace: 'shop', fieldPath: 'spec.containers{app}' },
      reason,
      message: `${reason} container app`,
      type,
      source: { component: 'kubelet', host: 'n1' },
      firstTimestamp: ago(first),
      lastTimestamp: ago(last),
      count,
    });
    const out = describePod(pod, [event('BackOff', 'Warning', 300, 10, 12), event('Pulled', 'Normal', 400, 400, 1)], now);
    expect(out.slice(out.indexOf('Events:'))).toBe(
      [
        'Events:',
        '  Type     Reason   Age                From     Message',
        '  ----     ------   ----               ----     -------',
        '  Normal   Pulled   6m40s              kubelet  spec.containers{app}: Pulled container app',
        '  Warning  BackOff  10s (x12 over 5m)  kubelet  spec.containers{app}: BackOff container app',
        '',
      ].join('\n'),
    );
    expect(describePod(pod, [], now)).toMatch(/\nEvents: +<none>\n$/);
  });

  it('says Terminating for a pod being deleted, and <none> where a pod has nothing', () => {
    const bare: Pod = {
      metadata: { name: 'bare', namespace: 'default', deletionTimestamp: ago(12), deletionGracePeriodSeconds: 30 },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
      status: { phase: 'Running' },
    };
    const out = describePod(bare, undefined, now);
    expect(out).toContain('Node:                      <none>\n');
    expect(out).toContain('Status:                    Terminating (lasts 12s)\nTermination Grace Period:  30s\n');
    expect(out).toContain('IPs:                       <none>\n');
    expect(out).toContain('    Port:         <none>\n    Host Port:    <none>\n    Environment:  <none>\n    Mounts:       <none>\n');
    expect(out).toContain('    Mounts:       <none>\nVolumes:          <none>\nQoS Class:        BestEffort\n');
  });
});
