import { UserError } from '../util/user-error.js';

/** What a command that is planned but not built yet says, instead of pretending. */
export function notBuilt(command: string, issue: string): never {
  throw new UserError('usage', `knode ${command} is not built yet`, `it is planned in ${issue}; see the README for what works today`);
}
