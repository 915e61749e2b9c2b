// knode's proto is its own subset of CRI runtime.v1; this test holds it to the
// upstream wire contract. Upstream comes from the Go module proxy
// (k8s.io/cri-api), the same source the real runtimes are built from.
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { protoRoot } from '../../../src/cri/proto.js';
import { CRI_API, upstreamProtoPath } from '../../helpers/upstream-cri.js';

/** string and bytes are both length-delimited on the wire (upstream made KeyValue.value bytes in 0.37). */
function sameWireType(a: string, b: string): boolean {
  const lengthDelimited = new Set(['string', 'bytes']);
  return lengthDelimited.has(a) && lengthDelimited.has(b);
}

function types(root: protobuf.Root) {
  const ns = root.lookup('runtime.v1') as protobuf.Namespace;
  return ns.nestedArray;
}

describe(`proto/runtime/v1/api.proto against upstream ${CRI_API}`, () => {
  const ours = protobuf.loadSync(join(protoRoot, 'runtime/v1/api.proto'));
  const upstream = protobuf.loadSync(upstreamProtoPath());

  it('declares only upstream messages, with upstream field names, numbers, types and labels', () => {
    const problems: string[] = [];
    for (const item of types(ours)) {
      if (!(item instanceof protobuf.Type)) continue;
      const theirs = upstream.lookupType(`runtime.v1.${item.name}`);
      for (const field of item.fieldsArray) {
        const other = theirs.fields[field.name];
        const where = `${item.name}.${field.name}`;
        if (!other) problems.push(`${where}: not upstream`);
        else {
          if (other.id !== field.id) problems.push(`${where}: number ${field.id}, upstream ${other.id}`);
          if (other.type !== field.type && !sameWireType(field.type, other.type))
            problems.push(`${where}: type ${field.type}, upstream ${other.type}`);
          if (other.repeated !== field.repeated || other.map !== field.map) problems.push(`${where}: label differs`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('declares enum values with upstream numbers', () => {
    const problems: string[] = [];
    for (const item of types(ours)) {
      if (!(item instanceof protobuf.Enum)) continue;
      const theirs = upstream.lookupEnum(`runtime.v1.${item.name}`);
      for (const [name, value] of Object.entries(item.values)) {
        if (theirs.values[name] !== value) problems.push(`${item.name}.${name} = ${value}, upstream ${theirs.values[name]}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('declares upstream methods with the same request, response and streaming', () => {
    const problems: string[] = [];
    for (const serviceName of ['RuntimeService', 'ImageService']) {
      const mine = ours.lookupService(`runtime.v1.${serviceName}`);
      const theirs = upstream.lookupService(`runtime.v1.${serviceName}`);
      for (const method of mine.methodsArray) {
        const other = theirs.methods[method.name];
        if (!other) problems.push(`${serviceName}.${method.name}: not upstream`);
        else if (
          other.requestType !== method.requestType ||
          other.responseType !== method.responseType ||
          !!other.responseStream !== !!method.responseStream
        ) {
          problems.push(`${serviceName}.${method.name}: signature differs`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('covers every call knode needs', () => {
    const runtime = ours.lookupService('runtime.v1.RuntimeService').methodsArray.map((m) => m.name);
    const image = ours.lookupService('runtime.v1.ImageService').methodsArray.map((m) => m.name);
    expect(runtime).toEqual(
      expect.arrayContaining([
        'Version',
        'RunPodSandbox',
        'StopPodSandbox',
        'RemovePodSandbox',
        'PodSandboxStatus',
        'ListPodSandbox',
        'CreateContainer',
        'StartContainer',
        'StopContainer',
        'RemoveContainer',
        'ListContainers',
        'ContainerStatus',
        'ExecSync',
        'ReopenContainerLog',
        'ContainerStats',
        'ListContainerStats',
        'Status',
        'GetContainerEvents',
      ]),
    );
    expect(image).toEqual(expect.arrayContaining(['ListImages', 'ImageStatus', 'PullImage', 'RemoveImage', 'ImageFsInfo']));
  });
});
