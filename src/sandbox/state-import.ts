// Reading the state files of earlier builds, once, to import them: the append-only log
// (`carrental-sandbox-state-log 2`) and the JSON document before it (version 1). Both
// become a plain SandboxState; the store that imports it keeps the old file as `.bak`.
import { hash } from 'node:crypto';
import { COLLECTIONS, type Collection, type SandboxState, STATE_FORMAT, STATE_VERSION } from './state.js';

export const LOG_HEADER = `${STATE_FORMAT}-log 2\n`;

/** Thrown for a file that is not a state this build can read; the store reports it with the path. */
export class ImportError extends Error {}

type Meta = Omit<SandboxState, Collection | 'format' | 'version'>;

function checkMeta(m: unknown): Meta {
  const x = m as Partial<Meta> | null;
  if (
    !x ||
    typeof x !== 'object' ||
    typeof x.seed !== 'number' ||
    typeof x.fleetSize !== 'number' ||
    typeof x.anchor !== 'string' ||
    Number.isNaN(Date.parse(x.anchor)) ||
    typeof x.clockOffsetMs !== 'number' ||
    !Array.isArray(x.customers)
  ) {
    throw new ImportError('missing or malformed fields');
  }
  return { seed: x.seed, fleetSize: x.fleetSize, anchor: x.anchor, clockOffsetMs: x.clockOffsetMs, customers: x.customers };
}

/** The version 1 document (also what the Node 20 store writes). */
export function parseJsonState(text: string): SandboxState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ImportError(`not valid JSON (${(err as Error).message})`);
  }
  const s = raw as Partial<SandboxState> | null;
  if (!s || typeof s !== 'object' || s.format !== STATE_FORMAT) throw new ImportError('not a carrental sandbox state');
  if (s.version !== STATE_VERSION) throw new ImportError(`unsupported state version ${String(s.version)}`);
  checkMeta(s);
  if (COLLECTIONS.some((k) => typeof s[k] !== 'object' || s[k] === null || Array.isArray(s[k]))) throw new ImportError('missing or malformed fields');
  return s as SandboxState;
}

/**
 * The log: a header line, then groups of `<hash>\t<collection>\t<key>\t<tags>\t<json>` lines
 * each closed by `#\t<records>\t<bytes>`. A group without its commit line was never
 * acknowledged and is left out; a record whose hash does not match is damage.
 */
export function parseLogState(text: string): SandboxState {
  if (!text.startsWith(LOG_HEADER)) throw new ImportError('not a carrental sandbox state');
  const names = new Set<string>(['meta', ...COLLECTIONS]);
  let meta: Meta | null = null;
  const colls = Object.fromEntries(COLLECTIONS.map((c) => [c, {} as Record<string, unknown>])) as Record<Collection, Record<string, unknown>>;
  let group: [string, string, string][] = [];
  let at = LOG_HEADER.length;
  for (;;) {
    const nl = text.indexOf('\n', at);
    if (nl < 0) break; // an unfinished line: part of an append never acknowledged
    const line = text.slice(at, nl);
    if (line.startsWith('#\t')) {
      if (Number(line.split('\t')[1]) !== group.length) throw new ImportError(`damaged at character ${at}: a commit line that does not match its group`);
      for (const [coll, key, body] of group) {
        const value = JSON.parse(body) as unknown;
        if (coll === 'meta') meta = checkMeta(value);
        else if (value === null) delete colls[coll as Collection][key];
        else colls[coll as Collection][key] = value;
      }
      group = [];
    } else {
      const parts = line.split('\t');
      if (parts.length < 5 || !names.has(parts[1])) throw new ImportError(`damaged at character ${at}: not a record`);
      const body = parts.slice(4).join('\t');
      if (hash('sha1', body, 'hex').slice(0, 16) !== parts[0]) throw new ImportError(`damaged at character ${at}: a record that does not match its hash`);
      group.push([parts[1], parts[2], body]);
    }
    at = nl + 1;
  }
  if (meta === null) throw new ImportError('no complete first write');
  return { format: STATE_FORMAT, version: STATE_VERSION, ...meta, ...colls } as SandboxState;
}
