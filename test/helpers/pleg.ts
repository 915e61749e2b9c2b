// A GenericPLEG as the PLEG's unit tests build it.
import { EventStream } from '../../src/engine/events.js';
import { GenericPLEG, type PlegOptions } from '../../src/engine/pleg/generic.js';
import { PodCache } from '../../src/engine/pleg/pod-cache.js';

/**
 * A PLEG over RUNTIME on CLOCK with a fresh cache, a 10 s period, the
 * kubelet's 3-minute relist threshold and no one told of its events, unless
 * OPTIONS say otherwise.
 */
export function testPleg(options: Pick<PlegOptions, 'runtime' | 'clock'> & Partial<PlegOptions>): GenericPLEG {
  return new GenericPLEG({
    cache: new PodCache(),
    events: new EventStream(() => options.clock.now()),
    onEvent: () => {},
    period: () => 10_000,
    relistThreshold: 180_000,
    ...options,
  });
}
