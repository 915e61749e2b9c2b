import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { NodeClient } from '../../cli/node-client.js';
import { imageTable, type ImageUse } from '../../ui/image-table.js';

export default class ImageList extends BaseCommand {
  static override summary = "List the runtime's images (CRI ListImages), as crictl images does.";
  static override description = `The images of the runtime --runtime-endpoint names, or of the embedded one. While a node runs under --root-dir, LAST USED says when its image garbage collector last saw each image in use. See docs/runtime/images.md.`;
  static override examples = ['<%= config.bin %> image ls', '<%= config.bin %> image ls -o json'];

  static override flags = {
    output: Flags.string({ char: 'o', options: ['text', 'json'], default: 'text', description: 'Output format' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ImageList);
    const client = await this.connectRuntime(flags);
    try {
      const images = await client.listImages();
      if (flags.output === 'json') return this.log(JSON.stringify(images, null, 2));
      this.log(imageTable(images, await this.imageUse(this.rootDir(flags))));
    } finally {
      client.close();
    }
  }

  /** What the node running under ROOT_DIR knows of each image's use; undefined when none runs. */
  private async imageUse(rootDir: string): Promise<ImageUse | undefined> {
    const node = await NodeClient.find(rootDir);
    if (!node) return undefined;
    const { status, body } = await node.json<{ images: { id: string; lastUsed: string | null }[] }>('/images');
    if (status !== 200) return undefined;
    return { now: Date.now(), lastUsed: new Map(body.images.map((i) => [i.id, i.lastUsed ? Date.parse(i.lastUsed) : 0])) };
  }
}
