import type { Clock } from '../../util/clock.js';
import { ConfigSourceAnnotation, podRef } from '../api/pod-util.js';
import type { Pod } from '../api/v1.js';
import type { KubeObject } from '../api/workloads.js';
import type { LocalApi, PodApi } from '../cluster/client.js';
import type { EventStream } from '../events.js';
import { ApiserverSource } from './apiserver-source.js';
import { FileSource } from './file-source.js';
import type { KubeletConfiguration } from './kubelet-config.js';
import { formatManifestError, type ManifestError } from './manifest.js';
import { PodStorage, type PodUpdate } from './pod-storage.js';
import { UrlSource } from './url-source.js';

interface Source {
  readonly name: string;
  start(): Promise<void>;
  stop(): void;
}

/**
 * The kubelet's PodConfig: starts the configured sources, merges their
 * snapshots through PodStorage, and hands each resulting update to the sync
 * loop. Knows when every source has been seen (housekeeping waits for that).
 */
export class PodConfig {
  private readonly storage = new PodStorage();
  private readonly sources: Source[] = [];
  /** Objects of other kinds already reported as not run here (a node in a cluster runs only pods). */
  private readonly notRun = new Set<string>();

  /**
   * API: where pods bound to this node come from besides the manifests (a
   * cluster's apiserver, or the local one of a standalone node's
   * controllers). LOCAL: the local apiserver, which takes the manifests'
   * objects of other kinds.
   */
  constructor(
    config: KubeletConfiguration,
    clock: Clock,
    private readonly events: EventStream,
    private readonly onUpdate: (update: PodUpdate) => void,
    api?: { client: Pick<PodApi, 'listPods' | 'watchPods'>; warn: (message: string) => void },
    private readonly local?: LocalApi,
  ) {
    const watchForChanges = !config.runOnce;
    if (config.staticPodPath) {
      this.sources.push(
        new FileSource(
          config.staticPodPath,
          config.nodeName,
          clock,
          config.fileCheckFrequency,
          this.sinkFor('file', `file:${config.staticPodPath}`),
          watchForChanges,
        ),
      );
    }
    if (config.staticPodURL) {
      this.sources.push(
        new UrlSource(
          config.staticPodURL,
          config.staticPodURLHeader,
          config.nodeName,
          clock,
          config.httpCheckFrequency,
          this.sinkFor('http', `http:${config.staticPodURL}`),
          watchForChanges,
        ),
      );
    }
    if (api) {
      const sink = this.sinkFor('api');
      // The kubelet marks every pod with the source it came from. The source sends every pod on each change
      // of one, the unchanged ones as the same objects: so are their marked copies, made once.
      const marked = new WeakMap<Pod, Pod>();
      const mark = (p: Pod) => {
        let copy = marked.get(p);
        if (!copy) {
          copy = { ...p, metadata: { ...p.metadata, annotations: { ...p.metadata.annotations, [ConfigSourceAnnotation]: 'api' } } };
          marked.set(p, copy);
        }
        return copy;
      };
      const annotated = { ...sink, snapshot: (pods: Pod[]) => sink.snapshot(pods.map(mark)) };
      this.sources.push(new ApiserverSource({ client: api.client, nodeName: config.nodeName, clock, warn: api.warn }, annotated));
    }
  }

  /** Lists and watches the apiserver source has made (when there is one): a relist after 410 Gone shows here. */
  apiserverStats(): { lists: number; watches: number } | undefined {
    const api = this.sources.find((s): s is ApiserverSource => s instanceof ApiserverSource);
    return api ? { ...api.stats } : undefined;
  }

  get sourceNames(): string[] {
    return this.sources.map((s) => s.name);
  }

  /** Starts every source; resolves once each has been read (or failed) once. */
  async start(): Promise<void> {
    await Promise.all(this.sources.map((s) => s.start()));
  }

  stop(): void {
    for (const s of this.sources) s.stop();
  }

  /** Every pod the sources want now. */
  desiredPods(): Pod[] {
    return this.storage.allPods();
  }

  seenAllSources(): boolean {
    return this.storage.seenAllSources(this.sourceNames);
  }

  /** A source's sink; LOCATION names where its objects came from, as the local apiserver keeps them apart. */
  private sinkFor(source: string, location = source) {
    return {
      snapshot: (pods: Parameters<PodStorage['merge']>[1]) => {
        const firstTime = !this.storage.seenAllSources([source]);
        const updates = this.storage.merge(source, pods, (dup) =>
          this.events.emit({
            type: 'ManifestError',
            pod: podRef(dup),
            uid: dup.metadata.uid ?? '',
            reason: 'DuplicatePod',
            message: `duplicate pod name ${podRef(dup)} in source ${source}; ignoring the later one`,
          }),
        );
        if (firstTime) this.events.emit({ type: 'SourceReady', pod: '', uid: '', message: `source "${source}" seen`, detail: { source } });
        for (const update of updates) this.onUpdate(update);
      },
      error: (error: ManifestError) =>
        this.events.emit({
          type: 'ManifestError',
          pod: error.pod ?? '',
          uid: '',
          reason: 'FailedToDecode',
          message: formatManifestError(error),
        }),
      skipped: (notice: ManifestError) => this.skipped(notice),
      objects: (objects: KubeObject[]) => {
        if (this.local) this.local.applyObjects(location, objects);
        else this.notRunHere(location, objects);
      },
    };
  }

  private skipped(notice: ManifestError): void {
    this.events.emit({ type: 'ManifestSkipped', pod: '', uid: '', reason: 'NotRunOnNode', message: formatManifestError(notice) });
  }

  /** A node in a cluster runs pods only: the cluster's controllers run the rest, once given to its apiserver. */
  private notRunHere(source: string, objects: KubeObject[]): void {
    for (const o of objects) {
      const key = `${source}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      if (this.notRun.has(key)) continue;
      this.notRun.add(key);
      this.skipped({
        source,
        document: 0,
        object: `${o.kind} ${JSON.stringify(o.metadata.name)}`,
        message: `not run: a node in a cluster runs only pods; give the ${o.kind} to the apiserver (kubectl apply)`,
      });
    }
  }
}
