import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The cri-api release knode's proto is checked against, from the Go module proxy. */
export const CRI_API = 'k8s.io/cri-api@v0.37.2';

/** Path of upstream's api.proto in the Go module cache (downloaded on first use). */
export function upstreamProtoPath(): string {
  const out = execFileSync('go', ['mod', 'download', '-json', CRI_API], { encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
  return join(JSON.parse(out).Dir as string, 'pkg/apis/runtime/v1/api.proto');
}
