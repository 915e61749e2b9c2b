// A runtime in miniature for spawner.test.ts: it starts a spawner, has it
// start the command in its arguments, prints that process's pid and waits
// to be killed, as a runtime that dies without cleaning up.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Spawner } from '../../src/runtime/spawner/client.js';

const alive = setInterval(() => {}, 60_000); // the spawner's channel does not keep this process up
const spawner = new Spawner(() => {});
while (!spawner.ready) await new Promise((r) => setTimeout(r, 20));
const [file, ...args] = process.argv.slice(2);
const log = join(mkdtempSync(join(tmpdir(), 'knode-spawner-owner-')), '0.log');
const started = await spawner.start({ file, args, cwd: '/', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, logPath: log }, () => {});
process.stdout.write(`${started.pid}\n`);
void alive;
