// Run before a command when --json has fields or --jq is given: what can be refused
// without the server is refused here, before any request (exit 2).
import type { Globals } from '../cli/context.js';
import { usageError } from '../errors.js';
import { prepareJq } from '../render/jq.js';

/** Commands whose JSON is a single string (a uuid, "OK"): a field list cannot apply. */
const SCALAR_JSON: Record<string, string> = {
  reserve: 'the new reservation uuid',
  cancel: 'the API\'s "OK"',
};

export async function prepare(command: string, globals: Pick<Globals, 'jsonFields' | 'jq'>): Promise<void> {
  if (globals.jsonFields && SCALAR_JSON[command]) {
    throw usageError(`\`${command} --json\` prints ${SCALAR_JSON[command]} as a JSON string: it has no fields to pick`, 'use --json alone');
  }
  if (globals.jq !== undefined) await prepareJq(globals.jq);
}
