// get as kubectl's: what the real `kubectl get` (and `-o wide`) prints of the
// objects a scenario left in its namespace, beside the tables knode's get makes of the
// same objects (getRequest, wanted, workloadsAsked and getTables, as
// src/commands/status.ts calls them). The columns that move with the clock
// (AGE, DURATION, LAST SCHEDULE, a restart's "(5m ago)") are left out of
// both; every other cell, the headers and the order of tables and rows must
// be equal, and so must kubectl's NotFound for a name not there.
import { getRequest, getTables, wanted, workloadsAsked } from '../../../src/cli/get-request.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { compareStrings } from '../../../src/util/compare.js';

type Kubectl = (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

const LISTED = 'pods,daemonsets,deployments,replicasets,statefulsets,cronjobs,jobs,configmaps,secrets,persistentvolumeclaims';
const CLOCKED = new Set(['AGE', 'DURATION', 'LAST SCHEDULE']);

/**
 * A table's text without the clock's columns: each block (tables are
 * blank-line apart) cut into cells where its header's names begin (they are
 * three spaces apart or more), one line per row, cells `|`-joined.
 */
export function withoutClock(text: string): string {
  return text
    .trimEnd()
    .split('\n\n')
    .map((block) => {
      const [header, ...rows] = block.split('\n');
      const starts = [...header.matchAll(/(?:^|\s{2,})(\S)/g)].map((m) => m.index + m[0].length - 1);
      const cut = (line: string) => starts.map((start, i) => line.slice(start, starts[i + 1]).trim());
      const names = cut(header);
      const kept = (line: string) =>
        cut(line)
          .filter((_, i) => !CLOCKED.has(names[i]))
          .map((cell, i) => (names.filter((n) => !CLOCKED.has(n))[i] === 'RESTARTS' ? cell.replace(/ \(.* ago\)$/, '') : cell))
          .join('|');
      return [header, ...rows].map(kept).join('\n');
    })
    .join('\n\n');
}

/** kubectl's Services, which knode does not list: their table (in `get all -A`, the default namespace's `kubernetes`) left out. */
const withoutServices = (text: string) =>
  text
    .split('\n\n')
    .filter((block) => !/^(\S+\s+)?service\//m.test(block.split('\n')[1] ?? ''))
    .join('\n\n');

/** What knode's get prints of WORDS for OBJECTS in NAMESPACE (every one when undefined): its tables, and kubectl's NotFound lines. */
function knodeGet(words: string[], objects: KubeObject[], namespace: string | undefined): { stdout: string; stderr: string } {
  const wide = words.includes('wide');
  const request = getRequest(words.filter((w) => w !== '-o' && w !== 'wide'));
  const place = (p: Pod) => `${p.metadata.namespace}/${p.metadata.name}`;
  const pods = (objects.filter((o) => o.kind === 'Pod') as unknown as Pod[]).sort((a, b) => compareStrings(place(a), place(b)));
  const chosen = wanted(request, 'Pod', pods);
  const others = workloadsAsked(
    request,
    objects.filter((o) => o.kind !== 'Pod'),
    namespace,
  );
  const tables = getTables(request, chosen, others, { now: Date.now(), namespace, wide });
  const where = namespace ? ` in ${namespace} namespace` : '';
  const none = tables.length === 0 && request.notFound.length === 0 ? [`No resources found${where}.`] : [];
  return {
    stdout: tables.length > 0 ? `${tables.join('\n\n')}\n` : '',
    stderr: [...none, ...request.notFound].map((line) => `${line}\n`).join(''),
  };
}

/**
 * The get commands asked of NAMESPACE's objects: `all` and the other kinds
 * knode lists (and both -o wide), each kind alone, two objects by TYPE/NAME (kinds in an order
 * of their own), and a name that is not there beside one that is.
 */
function requests(objects: KubeObject[]): string[][] {
  const kinds = [...new Set(objects.map((o) => o.kind))];
  const first = (kind: string) => objects.find((o) => o.kind === kind)!.metadata.name!;
  const asked: string[][] = [['all'], ['cm,secret,pvc'], ['all', '-o', 'wide'], ['cm,secret,pvc', '-o', 'wide']];
  asked.push(...kinds.map((kind) => [kind.toLowerCase()]));
  const workloads = kinds.filter((k) => k !== 'Pod' && k !== 'ConfigMap');
  if (workloads.length > 0 && kinds.includes('ConfigMap'))
    asked.push([`${workloads.at(-1)!.toLowerCase()}/${first(workloads.at(-1)!)}`, `configmap/${first('ConfigMap')}`]);
  if (workloads.length > 0) asked.push([workloads[0].toLowerCase(), 'not-there', first(workloads[0])]);
  return asked;
}

/**
 * Where knode's get of NAMESPACE's objects differs from kubectl's, as texts
 * to print, and how many gets were compared; with no NAMESPACE, `get all -A`
 * alone, across the scenarios' namespaces.
 */
export async function getDifferences(
  kubectl: Kubectl,
  namespace: string | undefined,
  attempts = 5,
): Promise<{ compared: number; differences: string[] }> {
  const scope = namespace ? ['-n', namespace] : ['-A'];
  const listed = await kubectl('get', LISTED, ...scope, '-o', 'json');
  if (listed.code !== 0) return { compared: 0, differences: [`${namespace ?? '-A'}: kubectl get: ${listed.stderr.trim()}`] };
  const objects = (JSON.parse(listed.stdout) as { items: KubeObject[] }).items;
  const differences: string[] = [];
  const asked = namespace ? requests(objects) : [['all']];
  for (const words of asked) {
    const theirs = await kubectl('get', ...words, ...scope);
    const mine = knodeGet(words, objects, namespace);
    const [a, b] = [withoutClock(withoutServices(theirs.stdout)), withoutClock(mine.stdout)];
    if (a !== b || theirs.stderr !== mine.stderr)
      differences.push(
        `${namespace ?? '-A'} get ${words.join(' ')}\n--- kubectl\n${theirs.stdout}${theirs.stderr}--- knode\n${mine.stdout}${mine.stderr}`,
      );
  }
  // The objects changed while kubectl printed them (a pod scaled down): asked again, a few times, before it counts.
  const again = await kubectl('get', LISTED, ...scope, '-o', 'json');
  if (again.stdout === listed.stdout) return { compared: asked.length, differences };
  if (attempts > 1) return getDifferences(kubectl, namespace, attempts - 1);
  return { compared: 0, differences: [`${namespace ?? '-A'}: the objects kept changing while kubectl printed them`, ...differences] };
}
