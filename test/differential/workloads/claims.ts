// Claims as kubectl shows them: a namespace of the cluster with a claim bound
// to a volume made for it, one that waits (its storage class does not exist),
// and pods that use them (never scheduled: nothing binds the second claim,
// and the first's user asks for a node there is not). kubectl describe and
// get of them are compared as describe.ts and get-tables.ts compare the
// workloads'. knode binds claims to no named volume, so only the cluster
// shows a bound claim's volume, capacity and access modes.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../helpers/runtimes.js';
import { describeDifferences } from './describe.js';
import { getDifferences } from './get-tables.js';

type Kubectl = (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

export const CLAIMS_NAMESPACE = 'wl-claims';

const pod = (name: string, claim: string, extra = '') => `---
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
${extra}  containers:
    - {name: c, image: busybox:1.36, command: [sleep, "3600"]}
  volumes:
    - {name: data, persistentVolumeClaim: {claimName: ${claim}}}
    - {name: again, persistentVolumeClaim: {claimName: ${claim}, readOnly: true}}
`;

const MANIFEST = `apiVersion: v1
kind: PersistentVolume
metadata: {name: wl-claims-volume}
spec:
  storageClassName: manual
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  hostPath: {path: /tmp/knode-wl-claims}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: bound
  labels: {app: data, tier: db}
  annotations: {note: kept for the test}
spec:
  storageClassName: manual
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 500Mi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: waiting}
spec:
  storageClassName: slow
  volumeMode: Block
  accessModes: [ReadWriteMany, ReadOnlyMany]
  resources: {requests: {storage: 2Gi}}
${pod('user-b', 'waiting')}${pod('user-a', 'waiting')}${pod('bound-user', 'bound', '  nodeSelector: {nowhere: "true"}\n')}`;

/** Applies the claims to the cluster, waits for the first to be bound, and compares describe and get of them. */
export async function claimDifferences(
  kubectl: Kubectl,
  work: string,
): Promise<{ described: number; describeDiffs: string[]; gets: number; getDiffs: string[] }> {
  const ns = CLAIMS_NAMESPACE;
  const file = join(work, 'claims.yaml');
  writeFileSync(file, MANIFEST);
  await kubectl('create', 'namespace', ns);
  await eventually(async () => (await kubectl('get', 'serviceaccount', 'default', '-n', ns)).code === 0, `${ns}/default`, 30_000);
  const applied = await kubectl('apply', '-n', ns, '-f', file);
  if (applied.code !== 0)
    return { described: 0, describeDiffs: [`claims: kubectl apply: ${applied.stderr.trim()}`], gets: 0, getDiffs: [] };
  await eventually(
    async () => (await kubectl('get', 'pvc', 'bound', '-n', ns, '-o', 'jsonpath={.status.phase}')).stdout === 'Bound',
    'the claim bound to its volume',
    60_000,
  );
  const described = await describeDifferences(kubectl, ns);
  const got = await getDifferences(kubectl, ns);
  return { described: described.compared, describeDiffs: described.differences, gets: got.compared, getDiffs: got.differences };
}
