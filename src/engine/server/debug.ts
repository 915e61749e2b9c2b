import type { ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';

/** The longest CPU profile one request may ask for (the kubelet's pprof has no cap; a node should). */
const MAX_PROFILE_SECONDS = 300;

let busy = false;

/**
 * Profiling handlers, the Node counterpart of the kubelet's /debug/pprof/:
 * `/debug/profile?seconds=N` records a V8 CPU profile for N seconds and
 * returns it as a `.cpuprofile` (Chrome DevTools, speedscope), `/debug/heap`
 * streams a heap snapshot (`.heapsnapshot`). Both use node:inspector inside
 * this process; one at a time, since both stop the world to some degree.
 */
export async function serveDebug(pathname: string, url: URL, nodeName: string, res: ServerResponse): Promise<void> {
  if (pathname === '/debug' || pathname === '/debug/') {
    return text(
      res,
      200,
      'profile?seconds=N  a V8 CPU profile (.cpuprofile) of N seconds (default 30)\nheap               a heap snapshot (.heapsnapshot)\n',
    );
  }
  const kind = pathname === '/debug/profile' ? 'profile' : pathname === '/debug/heap' ? 'heap' : undefined;
  if (!kind) return text(res, 404, `no such profile: ${pathname} (there are /debug/profile and /debug/heap)\n`);
  const seconds = Number(url.searchParams.get('seconds') ?? '30');
  if (kind === 'profile' && !(seconds > 0 && seconds <= MAX_PROFILE_SECONDS)) {
    return text(
      res,
      400,
      `seconds=${url.searchParams.get('seconds')}: expected a number of seconds above 0 and at most ${MAX_PROFILE_SECONDS}\n`,
    );
  }
  if (busy) return text(res, 409, 'a profile is being taken already; try again when it is done\n');
  busy = true;
  const session = new Session();
  session.connect();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  try {
    if (kind === 'profile') {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      const aborted = await new Promise<boolean>((done) => {
        const timer = setTimeout(() => done(false), seconds * 1000);
        res.once('close', () => {
          clearTimeout(timer);
          done(true);
        });
      });
      const { profile } = await session.post('Profiler.stop');
      if (aborted) return;
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-disposition': `attachment; filename="knode-${nodeName}-${stamp}.cpuprofile"`,
      });
      res.end(JSON.stringify(profile));
    } else {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-disposition': `attachment; filename="knode-${nodeName}-${stamp}.heapsnapshot"`,
      });
      session.on('HeapProfiler.addHeapSnapshotChunk', (m) => res.write(m.params.chunk));
      await session.post('HeapProfiler.takeHeapSnapshot');
      res.end();
    }
  } finally {
    session.disconnect();
    busy = false;
  }
}

function text(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}
