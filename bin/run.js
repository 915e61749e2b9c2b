#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2 node --max-semi-space-size=1
// knode's command line. A CommonJS file (bin/package.json), so that a short
// command does not start Node's ES module loader: src/cli/boot.ts says why.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const boot = join(__dirname, '..', 'dist', 'bundle', 'cli', 'boot.cjs');
if (!existsSync(boot)) {
  console.error(`knode is not built (${boot} is missing): run npm ci && npm run build`);
  process.exit(1);
}
require(boot).start(__filename);
