import * as grpc from '@grpc/grpc-js';
import protobuf from 'protobufjs/light.js';
import { join } from 'node:path';
import { packageRoot } from '../util/install-paths.js';
import type { ProtoGrpcType } from './gen/api.js';
import { descriptors } from './gen/descriptors.js';
import type { ProtoGrpcType as KnodeProtoGrpcType } from './gen/images.js';
import { decodeListContainersResponse, decodeListPodSandboxResponse } from './list-decoder.js';

/** Where knode's CRI subset lives. */
export const protoRoot = join(packageRoot(), 'proto');

/**
 * How messages become objects, for the client and the embedded runtime alike.
 * They must match the flags in scripts/gen-cri-types.js: 64-bit integers as
 * numbers (nanosecond timestamps lose sub-microsecond digits, which nothing
 * reads), enums as their names, and defaults for absent fields. Field names
 * are lowerCamelCase (the descriptors were parsed without keepCase).
 */
export const conversionOptions: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true };

/**
 * What scripts/gen-cri-types.js tells @grpc/proto-loader, whose objects the
 * types describe: the oracle the tests hold conversionOptions to.
 */
export const loaderOptions = { keepCase: false, longs: Number, enums: String, defaults: true, includeDirs: [protoRoot] };

const roots = new Map<string, protobuf.Root>();

/** One proto of proto/, from the descriptors parsed at build time (scripts/gen-cri-types.js). */
export function protoFile(file: 'runtime/v1/api.proto' | 'knode/v1/images.proto' | 'grpc/health/v1/health.proto'): protobuf.Root {
  let root = roots.get(file);
  if (!root) {
    root = protobuf.Root.fromJSON(descriptors[file] as protobuf.INamespace);
    roots.set(file, root);
  }
  return root;
}

/**
 * A service as gRPC wants it: each method's path and its (de)serializers, as
 * @grpc/proto-loader builds them (fromObject then encode; decode then
 * toObject), without the descriptors it adds for reflection, which knode never
 * serves and which cost most of its load time.
 */
export function serviceDefinition(root: protobuf.Root, name: string): Record<string, grpc.MethodDefinition<object, object>> {
  const service = root.lookupService(name);
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of service.methodsArray) {
    method.resolve();
    const request = method.resolvedRequestType!;
    const response = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${service.fullName.slice(1)}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: (value: object) => Buffer.from(request.encode(request.fromObject(value)).finish()),
      requestDeserialize: (bytes: Buffer) => request.toObject(request.decode(bytes), conversionOptions),
      responseSerialize: (value: object) => Buffer.from(response.encode(response.fromObject(value)).finish()),
      responseDeserialize: (bytes: Buffer) => response.toObject(response.decode(bytes), conversionOptions),
      originalName: method.name.charAt(0).toLowerCase() + method.name.slice(1),
    };
  }
  return definition;
}

let cached: ProtoGrpcType | undefined;

/** The runtime.v1 package, loaded once per process. */
export function loadCri(): ProtoGrpcType['runtime']['v1'] {
  if (!cached) {
    const root = protoFile('runtime/v1/api.proto');
    const runtime = serviceDefinition(root, 'runtime.v1.RuntimeService');
    // The two list answers a node reads most are decoded by hand (list-decoder.ts); same objects, a fraction of the time.
    runtime.ListContainers = { ...runtime.ListContainers, responseDeserialize: decodeListContainersResponse };
    runtime.ListPodSandbox = { ...runtime.ListPodSandbox, responseDeserialize: decodeListPodSandboxResponse };
    cached = grpc.loadPackageDefinition({
      'runtime.v1.RuntimeService': runtime,
      'runtime.v1.ImageService': serviceDefinition(root, 'runtime.v1.ImageService'),
    }) as unknown as ProtoGrpcType;
  }
  return cached.runtime.v1;
}

let cachedKnode: KnodeProtoGrpcType | undefined;

/** knode.v1: the embedded runtime's own verbs beside CRI (proto/knode/v1/images.proto). */
export function loadKnode(): KnodeProtoGrpcType['knode']['v1'] {
  if (!cachedKnode) {
    const definition = { 'knode.v1.Images': serviceDefinition(protoFile('knode/v1/images.proto'), 'knode.v1.Images') };
    cachedKnode = grpc.loadPackageDefinition(definition) as unknown as KnodeProtoGrpcType;
  }
  return cachedKnode.knode.v1;
}
