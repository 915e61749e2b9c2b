import { describe, expect, it } from 'vitest';
import { formatReference, parseReference } from '../../../src/runtime/reference.js';

describe('parseReference', () => {
  it.each([
    ['busybox', 'docker.io/library/busybox:latest'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['library/busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['docker.io/busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['index.docker.io/library/busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['me/app:v2', 'docker.io/me/app:v2'],
    ['registry.k8s.io/pause:3.9', 'registry.k8s.io/pause:3.9'],
    ['localhost:5000/app', 'localhost:5000/app:latest'],
    ['localhost/app:1', 'localhost/app:1'],
    ['127.0.0.1:5000/a/b/c:tag', '127.0.0.1:5000/a/b/c:tag'],
    [`busybox@sha256:${'a'.repeat(64)}`, `docker.io/library/busybox@sha256:${'a'.repeat(64)}`],
    [`busybox:1.36@sha256:${'b'.repeat(64)}`, `docker.io/library/busybox@sha256:${'b'.repeat(64)}`],
  ])('normalizes %s to %s', (input, expected) => {
    expect(formatReference(parseReference(input))).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    ['Busybox', 'uppercase repository'],
    ['busy box', 'whitespace'],
    ['busybox:', 'empty tag'],
    ['busybox@sha256:xyz', 'bad digest'],
    ['a//b', 'empty path component'],
    ['-bad:1', 'leading separator'],
  ])('refuses %j (%s) as INVALID_ARGUMENT', (input) => {
    expect(() => parseReference(input)).toThrowError(expect.objectContaining({ code: 3 }));
  });
});
