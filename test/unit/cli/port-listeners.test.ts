import { createServer } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { listenAll, listenHosts, parsePortPair } from '../../../src/cli/port-listeners.js';
import {
  containerOfPod,
  containerOfRuntime,
  DEFAULT_CONTAINER_ANNOTATION,
  pickContainer,
  type RunningPod,
} from '../../../src/cli/pod-target.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import { KubectlError } from '../../../src/util/user-error.js';
import type { Container } from '../../../src/cri/types.js';

describe('parsePortPair', () => {
  const names = (n: string) => (n === 'http' ? 80 : undefined);
  it('takes LOCAL:REMOTE, REMOTE, :REMOTE and named remote ports as kubectl does', () => {
    expect(parsePortPair('8080:80', names)).toEqual({ local: 8080, remote: 80, spec: '80' });
    expect(parsePortPair('80', names)).toEqual({ local: 80, remote: 80, spec: '80' });
    expect(parsePortPair(':80', names)).toEqual({ local: 0, remote: 80, spec: '80' });
    expect(parsePortPair('8080:http', names)).toEqual({ local: 8080, remote: 80, spec: 'http' });
    expect(() => parsePortPair('8080:nope', names)).toThrow("Error parsing remote port 'nope': invalid port");
    expect(() => parsePortPair('x:80', names)).toThrow("Error parsing local port 'x': invalid port");
    expect(() => parsePortPair('8080:0', names)).toThrow('Remote port must be > 0');
    expect(() => parsePortPair('1:2:3', names)).toThrow("invalid port format '1:2:3'");
  });
});

describe('listenAll', () => {
  it('binds localhost on both loopbacks at one port, and says why a port in use failed', async () => {
    const first = await listenAll(listenHosts(['localhost']), 0, (s) => s.destroy());
    expect(first.servers.length).toBeGreaterThan(0);
    expect(first.addresses[0]).toBe(`127.0.0.1:${first.port}`);
    const again = await listenAll(listenHosts(['localhost']), first.port, (s) => s.destroy());
    expect(again.servers).toEqual([]);
    expect(again.failures[0]).toBe(`unable to create listener: Error listen tcp4 127.0.0.1:${first.port}: bind: address already in use`);
    for (const s of first.servers) s.close();
  });

  it('fails an explicit address that cannot be bound even when another one binds', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as { port: number }).port;
    const bound = await listenAll(listenHosts(['127.0.0.2', '127.0.0.1']), port, (s) => s.destroy());
    expect(bound.servers).toEqual([]);
    expect(bound.failures).toEqual([`unable to create listener: Error listen tcp4 127.0.0.1:${port}: bind: address already in use`]);
    taken.close();
  });
});

