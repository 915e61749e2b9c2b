import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { imageTable } from '../../ui/image-table.js';

export default class ImageList extends BaseCommand {
  static override summary = "List the runtime's images (CRI ListImages), as crictl images does.";
  static override description = `The images of the runtime --runtime-endpoint names, or of the embedded one. See docs/runtime/images.md.`;
  static override examples = ['<%= config.bin %> image ls', '<%= config.bin %> image ls -o json'];

  static override flags = {
    output: Flags.string({ char: 'o', options: ['text', 'json'], default: 'text', description: 'Output format' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ImageList);
    const client = await this.connectRuntime(flags);
    try {
      const images = await client.listImages();
      this.log(flags.output === 'json' ? JSON.stringify(images, null, 2) : imageTable(images));
    } finally {
      client.close();
    }
  }
}
