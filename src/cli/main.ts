// The CLI's entry, bundled with the commands (scripts/bundle.js) so that
// @oclif/core is one copy, in the chunks the commands share, and loads from
// there rather than as the hundreds of modules of its package.
export { execute } from '@oclif/core';
