import { connect } from 'node:net';
import { resolve } from 'node:path';
import { socketPathOf } from './endpoint.js';
import { CriError } from './errors.js';
import { GrpcChannel, type GrpcMethod } from './grpc-channel.js';
import { serviceDefinition } from './proto.js';
import type { Image } from './types.js';

/** knode.v1.Images/ImportImages's request and answer, as images.proto declares them. */
type ImportMethod = GrpcMethod<{ path: string; baseName: string }, { images: Image[] }>;

/**
 * Imports image archives into the embedded runtime through its own service
 * (knode.v1.Images, beside CRI on the same socket): CRI has no import verb,
 * and the runtime must stay the only writer of its image store. Other
 * runtimes answer UNIMPLEMENTED.
 */
export async function importImages(endpoint: string, path: string, baseName = '', timeoutMs = 30 * 60_000): Promise<Image[]> {
  const method = serviceDefinition('knode/v1/images.proto', 'knode.v1.Images').ImportImages as ImportMethod;
  const socketPath = socketPathOf(endpoint);
  const channel = new GrpcChannel({ connect: () => connect(socketPath), maxMessageBytes: 16 * 1024 * 1024 });
  try {
    const answer = await channel.call(method, { path: resolve(path), baseName }, timeoutMs);
    return answer.images;
  } catch (err) {
    throw CriError.from('ImportImages', err as Error);
  } finally {
    channel.close();
  }
}
