import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { UserError } from '../../util/user-error.js';

export default class ImageRemove extends BaseCommand {
  static override summary = 'Remove images from the runtime (CRI RemoveImage).';
  static override description = `Removes each image named by reference or image id; the embedded runtime also deletes the blobs and layers no other image uses. See docs/runtime/images.md.`;
  static override strict = false;
  static override examples = ['<%= config.bin %> image rm busybox:1.36', '<%= config.bin %> image rm sha256:86b62f119ab4...'];

  static override args = { image: Args.string({ description: 'Image reference or id (several may be given)', required: true }) };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(ImageRemove);
    const client = await this.connectRuntime(flags);
    const missing: string[] = [];
    try {
      for (const name of argv as string[]) {
        const image = await client.imageStatus({ image: name });
        if (!image) {
          missing.push(name);
          continue;
        }
        await client.removeImage({ image: image.id });
        this.log(`deleted ${name} (${image.id})`);
      }
    } finally {
      client.close();
    }
    if (missing.length)
      throw new UserError('workloadFailed', `no such image: ${missing.join(', ')}`, 'knode image ls lists the images the runtime has');
  }
}
