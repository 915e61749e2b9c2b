import { Args, Flags } from '@oclif/core';
import { templateKey } from '../controllers/deployment-util.js';
import type { Event } from '../engine/api/cluster.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import { controllerOf, type Deployment, type KubeObject, type ReplicaSet } from '../engine/api/workloads.js';
import { compareStrings } from '../util/compare.js';
import { DescribeCommand, type Described } from './describe-command.js';
import { booleanFlagValues } from './boolean-flags.js';
import { describedMatches, exactFlag, joinDescriptions, noneFound, showsEvents } from './describe-matching.js';
import { NodeClient, objectEvents } from './node-client.js';
import { KubectlError } from '../util/user-error.js';
import { savedObjects } from './offline-pods.js';

/** The arguments and flags of every `describe KIND` of a workload (each command sets them as its own). */
export const describeArgs = { name: Args.string({ description: 'The name, or namespace/name; every one when left out' }) };
export const describeFlags = {
  namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
  'show-events': Flags.boolean({ description: 'Show its events (kept by a running node)', default: true, allowNo: true }),
  ...exactFlag,
};

/** What a describer is given: the object, the node's other objects, the pods, its events (when shown and kept), the time. */
export interface DescribeInput {
  object: KubeObject;
  objects: KubeObject[];
  pods: Pod[];
  events: Event[] | undefined;
  now: number;
}

/**
 * `knode describe KIND NAME` for a kind the local controllers run: the
 * object from the node's saved objects, its pods from the running node (or
 * else the saved ones), and its events from the running node, which alone
 * keeps them. A name no object has describes those whose names begin
 * with it, as kubectl's does. Not found: kubectl's words, exit 1.
 */
export abstract class DescribeWorkloadCommand extends DescribeCommand {
  // Each command sets them as its own: oclif's parse copies a command class's own properties only.
  static override args = describeArgs;
  static override flags = describeFlags;

  /** The kind, and its resource as kubectl's messages name it. */
  protected abstract readonly kind: string;
  protected abstract readonly resource: string;
  protected abstract render(input: DescribeInput): string;

  /** What `describe` shows; kubectl's error when nothing is found. */
  async describe(): Promise<Described> {
    const { args, flags } = await this.parse(
      this.constructor as typeof DescribeWorkloadCommand,
      booleanFlagValues(this.argv, ['show-events']),
    );
    const given = args.name ?? '';
    const [namespace, name] = given.includes('/') ? given.split('/', 2) : [flags.namespace ?? 'default', given];
    const rootDir = this.rootDir(flags);
    const objects = savedObjects(rootDir);
    const ofKind = objects.filter((o) => o.kind === this.kind && o.metadata.namespace === namespace);
    const matches = describedMatches(ofKind, name, (o) => o.metadata.name!, flags.exact);
    if (matches.objects.length === 0 && matches.all) return noneFound(namespace);
    if (matches.objects.length === 0) throw new KubectlError(`Error from server (NotFound): ${this.resource} "${name}" not found`);
    const node = await NodeClient.find(rootDir);
    const pods = node ? (await node.json<PodList>('/pods')).body.items : (objects.filter((o) => o.kind === 'Pod') as unknown as Pod[]);
    const withEvents = node && showsEvents(matches, flags['show-events'], this.argv);
    const texts: string[] = [];
    for (const object of matches.objects) {
      const events = withEvents ? await objectEvents(node, object.metadata) : undefined;
      texts.push(this.render({ object, objects, pods, events, now: Date.now() }));
    }
    return { text: joinDescriptions(matches, texts) };
  }
}

/**
 * A Deployment's ReplicaSets as kubectl describe shows them: the new one
 * (its template the Deployment's, the pod-template-hash aside; the oldest
 * if several), and all the others, oldest first, those scaled to 0
 * included (kubectl's deploymentutil.GetAllReplicaSetsInChunks).
 */
export function deploymentReplicaSets(d: Deployment, objects: KubeObject[]): { old: ReplicaSet[]; new?: ReplicaSet } {
  const owned = (objects.filter((o) => o.kind === 'ReplicaSet') as ReplicaSet[])
    .filter((rs) => controllerOf(rs.metadata)?.uid === d.metadata.uid)
    .sort(
      (a, b) =>
        Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? '') ||
        compareStrings(a.metadata.name!, b.metadata.name!),
    );
  const key = templateKey(d.spec.template);
  const newest = owned.find((rs) => templateKey(rs.spec.template) === key);
  return { new: newest, old: owned.filter((rs) => rs !== newest) };
}
