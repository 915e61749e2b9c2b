// The CRI services as grpc-js wants them, for the embedded runtime's server
// and the knode.v1 client; the CRI client does without (grpc-channel.ts).
import * as grpc from '@grpc/grpc-js';
import type { ProtoGrpcType } from './gen/api.js';
import type { ProtoGrpcType as KnodeProtoGrpcType } from './gen/images.js';
import { criRuntimeService, serviceDefinition } from './proto.js';

let cached: ProtoGrpcType | undefined;

/** The runtime.v1 package, loaded once per process. */
export function loadCri(): ProtoGrpcType['runtime']['v1'] {
  if (!cached) {
    cached = grpc.loadPackageDefinition({
      'runtime.v1.RuntimeService': criRuntimeService(),
      'runtime.v1.ImageService': serviceDefinition('runtime/v1/api.proto', 'runtime.v1.ImageService'),
    }) as unknown as ProtoGrpcType;
  }
  return cached.runtime.v1;
}

let cachedKnode: KnodeProtoGrpcType | undefined;

/** knode.v1: the embedded runtime's own verbs beside CRI (proto/knode/v1/images.proto). */
export function loadKnode(): KnodeProtoGrpcType['knode']['v1'] {
  if (!cachedKnode) {
    const definition = { 'knode.v1.Images': serviceDefinition('knode/v1/images.proto', 'knode.v1.Images') };
    cachedKnode = grpc.loadPackageDefinition(definition) as unknown as KnodeProtoGrpcType;
  }
  return cachedKnode.knode.v1;
}
