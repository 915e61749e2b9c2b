import * as grpc from '@grpc/grpc-js';
import { resolve } from 'node:path';
import { grpcTarget, socketPathOf } from './endpoint.js';
import { CriError } from './errors.js';
import { loadKnode } from './proto.js';
import type { Image } from './types.js';

/**
 * Imports image archives into the embedded runtime through its own service
 * (knode.v1.Images, beside CRI on the same socket): CRI has no import verb,
 * and the runtime must stay the only writer of its image store. Other
 * runtimes answer UNIMPLEMENTED.
 */
export async function importImages(endpoint: string, path: string, baseName = '', timeoutMs = 30 * 60_000): Promise<Image[]> {
  const knode = loadKnode();
  const client = new knode.Images(grpcTarget(socketPathOf(endpoint)), grpc.credentials.createInsecure());
  try {
    return await new Promise<Image[]>((done, fail) => {
      client.ImportImages({ path: resolve(path), baseName }, { deadline: Date.now() + timeoutMs }, (err, res) => {
        if (err || !res) fail(CriError.from('ImportImages', err ?? new Error('empty response')));
        else done(res.images as Image[]);
      });
    });
  } finally {
    client.close();
  }
}
