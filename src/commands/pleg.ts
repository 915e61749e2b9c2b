import { Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { NodeClient } from '../cli/node-client.js';
import { defaultKubeletConfiguration } from '../engine/config/kubelet-config.js';
import { settingFor } from '../engine/config/settings.js';
import { EventStream, type LifecycleEvent } from '../engine/events.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import { GenericPLEG } from '../engine/pleg/generic.js';
import { PodCache } from '../engine/pleg/pod-cache.js';
import { RealClock } from '../util/clock.js';
import { formatEventJson, formatEventLine } from '../ui/event-line.js';

export default class Pleg extends BaseCommand {
  static override summary = 'Stream pod lifecycle events (PLEG) live, with relist timings.';
  static override description = `From the running node; when no node runs, relists the runtime itself every --period for the pods of --node-name. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> pleg',
    '<%= config.bin %> pleg --json | jq .reason',
    '<%= config.bin %> pleg --runtime-endpoint unix:///run/containerd/containerd.sock',
  ];

  static override flags = {
    json: Flags.boolean({ description: 'NDJSON, one event per line', default: false }),
    'node-name': Flags.string({ description: 'Without a node: whose pods to relist [default: the hostname]' }),
    period: Flags.integer({
      description: 'Without a node: relist period in milliseconds',
      default: settingFor('plegRelistPeriod').default as number,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Pleg);
    const print = (e: LifecycleEvent) => this.log(flags.json ? formatEventJson(e) : formatEventLine(e));
    const interrupted = this.interruptSignal();
    const node = await NodeClient.find(this.rootDir(flags));
    if (node) {
      const opened = () => this.logToStderr(`Streaming PLEG events from the node under ${this.rootDir(flags)} (Ctrl-C stops).`);
      for await (const e of node.ndjson<LifecycleEvent>('/pleg', interrupted, opened)) print(e);
      return;
    }
    const client = await this.connectRuntime(flags);
    this.logToStderr('No node runs here: relisting the runtime directly.');
    const clock = new RealClock();
    const events = new EventStream(() => clock.now());
    events.subscribe(print);
    const config = defaultKubeletConfiguration(this.rootDir(flags), flags['node-name'] ? { nodeName: flags['node-name'] } : {});
    const runtime = RuntimeManager.standalone(client, config, events);
    const cache = new PodCache();
    const pleg = new GenericPLEG({
      runtime,
      cache,
      clock,
      events,
      period: () => flags.period,
      relistThreshold: config.plegRelistThreshold,
      onEvent: (e) => {
        const { namespace, name } = cache.get(e.id).status;
        events.emit({
          type: 'PLEGEvent',
          pod: name ? `${namespace}/${name}` : '',
          uid: e.id,
          reason: e.type,
          detail: { containerId: e.data },
        });
      },
    });
    pleg.start();
    // The clock's timers do not hold the process open, so this does until a signal: without it knode exits 13 (an unsettled await).
    const holdOpen = setInterval(() => {}, 2 ** 30);
    await new Promise<void>((resolve) => interrupted.addEventListener('abort', () => resolve(), { once: true }));
    clearInterval(holdOpen);
    pleg.stop();
    await pleg.idle();
    client.close();
  }
}
