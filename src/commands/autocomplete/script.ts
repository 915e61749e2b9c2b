import { Args, Command } from '@oclif/core';
import { completionHook } from '../../cli/completion-hooks.js';

export default class AutocompleteScript extends Command {
  static override hidden = true;
  static override description =
    "outputs autocomplete config script for shells: oclif's, then the hook that completes pod names (exec, logs, describe pod…)";
  static override args = {
    shell: Args.string({ description: 'Shell type', options: ['zsh', 'bash', 'powershell'], required: false }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(AutocompleteScript);
    // oclif's own line first (it sources the generated completion functions), from the plugin's command this one stands in for.
    const original = this.config.plugins.get('@oclif/plugin-autocomplete')?.commands.find((c) => c.id === 'autocomplete:script');
    if (original) await (await original.load()).run(this.argv, this.config);
    const hook = completionHook(args.shell ?? this.config.shell, this.config.bin);
    if (hook) this.log(hook);
  }
}
