import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { stopEmbeddedRuntime } from '../../cli/embedded-runtime.js';

export default class RuntimeStop extends BaseCommand {
  static override summary = 'Stop the embedded runtime and every container it runs.';
  static override description = `Stops the embedded runtime running in the background under --root-dir. See docs/runtime/README.md.`;
  static override examples = ['<%= config.bin %> runtime stop', '<%= config.bin %> runtime stop --root-dir /tmp/knode'];

  static override flags = {
    timeout: Flags.integer({ description: 'Seconds to wait for the runtime to exit', default: 30 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RuntimeStop);
    const result = await stopEmbeddedRuntime(this.rootDir(flags), flags.timeout * 1000);
    this.log('stopped' in result ? `stopped the embedded runtime (pid ${result.stopped})` : result.none);
  }
}
