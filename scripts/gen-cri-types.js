#!/usr/bin/env node
// Generates TypeScript types for proto/runtime/v1/api.proto (CRI) and
// proto/knode/v1/images.proto (the embedded runtime's own verbs) into src/cri/gen
// (git-ignored, rebuilt by `npm run build`). The options here must match the
// loader options in src/cri/proto.ts, or the types lie about the runtime shapes.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'src/cri/gen');
const require = createRequire(import.meta.url);
const bin = join(dirname(require.resolve('@grpc/proto-loader/package.json')), 'build/bin/proto-loader-gen-types.js');

rmSync(out, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    bin,
    '--longs=Number',
    '--enums=String',
    '--defaults',
    '--grpcLib=@grpc/grpc-js',
    '--importFileExtension=.js',
    '--includeDirs',
    join(root, 'proto'),
    '--outDir',
    out,
    'runtime/v1/api.proto',
    'knode/v1/images.proto',
  ],
  { stdio: 'inherit' },
);
