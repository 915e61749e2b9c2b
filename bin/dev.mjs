#!/usr/bin/env -S node --import tsx --no-warnings
// Runs the CLI from the TypeScript sources (no build step), for development.
if (process.env.NO_COLOR || process.argv.includes('--no-color')) {
  process.env.NO_COLOR = '1';
  process.env.FORCE_COLOR = '0';
}
const { execute } = await import('@oclif/core');

await execute({ development: true, dir: import.meta.url });
