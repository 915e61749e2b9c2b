import { describe, expect, it } from 'vitest';
import { describeConfigMap, describeSecret } from '../../../src/ui/describe-config.js';

const meta = { name: 'site', namespace: 'shop', labels: { app: 'web' } };

describe('describe configmap and secret', () => {
  it('prints a ConfigMap’s values under their keys, sorted, and its binary keys by size', () => {
    const text = describeConfigMap(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: meta,
        data: { 'z.txt': 'last', 'a.conf': 'one\ntwo' },
        binaryData: { blob: 'AAEC' },
      },
      undefined,
      0,
    );
    expect(text).toBe(
      [
        'Name:         site',
        'Namespace:    shop',
        'Labels:       app=web',
        'Annotations:  <none>',
        '',
        'Data',
        '====',
        'a.conf:',
        '----',
        'one',
        'two',
        '',
        'z.txt:',
        '----',
        'last',
        '',
        '',
        'BinaryData',
        '====',
        'blob: 3 bytes',
        '',
        '',
      ].join('\n'),
    );
  });

  it('prints a Secret’s type and its keys by size, never their values', () => {
    const text = describeSecret({ apiVersion: 'v1', kind: 'Secret', metadata: meta, type: 'Opaque', data: { password: 'czNjcjN0' } });
    expect(text).toContain('\nType:  Opaque\n\nData\n====\npassword:  6 bytes\n');
    expect(text).not.toContain('s3cr3t');
  });
});
