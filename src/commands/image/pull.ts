import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { CriError } from '../../cri/errors.js';
import { formatImageSize } from '../../ui/image-table.js';
import { UserError } from '../../util/user-error.js';

export default class ImagePull extends BaseCommand {
  static override summary = 'Pull an image into the runtime, as the kubelet would (CRI PullImage).';
  static override description = `On the embedded runtime, pulls are real when <root-dir>/registries.yaml exists (it may be empty); without it, images are records. See docs/runtime/images.md.`;

  static override examples = [
    '<%= config.bin %> image pull busybox:1.36',
    '<%= config.bin %> image pull registry.example.com/team/app:v2 --creds user:secret',
    '<%= config.bin %> image pull docker.io/library/busybox@sha256:<digest>',
  ];

  static override args = { image: Args.string({ description: 'Image reference (name[:tag] or name@digest)', required: true }) };

  static override flags = {
    creds: Flags.string({ description: 'USER:PASSWORD for the registry (sent as the CRI AuthConfig)' }),
    output: Flags.string({ char: 'o', options: ['text', 'json'], default: 'text', description: 'Output format' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ImagePull);
    let auth;
    if (flags.creds) {
      const colon = flags.creds.indexOf(':');
      if (colon <= 0) throw new UserError('usage', '--creds must be USER:PASSWORD');
      auth = { username: flags.creds.slice(0, colon), password: flags.creds.slice(colon + 1) };
    }
    const client = await this.connectRuntime(flags);
    try {
      const started = performance.now();
      let imageRef: string;
      try {
        imageRef = await client.pullImage({ image: args.image }, auth);
      } catch (err) {
        if (err instanceof CriError)
          throw new UserError(
            'workloadFailed',
            err.details,
            'check the name and tag, and the registry (knode runtime status shows where images come from)',
          );
        throw err;
      }
      const seconds = (performance.now() - started) / 1000;
      const image = await client.imageStatus({ image: imageRef });
      if (flags.output === 'json') {
        this.log(JSON.stringify({ imageRef, image, seconds }, null, 2));
        return;
      }
      this.log(`pulled ${args.image}: ${imageRef} (${formatImageSize(Number(image?.size ?? 0))}) in ${seconds.toFixed(2)} s`);
    } finally {
      client.close();
    }
  }
}
