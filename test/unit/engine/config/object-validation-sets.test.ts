import { describe, expect, it } from 'vitest';
import { decodeManifest, formatManifestError } from '../../../../src/engine/config/manifest.js';

const SOURCE = '/m/app.yaml';
const errorsOf = (text: string) => decodeManifest(SOURCE, text).errors.map(formatManifestError);
const at = (what: string) => `${SOURCE}, document 0, ${what}`;

const template = `
  template:
    metadata:
      labels: { app: db }
    spec:
      containers:
        - name: main
          image: busybox
          volumeMounts: [{ name: data, mountPath: /data }]`;

describe('StatefulSets, DaemonSets and PersistentVolumeClaims, validated as the apiserver validates them', () => {
  it('takes a StatefulSet whose containers mount a claim template', () => {
    const text = `apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  serviceName: db\n  selector:\n    matchLabels: { app: db }${template}\n  volumeClaimTemplates:\n    - metadata: { name: data }\n      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }\n`;
    expect(errorsOf(text)).toEqual([]);
    expect(decodeManifest(SOURCE, text).objects.map((o) => o.object.kind)).toEqual(['StatefulSet']);
  });

  it.each([
    [
      'a claim template without access modes or storage',
      `  serviceName: db\n  selector:\n    matchLabels: { app: db }${template}\n  volumeClaimTemplates:\n    - metadata: { name: data }\n      spec: {}\n`,
      [
        'StatefulSet "db": spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required',
        'StatefulSet "db": spec.volumeClaimTemplates[0].spec.resources[storage]: Required value',
      ],
    ],
    [
      'a bad policy, service name and partition',
      `  podManagementPolicy: Burst\n  serviceName: DB\n  updateStrategy: { rollingUpdate: { partition: -1 } }\n  selector:\n    matchLabels: { app: db }${template}\n  volumeClaimTemplates:\n    - metadata: { name: data }\n      spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }\n`,
      [
        `StatefulSet "db": spec.podManagementPolicy: Invalid value: "Burst": must be 'OrderedReady' or 'Parallel'`,
        'StatefulSet "db": spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0',
      ],
    ],
    [
      'a mount of a volume that is not there',
      `  selector:\n    matchLabels: { app: db }${template}\n`,
      ['StatefulSet "db": spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    ],
  ])('refuses a StatefulSet with %s', (_what, spec, errors) => {
    const found = errorsOf(`apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n${spec}`);
    for (const e of errors) expect(found).toContain(at(e));
  });

  it('refuses a DaemonSet with an empty selector, and one with both maxSurge and maxUnavailable', () => {
    const ds = (selector: string, strategy = '') =>
      `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n${strategy}  selector: ${selector}\n  template:\n    metadata:\n      labels: { app: a }\n    spec:\n      containers: [{ name: main, image: busybox }]\n`;
    expect(errorsOf(ds('{}'))).toEqual([
      at('DaemonSet "agent": spec.selector: Invalid value: "": empty selector is invalid for daemonset'),
    ]);
    expect(
      errorsOf(ds('{ matchLabels: { app: a } }', '  updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } }\n')),
    ).toEqual([
      at('DaemonSet "agent": spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero'),
    ]);
    expect(errorsOf(ds('{ matchLabels: { app: b } }'))[0]).toBe(
      at('DaemonSet "agent": spec.template.metadata.labels: Invalid value: {"app":"a"}: `selector` does not match template `labels`'),
    );
  });

  it('refuses a claim with an access mode it does not know and a storage of zero', () => {
    expect(
      errorsOf(
        'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: c\nspec:\n  accessModes: [ReadWriteAll]\n  resources: { requests: { storage: "0" } }\n',
      ),
    ).toEqual([
      at(
        'PersistentVolumeClaim "c": spec.accessModes: Unsupported value: "ReadWriteAll": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
      ),
      at('PersistentVolumeClaim "c": spec.resources[storage]: Invalid value: "0": must be greater than zero'),
    ]);
  });
});
