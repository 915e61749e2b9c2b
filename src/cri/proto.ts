import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import type { ProtoGrpcType } from './gen/api.js';
import { decodeListContainersResponse, decodeListPodSandboxResponse } from './list-decoder.js';
import type { ProtoGrpcType as KnodeProtoGrpcType } from './gen/images.js';

/** Where knode's CRI subset lives; the same relative path from src/ and dist/. */
export const protoRoot = fileURLToPath(new URL('../../proto', import.meta.url));

/**
 * Loader options shared by the client and the embedded runtime. They must
 * match the flags in scripts/gen-cri-types.js: 64-bit integers as numbers
 * (nanosecond timestamps lose sub-microsecond digits, which nothing reads),
 * enums as their names, and defaults for absent fields.
 */
export const loaderOptions: protoLoader.Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: true,
  includeDirs: [protoRoot],
};

let cached: ProtoGrpcType | undefined;

/** The runtime.v1 package, loaded once per process. */
export function loadCri(): ProtoGrpcType['runtime']['v1'] {
  if (!cached) {
    const definition = protoLoader.loadSync('runtime/v1/api.proto', loaderOptions);
    // The two list answers a node reads most are decoded by hand (list-decoder.ts); same objects, a fraction of the time.
    const service = definition['runtime.v1.RuntimeService'] as Record<string, protoLoader.MethodDefinition<object, object>>;
    service.ListContainers = { ...service.ListContainers, responseDeserialize: decodeListContainersResponse };
    service.ListPodSandbox = { ...service.ListPodSandbox, responseDeserialize: decodeListPodSandboxResponse };
    cached = grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
  }
  return cached.runtime.v1;
}

let cachedKnode: KnodeProtoGrpcType | undefined;

/** knode.v1: the embedded runtime's own verbs beside CRI (proto/knode/v1/images.proto). */
export function loadKnode(): KnodeProtoGrpcType['knode']['v1'] {
  if (!cachedKnode) {
    const definition = protoLoader.loadSync('knode/v1/images.proto', loaderOptions);
    cachedKnode = grpc.loadPackageDefinition(definition) as unknown as KnodeProtoGrpcType;
  }
  return cachedKnode.knode.v1;
}
