import type { Image } from '../cri/types.js';
import { humanDuration } from '../engine/api/printers.js';

/** Bytes as crictl and docker print them (decimal units): `1.09MB`. */
export function formatImageSize(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toPrecision(3)}${units[unit]}`;
}

/** `repo:tag` → [repo, tag]; the colon of a registry port is not a tag's. */
function splitTag(reference: string): [string, string] {
  const colon = reference.lastIndexOf(':');
  return colon > reference.lastIndexOf('/') ? [reference.slice(0, colon), reference.slice(colon + 1)] : [reference, '<none>'];
}

/** When a running node last saw an image in use (ms; 0: never), by image id. */
export interface ImageUse {
  lastUsed: Map<string, number>;
  now: number;
}

/**
 * One row per tag (an untagged image gets one row from its digest), as
 * `crictl images` prints them; with USE, a LAST USED column from the node's
 * image garbage collector (`never` for an image no container used yet).
 */
export function imageTable(images: Image[], use?: ImageUse): string {
  const rows: string[][] = [['IMAGE', 'TAG', 'IMAGE ID', 'SIZE', ...(use ? ['LAST USED'] : [])]];
  const lastUsed = (id: string) => {
    const at = use?.lastUsed.get(id);
    if (at === undefined) return '<unknown>';
    return at === 0 ? 'never' : `${humanDuration(use!.now - at)} ago`;
  };
  for (const image of images) {
    const id = image.id.replace(/^sha256:/, '').slice(0, 13);
    const size = formatImageSize(Number(image.size));
    const names = image.repoTags.length
      ? image.repoTags.map(splitTag)
      : image.repoDigests.map((d) => [d.split('@')[0], '<none>'] as [string, string]);
    if (names.length === 0) names.push(['<none>', '<none>']);
    for (const [repo, tag] of names) rows.push([repo, tag, id, size, ...(use ? [lastUsed(image.id)] : [])]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('   ')).join('\n');
}
