import { createReadStream, readdirSync, realpathSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, resolve, sep } from 'node:path';

/**
 * The kubelet's /logs/ handler: files under the node's log directory (the
 * kubelet's /var/log), and a listing for directories, as Go's
 * http.FileServer serves them. Nothing outside the directory is reachable:
 * undecodable paths, NUL bytes, backslashes and `..` segments are refused
 * with 400, and a path that resolves (through symlinks) outside with 404, as
 * if it were not there.
 */
export function serveNodeLog(logDir: string, pathname: string, res: ServerResponse): void {
  const rel = pathname.slice('/logs/'.length);
  let name: string;
  try {
    name = decodeURIComponent(rel);
  } catch {
    return plain(res, 400, `invalid URL escape in ${pathname}\n`);
  }
  if (name.includes('\0') || name.includes('\\') || name.split('/').includes('..')) {
    return plain(res, 400, `invalid path: ${JSON.stringify(rel)}\n`);
  }
  let root: string;
  try {
    root = realpathSync(logDir);
  } catch {
    return plain(res, 404, `the node's log directory ${logDir} does not exist\n`);
  }
  const target = resolve(root, name.replace(/^\/+/, ''));
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    return plain(res, 404, '404 page not found\n');
  }
  if (real !== root && !real.startsWith(root + sep)) return plain(res, 404, '404 page not found\n');
  let stat;
  try {
    stat = statSync(real);
  } catch {
    return plain(res, 404, '404 page not found\n');
  }
  if (stat.isDirectory()) {
    if (!pathname.endsWith('/')) {
      res.writeHead(301, { location: `${pathname.split('/').pop()}/` });
      res.end();
      return;
    }
    return listing(real, res);
  }
  if (!stat.isFile()) return plain(res, 404, '404 page not found\n');
  res.writeHead(200, { 'content-type': contentType(real), 'content-length': stat.size });
  const stream = createReadStream(real);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

function listing(dir: string, res: ServerResponse): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    return plain(res, 500, `cannot list the directory: ${(err as Error).message}\n`);
  }
  const lines = entries
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort()
    .map((n) => `<a href="${encodeURIComponent(n).replace(/%2F$/, '/')}">${escapeHtml(n)}</a>`);
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${lines.join('\n')}${lines.length ? '\n' : ''}</pre>\n`,
  );
}

function contentType(path: string): string {
  const ext = extname(path);
  if (ext === '.json') return 'application/json';
  if (ext === '.gz') return 'application/gzip';
  return 'text/plain; charset=utf-8';
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}

function plain(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(body);
}
