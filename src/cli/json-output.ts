// Run before a command when --json has fields or --jq is given: what can be refused
// without the server is refused here, before any request (exit 2).
import type { Globals } from '../session/context.js';
import { usageError } from '../errors.js';
import { prepareJq } from '../render/jq.js';

/**
 * Commands that book or cancel: their JSON fields are known before anything is sent, so
 * a wrong field list is refused then, not after the booking (when it could only fail the output).
 */
const WRITE_JSON_FIELDS: Record<string, () => Promise<readonly string[]>> = {
  reserve: async () => (await import('../commands/reserve.js')).RESERVE_JSON_FIELDS,
};

export async function prepare(command: string, globals: Pick<Globals, 'jsonFields' | 'jq'>): Promise<void> {
  const known = WRITE_JSON_FIELDS[command];
  if (globals.jsonFields && known) {
    const fields = await known();
    const unknown = globals.jsonFields.filter((f) => !fields.includes(f));
    if (unknown.length) throw usageError(`unknown JSON field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, `\`${command} --json\` has the fields ${fields.join(', ')}`);
  }
  if (globals.jq !== undefined) await prepareJq(globals.jq);
}
