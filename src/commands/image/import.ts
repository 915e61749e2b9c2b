import { Args, Flags } from '@oclif/core';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { BaseCommand } from '../../cli/base-command.js';
import { CriError, GrpcCode } from '../../cri/errors.js';
import { importImages } from '../../cri/image-import.js';
import { imageTable } from '../../ui/image-table.js';
import { UserError } from '../../util/user-error.js';

export default class ImageImport extends BaseCommand {
  static override summary = 'Import images from an OCI layout tarball or a docker save archive, for machines without a registry.';
  static override description = `The embedded runtime keeps the images as if pulled; it needs <root-dir>/registries.yaml (may be empty), and archives that name images by tag only need --base-name. See docs/runtime/images.md.`;

  static override examples = [
    '<%= config.bin %> image import busybox.tar',
    '<%= config.bin %> image import busybox-oci.tar --base-name docker.io/library/busybox',
  ];

  static override args = { file: Args.string({ description: 'The archive (tar, or tar.gz)', required: true }) };

  static override flags = {
    'base-name': Flags.string({ description: 'Repository for images the archive names by tag only, e.g. docker.io/library/busybox' }),
    output: Flags.string({ char: 'o', options: ['text', 'json'], default: 'text', description: 'Output format' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ImageImport);
    const file = resolve(args.file);
    if (!existsSync(file)) throw new UserError('usage', `no such file: ${args.file}`);
    const client = await this.connectRuntime(flags);
    let images;
    try {
      images = await importImages(client.endpoint, file, flags['base-name']);
    } catch (err) {
      if (err instanceof CriError && err.code === GrpcCode.UNIMPLEMENTED) {
        throw new UserError(
          'usage',
          `the runtime at ${client.endpoint} has no import verb (only knode's embedded runtime does)`,
          'for containerd: ctr -n k8s.io images import FILE',
        );
      }
      if (err instanceof CriError) throw new UserError('workloadFailed', err.details);
      throw err;
    } finally {
      client.close();
    }
    this.log(flags.output === 'json' ? JSON.stringify(images, null, 2) : imageTable(images));
  }
}
