import { Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { BaseCommand } from '../../cli/base-command.js';
import { rootPaths } from '../../util/paths.js';
import { isRuntimeServe, readPid } from '../../util/pid-file.js';
import { UserError } from '../../util/user-error.js';

export default class RuntimeStop extends BaseCommand {
  static override summary = 'Stop the embedded runtime and every container it runs.';
  static override description = `Stops the embedded runtime running in the background under --root-dir. See docs/runtime/README.md.`;
  static override examples = ['<%= config.bin %> runtime stop', '<%= config.bin %> runtime stop --root-dir /tmp/knode'];

  static override flags = {
    timeout: Flags.integer({ description: 'Seconds to wait for the runtime to exit', default: 30 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RuntimeStop);
    const paths = rootPaths(this.rootDir(flags));
    const pid = readPid(paths.runtimePidFile);
    if (pid === undefined) {
      this.log(`no embedded runtime is running under ${paths.root}`);
      return;
    }
    if (!isRuntimeServe(pid)) {
      this.log(`no embedded runtime is running under ${paths.root} (stale pid file: ${pid} is another program)`);
      return;
    }
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      this.log(`no embedded runtime is running under ${paths.root} (stale pid ${pid})`);
      return;
    }
    const deadline = Date.now() + flags.timeout * 1000;
    while (Date.now() < deadline) {
      if (!alive(pid) && !existsSync(paths.runtimeSocket)) {
        this.log(`stopped the embedded runtime (pid ${pid})`);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new UserError('runtimeUnavailable', `the embedded runtime (pid ${pid}) did not exit within ${flags.timeout}s`, `kill -9 ${pid}`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
