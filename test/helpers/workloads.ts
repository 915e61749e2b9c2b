// The local controllers as the unit tests start them, and the Deployment
// they most often feed them.
import { LocalWorkloads } from '../../src/controllers/index.js';
import type { Container } from '../../src/engine/api/v1.js';
import type { Deployment, KubeObject } from '../../src/engine/api/workloads.js';
import type { FakeClock } from '../../src/util/clock.js';

/**
 * Controllers for node n1 on CLOCK, not started. Names come from a varying
 * source: a constant one would draw the same pod name for ever.
 */
export function testWorkloads(clock: FakeClock): LocalWorkloads {
  let seed = 0;
  return new LocalWorkloads({
    nodeName: 'n1',
    nodeLabels: { 'kubernetes.io/hostname': 'n1' },
    clock,
    random: () => (seed++ * 0.37) % 1,
  });
}

/** Started controllers for node n1 on CLOCK, their events dropped. */
export function startedWorkloads(clock: FakeClock): LocalWorkloads {
  const workloads = testWorkloads(clock);
  workloads.start(() => {});
  return workloads;
}

/** Deployment web: two replicas of CONTAINER, selected by app=web; SPEC's fields replace those. */
export function webDeployment(container: Container, spec: Partial<Deployment['spec']> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } },
      ...spec,
    },
  };
}
