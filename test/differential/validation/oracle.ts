// The two judges of the validation differential: the real kube-apiserver (a
// dry-run create, nothing stored) and knode's manifest decoder (decodeManifest,
// what the static-pod file source, URL source and `knode apply` go through).
// Each gives a verdict: accepted, or rejected with the field paths it names.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import { decodeManifest } from '../../../src/engine/config/manifest.js';

export interface Verdict {
  accepted: boolean;
  /** For a rejection: the field paths named (the apiserver's details.causes[].field), sorted, once each. */
  fields: string[];
  /** invalid (422, validation), decode (400, the body did not decode), admission (403), or the HTTP code. */
  reason: string;
  message: string;
  /** For a rejection: each problem as `field: message`, sorted. */
  causes: string[];
}

/** The apiserver's verdict on a manifest: POST .../pods?dryRun=All as the admin, the body sent as it is. */
export class ApiserverJudge {
  private readonly agent: Agent;

  constructor(
    private readonly apiserver: string,
    dir: string,
    concurrency: number,
  ) {
    const pki = join(dir, 'pki');
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: concurrency,
      ca: readFileSync(join(pki, 'ca.crt')),
      cert: readFileSync(join(pki, 'admin.crt')),
      key: readFileSync(join(pki, 'admin.key')),
    });
  }

  judge(text: string): Promise<Verdict> {
    const url = new URL('/api/v1/namespaces/default/pods?dryRun=All', this.apiserver);
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent: this.agent, headers: { 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(apiserverVerdict(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

interface Status {
  message?: string;
  details?: { causes?: { field?: string; message?: string }[] };
}

function apiserverVerdict(code: number, body: string): Verdict {
  if (code === 201 || code === 200) return { accepted: true, fields: [], reason: 'accepted', message: '', causes: [] };
  let status: Status;
  try {
    status = JSON.parse(body) as Status;
  } catch {
    status = { message: body };
  }
  const message = status.message ?? '';
  const reason = code === 422 ? 'invalid' : code === 400 ? 'decode' : code === 403 ? 'admission' : String(code);
  let fields = (status.details?.causes ?? []).map((c) => c.field ?? '').filter((f) => f !== '');
  // The decoder names the field as the Go structs do, without indices: "Go struct field Probe.spec.containers.livenessProbe.periodSeconds".
  const goField = /Go struct field [A-Za-z]+\.([\w.]+) of type/.exec(message);
  // Embedded structs (ProbeHandler, VolumeSource) are named in it but are no part of the JSON path.
  if (reason === 'decode' && goField)
    fields = [
      goField[1]
        .split('.')
        .filter((part) => !/^[A-Z]/.test(part))
        .join('.'),
    ];
  const causes = unique((status.details?.causes ?? []).map((c) => `${c.field ?? ''}: ${c.message ?? ''}`));
  return { accepted: false, fields: unique(fields), reason, message, causes };
}

/** knode's verdict: what decodeManifest makes of the same text (no name suffix: the name is checked as it is). */
export function knodeVerdict(text: string): Verdict {
  const decoded = decodeManifest('oracle.json', text, 0);
  if (decoded.errors.length === 0 && decoded.pods.length === 1)
    return { accepted: true, fields: [], reason: 'accepted', message: '', causes: [] };
  const fields = unique(decoded.errors.map((e) => e.field ?? ''));
  const causes = unique(decoded.errors.map((e) => `${e.field ?? ''}: ${e.message}`));
  return { accepted: false, fields, reason: 'invalid', message: causes.join('; '), causes };
}

function unique(fields: string[]): string[] {
  return [...new Set(fields)].sort();
}

/**
 * Whether the two verdicts agree: the same accept or reject, and for a
 * rejection the same field paths. A body that did not decode is named by the
 * decoder without indices, and by its first bad field only (a bad quantity by
 * none): that field must be among knode's, compared without their indices.
 */
export function agree(apiserver: Verdict, knode: Verdict): boolean {
  if (apiserver.accepted !== knode.accepted) return false;
  if (apiserver.accepted) return true;
  if (apiserver.reason === 'decode') {
    // The decoder stops at the first field it cannot fit: that one must be among knode's.
    const theirs = knode.fields.map((f) => f.replace(/\[[^\]]*\]/g, ''));
    return apiserver.fields.every((f) => theirs.includes(f));
  }
  return apiserver.fields.length === knode.fields.length && apiserver.fields.every((f) => knode.fields.includes(f));
}

/** Whether a rejection both agree on is worded alike too: the same `field: message` set (an invalid body only). */
export function sameWords(apiserver: Verdict, knode: Verdict): boolean {
  return apiserver.causes.length === knode.causes.length && apiserver.causes.every((c) => knode.causes.includes(c));
}

/** Runs `work` over the items, `concurrency` at a time, keeping their order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}