describe('pickContainer', () => {
  const container = (name: string, id: string, createdAt: number, state = 'CONTAINER_RUNNING') =>
    ({ id, createdAt, state, labels: { 'io.kubernetes.container.name': name } }) as unknown as Container;
  const pod = (annotations: Record<string, string> = {}): RunningPod => {
    const made = [container('prep', 'id-prep', 1, 'CONTAINER_EXITED'), container('a', 'id-a', 2), container('b', 'id-b', 3)];
    return { namespace: 'default', name: 'web', made, containers: made.slice(1), annotations } as unknown as RunningPod;
  };

  it('picks -c, then the default-container annotation, then the first running, saying so when there were several', () => {
    const warnings: string[] = [];
    expect(pickContainer(pod(), 'b', (m) => warnings.push(m)).id).toBe('id-b');
    expect(pickContainer(pod({ 'kubectl.kubernetes.io/default-container': 'b' }), undefined, (m) => warnings.push(m)).id).toBe('id-b');
    expect(warnings).toEqual([]);
    expect(pickContainer(pod(), undefined, (m) => warnings.push(m)).id).toBe('id-a');
    expect(warnings).toEqual(['Defaulted container "a" out of: prep, a, b']);
    expect(() => pickContainer(pod(), 'zz', () => {})).toThrow(
      new KubectlError('error: container zz is not valid for pod web out of: prep, a, b'),
    );
    expect(() => pickContainer(pod(), 'prep', () => {})).toThrow(
      new KubectlError('error: unable to upgrade connection: container not found ("prep")'),
    );
  });

  it('refuses an annotation naming no container, where logs passes over it', () => {
    const found = pod({ 'kubectl.kubernetes.io/default-container': 'gone' });
    expect(() => pickContainer(found, undefined, () => {})).toThrow(
      new KubectlError('error: container gone is not valid for pod web out of: prep, a, b'),
    );
    const warnings: string[] = [];
    expect(containerOfRuntime(found.made, found.annotations, undefined, 'web', (m) => warnings.push(m))).toBe('a');
    expect(warnings).toEqual(['Default container name "gone" not found in pod web', 'Defaulted container "a" out of: prep, a, b']);
  });

  it("lists knode's init containers after the others, as kubectl does, and picks the first container that is not one", () => {
    const init = (c: Container, kind: string) => ({ ...c, annotations: { 'io.knode.container.init': kind } }) as Container;
    const made = [
      init(container('prep', 'id-prep', 1, 'CONTAINER_EXITED'), 'init'),
      init(container('shipper', 'id-shipper', 2), 'sidecar'),
      container('app', 'id-app', 3),
    ];
    const warnings: string[] = [];
    expect(containerOfRuntime(made, {}, undefined, 'web', (m) => warnings.push(m))).toBe('app');
    expect(warnings).toEqual(['Defaulted container "app" out of: app, prep (init), shipper (init)']);
    expect(() => containerOfRuntime(made, {}, 'zz', 'web', () => {})).toThrow(
      new KubectlError('error: container zz is not valid for pod web out of: app, prep (init), shipper (init)'),
    );
  });

  it('falls back to the first made when none runs', () => {
    const made = [container('a', 'id-a', 2, 'CONTAINER_EXITED'), container('b', 'id-b', 1, 'CONTAINER_EXITED')];
    expect(containerOfRuntime(made, {}, undefined, 'web', () => {})).toBe('b');
  });
});

describe('containerOfPod: kubectl picks a container from the spec', () => {
  const spec = (annotations?: Record<string, string>) =>
    ({
      metadata: { name: 'web', annotations },
      spec: {
        initContainers: [{ name: 'prep', image: 'i' }],
        containers: [
          { name: 'app', image: 'i' },
          { name: 'side', image: 'i' },
        ],
      },
    }) as Pod;

  it('takes -c, the annotation, else the first, naming the others as kubectl lists them', () => {
    const warnings: string[] = [];
    expect(containerOfPod(spec(), 'prep', (m) => warnings.push(m))).toBe('prep');
    expect(containerOfPod(spec({ [DEFAULT_CONTAINER_ANNOTATION]: 'side' }), undefined, (m) => warnings.push(m))).toBe('side');
    expect(warnings).toEqual([]);
    expect(containerOfPod(spec(), undefined, (m) => warnings.push(m))).toBe('app');
    expect(warnings).toEqual(['Defaulted container "app" out of: app, side, prep (init)']);
    expect(() => containerOfPod(spec(), 'zz', () => {})).toThrow(
      new KubectlError('error: container zz is not valid for pod web out of: app, side, prep (init)'),
    );
  });

  it('passes over an annotation naming no container for logs, and refuses it for exec and attach', () => {
    const warnings: string[] = [];
    const missing = spec({ [DEFAULT_CONTAINER_ANNOTATION]: 'gone' });
    expect(containerOfPod(missing, undefined, (m) => warnings.push(m))).toBe('app');
    expect(warnings).toEqual([
      'Default container name "gone" not found in pod web',
      'Defaulted container "app" out of: app, side, prep (init)',
    ]);
    expect(() => containerOfPod(missing, undefined, () => {}, 'refuse')).toThrow(
      new KubectlError('error: container gone is not valid for pod web out of: app, side, prep (init)'),
    );
  });
});
