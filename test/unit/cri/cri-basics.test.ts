import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { socketPathOf } from '../../../src/cri/endpoint.js';
import { CriError, goCodeName, goErrorString, GrpcCode, runtimeMessage } from '../../../src/cri/errors.js';
import { lookup, nowNs } from '../../../src/runtime/ids.js';

describe('socketPathOf', () => {
  it.each([
    ['unix:///run/containerd/containerd.sock', '/run/containerd/containerd.sock'],
    ['/var/run/crio/crio.sock', '/var/run/crio/crio.sock'],
    ['unix:/tmp/x.sock', '/tmp/x.sock'],
  ])('%s is the socket %s', (endpoint, path) => {
    expect(socketPathOf(endpoint)).toBe(path);
  });

  it('refuses endpoints that are not unix sockets', () => {
    expect(() => socketPathOf('tcp://127.0.0.1:1234')).toThrow(/only unix/);
    expect(() => socketPathOf('unix://')).toThrow(/empty/);
  });
});

describe('id lookup', () => {
  const records = new Map([
    ['abc123', 'first'],
    ['abd456', 'second'],
  ]);

  it('finds by full id and by unique prefix', () => {
    expect(lookup(records, 'abc123', 'container')).toBe('first');
    expect(lookup(records, 'abd', 'container')).toBe('second');
  });

  it('answers NOT_FOUND for no match and INVALID_ARGUMENT for an ambiguous or empty id', () => {
    expect(() => lookup(records, 'zzz', 'container')).toThrowError(expect.objectContaining({ code: 5 }));
    expect(() => lookup(records, 'ab', 'container')).toThrowError(expect.objectContaining({ code: 3 }));
    expect(() => lookup(records, '', 'container')).toThrowError(expect.objectContaining({ code: 3 }));
  });
});

describe('nowNs', () => {
  it('never repeats, so creation order has no ties', () => {
    const stamps = Array.from({ length: 1000 }, () => nowNs());
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThan(stamps[i - 1]);
  });
});

describe('CRI errors as the kubelet words them', () => {
  it.each([
    [GrpcCode.OK, 'OK'],
    [GrpcCode.CANCELLED, 'Canceled'],
    [GrpcCode.UNKNOWN, 'Unknown'],
    [GrpcCode.NOT_FOUND, 'NotFound'],
    [GrpcCode.DEADLINE_EXCEEDED, 'DeadlineExceeded'],
    [GrpcCode.FAILED_PRECONDITION, 'FailedPrecondition'],
    [GrpcCode.UNAUTHENTICATED, 'Unauthenticated'],
    [99 as GrpcCode, 'Code(99)'],
  ])('code %i is %s in grpc-go', (code, name) => {
    expect(goCodeName(code)).toBe(name);
  });

  it("GrpcCode has grpc-js's codes, name for name, number for number (the embedded runtime answers with those)", () => {
    const names = (codes: object) => Object.entries(codes).filter(([, value]) => typeof value === 'number');
    expect(names(GrpcCode)).toEqual(names(grpc.status));
  });

  it("runtimeMessage is the runtime's message alone (status.Message()); goErrorString the Go client's error text", () => {
    const err = new CriError('ExecSync', GrpcCode.NOT_FOUND, 'container "abc" not found');
    expect(err.message).toBe('ExecSync: NOT_FOUND: container "abc" not found');
    expect(runtimeMessage(err)).toBe('container "abc" not found');
    expect(goErrorString(err)).toBe('rpc error: code = NotFound desc = container "abc" not found');
    expect(runtimeMessage(new Error('plain'))).toBe('plain');
    expect(goErrorString(new Error('plain'))).toBe('plain');
  });
});
