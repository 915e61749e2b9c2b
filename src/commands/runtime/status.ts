import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { CriClient } from '../../cri/client.js';
import { rootPaths } from '../../util/paths.js';
import { UserError } from '../../util/user-error.js';

export default class RuntimeStatus extends BaseCommand {
  static override summary = 'Show whether the container runtime answers, its version, conditions and what it holds.';
  static override description = `Asks the runtime --runtime-endpoint names, or the embedded one, without starting it. See docs/runtime/README.md.`;
  static override examples = [
    '<%= config.bin %> runtime status',
    '<%= config.bin %> runtime status -o json',
    '<%= config.bin %> runtime status --runtime-endpoint unix:///run/containerd/containerd.sock',
  ];

  static override flags = {
    output: Flags.string({ char: 'o', options: ['text', 'json'], default: 'text', description: 'Output format' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RuntimeStatus);
    const endpoint = flags['runtime-endpoint'] ?? `unix://${rootPaths(this.rootDir(flags)).runtimeSocket}`;
    const client = new CriClient(endpoint, { requestTimeoutMs: 5000 });
    try {
      let version;
      try {
        version = await client.version();
      } catch (err) {
        throw new UserError(
          'runtimeUnavailable',
          `no runtime answers at ${endpoint}: ${(err as Error).message}`,
          flags['runtime-endpoint'] ? undefined : 'start it with `knode runtime serve`, or let `knode apply`/`knode run` start it',
        );
      }
      const [status, sandboxes, containers, images] = await Promise.all([
        client.status(true),
        client.listPodSandbox(),
        client.listContainers(),
        client.listImages(),
      ]);
      const running = containers.filter((c) => c.state === 'CONTAINER_RUNNING').length;
      if (flags.output === 'json') {
        this.log(
          JSON.stringify(
            { endpoint, version, status, sandboxes: sandboxes.length, containers: containers.length, running, images: images.length },
            null,
            2,
          ),
        );
        return;
      }
      // A key longer than the column (ContainerSandboxReady) keeps one space before its value.
      const line = (key: string, value: string) => this.log(`${`${key}:`.padEnd(15)}${key.length >= 14 ? ' ' : ''}${value}`);
      line('Endpoint', endpoint);
      line('Runtime', `${version.runtimeName} ${version.runtimeVersion} (CRI ${version.runtimeApiVersion})`);
      for (const c of status.status?.conditions ?? []) {
        line(c.type, `${c.status}${c.reason ? ` (${c.reason})` : ''}${c.message ? ` ${c.message}` : ''}`);
      }
      const config = parseJson(status.info.config);
      if (config.isolation) line('Isolation', String(config.isolation));
      if (config.spawning) line('Spawning', String(config.spawning));
      if (config.images) line('Image store', String(config.images));
      if (config.resourceLimits) line('Limits', String(config.resourceLimits));
      line('Sandboxes', String(sandboxes.length));
      line('Containers', `${containers.length} (${running} running)`);
      line('Images', String(images.length));
    } finally {
      client.close();
    }
  }
}

function parseJson(text: string | undefined): Record<string, unknown> {
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
