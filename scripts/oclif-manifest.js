#!/usr/bin/env node
// Writes oclif.manifest.json from the bundled commands (dist/bundle/commands), so the
// CLI finds its commands without importing every command file at start-up.
// Part of `npm run build`; the same thing `oclif manifest` does.
import { Plugin } from '@oclif/core';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, respectNoCacheDefault: true });
await plugin.load();
// Commands in name order: oclif lists them in the order their files finished loading, which varies.
const commands = Object.fromEntries(Object.entries(plugin.manifest.commands).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(root, 'oclif.manifest.json'), `${JSON.stringify({ ...plugin.manifest, commands }, null, 2)}\n`);
