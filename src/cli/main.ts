// The CLI's entry, bundled with the long-running commands (scripts/bundle.js)
// so that @oclif/core is one copy, in the chunks they share, and loads from
// there rather than as the hundreds of modules of its package. The CommonJS
// commands take this copy too: it is handed over under a global symbol.
import * as oclif from '@oclif/core';

(globalThis as Record<symbol, unknown>)[Symbol.for('knode.oclif')] = oclif;

export const { execute } = oclif;
