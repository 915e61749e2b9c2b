import { describe, expect, it } from 'vitest';
import type { StatusResponse } from '../../../src/cri/types.js';
import { EventStream } from '../../../src/engine/events.js';
import { RuntimeHealth } from '../../../src/engine/runtime-health.js';

const cond = (type: string, status: boolean, reason = '', message = '') => ({ type, status, reason, message });

function setup() {
  let answer: StatusResponse | Error = { status: { conditions: [] }, info: {}, runtimeHandlers: [] };
  let pleg = { ok: true, message: '' };
  const events = new EventStream(() => 0);
  const seen: string[] = [];
  events.subscribe((e) => seen.push(`${e.type}${e.reason ? ` ${e.reason}` : ''}: ${e.message}`));
  const health = new RuntimeHealth({ status: async () => (answer instanceof Error ? Promise.reject(answer) : answer) }, events, () => pleg);
  const set = (next: StatusResponse | Error) => (answer = next);
  const setPleg = (next: typeof pleg) => (pleg = next);
  const conditions = (...c: ReturnType<typeof cond>[]) => ({ status: { conditions: c }, info: {} }) as StatusResponse;
  return { health, seen, set, setPleg, conditions };
}

describe('the runtime health check', () => {
  it('says when the runtime stops answering or is not ready, and when it is back', async () => {
    const { health, seen, set, conditions } = setup();
    set(conditions(cond('RuntimeReady', true), cond('NetworkReady', true)));
    await health.check();
    expect([health.error, seen]).toEqual([undefined, []]);
    set(new Error('connect ECONNREFUSED'));
    await health.check();
    await health.check();
    expect(health.error).toBe('the runtime does not answer: connect ECONNREFUSED');
    set(conditions(cond('RuntimeReady', true), cond('NetworkReady', false, 'NoCNI', 'no network plugin')));
    await health.check();
    expect(health.error).toBe('NetworkReady=false reason:NoCNI message:no network plugin');
    set(conditions(cond('RuntimeReady', true), cond('NetworkReady', true)));
    await health.check();
    expect(seen).toEqual([
      'RuntimeUnhealthy: the runtime does not answer: connect ECONNREFUSED',
      'RuntimeHealthy: the container runtime is ready again',
    ]);
  });

  it("keeps whether the runtime's default handler makes recursive read-only mounts, from its last answer", async () => {
    const { health, set } = setup();
    await health.check();
    expect(health.supportsRecursiveReadOnly()).toBe(false);
    const handlers = (rro: boolean, name = '') => [{ name, features: { recursiveReadOnlyMounts: rro, userNamespaces: false } }];
    set({ status: { conditions: [] }, info: {}, runtimeHandlers: handlers(true) });
    await health.check();
    expect(health.supportsRecursiveReadOnly()).toBe(true);
    set({ status: { conditions: [] }, info: {}, runtimeHandlers: handlers(true, 'runc') });
    await health.check();
    expect(health.supportsRecursiveReadOnly()).toBe(false);
  });

  it('says when the PLEG turns unhealthy, once, and when it relists again', async () => {
    const { health, seen, setPleg } = setup();
    await health.check();
    setPleg({ ok: false, message: 'pleg was last seen active 181s ago; threshold is 180s' });
    await health.check();
    setPleg({ ok: false, message: 'pleg was last seen active 186s ago; threshold is 180s' });
    await health.check();
    setPleg({ ok: true, message: '' });
    await health.check();
    await health.check();
    expect(seen).toEqual([
      'PLEGUnhealthy: PLEG is not healthy: pleg was last seen active 181s ago; threshold is 180s',
      'PLEGHealthy: the PLEG relists again',
    ]);
  });

  it("keeps the runtime's own conditions, saying a false one when first seen and each change after", async () => {
    const { health, seen, set, conditions } = setup();
    set(conditions(cond('RuntimeReady', true), cond('ContainerSandboxReady', true, '', 'bubblewrap sandboxes')));
    await health.check();
    expect(seen).toEqual([]);
    set(conditions(cond('RuntimeReady', true), cond('ContainerSandboxReady', false, 'BubblewrapUnavailable', 'no bwrap')));
    await health.check();
    await health.check();
    expect(health.conditions()).toEqual([cond('ContainerSandboxReady', false, 'BubblewrapUnavailable', 'no bwrap')]);
    expect(health.error).toBeUndefined();
    expect(seen).toEqual(['RuntimeConditionChanged BubblewrapUnavailable: ContainerSandboxReady=false: no bwrap']);
  });
});
