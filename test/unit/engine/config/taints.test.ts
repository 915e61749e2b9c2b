import { describe, expect, it } from 'vitest';
import { checkTaintList, parseTaints } from '../../../../src/engine/config/taints.js';

describe('registerWithTaints', () => {
  it.each([
    ['dedicated=edge:NoSchedule', [{ key: 'dedicated', value: 'edge', effect: 'NoSchedule' }]],
    [
      'example.com/gpu:NoExecute, spot=true:PreferNoSchedule',
      [
        { key: 'example.com/gpu', effect: 'NoExecute' },
        { key: 'spot', value: 'true', effect: 'PreferNoSchedule' },
      ],
    ],
  ])('reads %s as the kubelet flag does', (text, taints) => {
    expect(parseTaints(text)).toEqual(taints);
  });

  it.each([
    ['dedicated', 'invalid taint spec: dedicated'],
    ['a=b:Sometimes', 'invalid taint effect: Sometimes, unsupported taint effect'],
    ['a=b=c:NoSchedule', 'invalid taint spec: a=b=c:NoSchedule'],
    ['-bad:NoSchedule', 'invalid taint spec: -bad:NoSchedule, name part must consist of'],
    ['a=b:NoSchedule,a=c:NoSchedule', 'duplicated taints with the same key and effect: a=c:NoSchedule'],
  ])('refuses %s with upstream’s text', (text, message) => {
    expect(() => parseTaints(text)).toThrow(message);
  });

  it('takes a list of taints from a --config file', () => {
    expect(checkTaintList([{ key: 'a', value: 'b', effect: 'NoExecute' }])).toEqual([{ key: 'a', value: 'b', effect: 'NoExecute' }]);
    expect(() => checkTaintList([{ key: 'a', effect: 'Never' }])).toThrow('invalid taint: {"key":"a","effect":"Never"}');
    expect(() => checkTaintList('a:NoSchedule')).toThrow(/expected a list of taints/);
  });
});
