import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { Pod } from '../api/v1.js';
import type { KubeObject } from '../api/workloads.js';
import { readManifestFile } from './bounded-read.js';
import { decodeManifest, formatManifestError, type DecodedManifest } from './manifest.js';
import { applyStaticPodDefaults } from './static-pod.js';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * The manifest files a path names: itself, or a directory's visible .yaml/.yml/.json
 * entries, sorted. Entries of any type are listed (a directory, a FIFO or a
 * device named x.yaml too): the read skips what is not a regular file, and says so.
 * The directory's other visible files go to IGNORED, if given: the
 * kubelet reads every file not starting with a dot, so a manifest without an
 * extension runs there and not here, and deserves a word.
 */
export async function listManifestFiles(path: string, ignored?: string[]): Promise<string[]> {
  if (!(await stat(path)).isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const visible = entries.filter((e) => !e.name.startsWith('.'));
  ignored?.push(
    ...visible
      .filter((e) => !isManifestName(e.name) && (e.isFile() || e.isSymbolicLink()))
      .map((e) => join(path, e.name))
      .sort(),
  );
  return visible
    .filter((e) => isManifestName(e.name))
    .map((e) => join(path, e.name))
    .sort();
}

/** Whether a file of this name is read as manifests (by its extension). */
export function isManifestName(name: string): boolean {
  return MANIFEST_EXTENSIONS.has(extname(name).toLowerCase());
}

/** A file's text decoded into static pods for this node (defaults, name suffix, UID), with its problems. */
export function decodeStaticPods(file: string, text: string, nodeName: string, seenAt: number): { decoded: DecodedManifest; pods: Pod[] } {
  const decoded = decodeManifest(file, text, nodeName.length + 1);
  const pods = decoded.pods.map(({ pod }) => applyStaticPodDefaults(pod, { source: 'file', location: file, nodeName, seenAt }));
  return { decoded, pods };
}

/** Each manifest file of a file or directory with its text, read bounded; a file that cannot be read is a line in ERRORS. */
export async function* manifestTexts(path: string, errors: string[]): AsyncGenerator<{ file: string; text: string }> {
  for (const file of await listManifestFiles(path)) {
    const read = await readManifestFile(file);
    if ('text' in read) yield { file, text: read.text };
    else errors.push(formatManifestError({ source: file, document: 0, message: 'skipped' in read ? read.skipped : read.refused }));
  }
}

/** Reads a file or directory of manifests once: the static pods they give, their other objects, and every problem as a line. */
export async function readManifests(path: string, nodeName: string): Promise<{ pods: Pod[]; objects: KubeObject[]; errors: string[] }> {
  const pods: Pod[] = [];
  const objects: KubeObject[] = [];
  const errors: string[] = [];
  for await (const { file, text } of manifestTexts(path, errors)) {
    const { decoded, pods: filePods } = decodeStaticPods(file, text, nodeName, Date.now());
    pods.push(...filePods);
    objects.push(...decoded.objects.map((o) => o.object));
    errors.push(...decoded.errors.map(formatManifestError));
  }
  return { pods, objects, errors };
}
