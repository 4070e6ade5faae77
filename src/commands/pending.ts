// `carrental pending [list|clear]`: the reserve and cancel commands of the current API key
// whose outcome is not known yet. They are finished by rerunning the same command (which
// reuses the journaled idempotency key); clearing them gives that up, so it asks first.
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { openConfig, output, resolveTarget } from '../session/services.js';
import { CliError, usageError } from '../errors.js';
import { credentialFingerprint, type JournalEntry } from '../store/journal.js';
import { formatAge, openJournal } from '../booking/journaled-write.js';
import { inquirerPrompter, type Prompter } from '../cmdkit/reserve-prompts.js';

const VERB = { createReservation: 'reserve', cancelReservation: 'cancel' } as const;

// The rerun line of an entry is the kit's (a refusal of reserve/cancel names it too): re-exported.
export { rerunCommand, requestProblem, shellWord } from '../cmdkit/rerun.js';
import { rerunCommand, requestProblem } from '../cmdkit/rerun.js';

/**
 * The fingerprint of the key this profile would send (flags, environment, profile, the
 * sandbox's demo key), or undefined when there is none. Entries belong to it.
 */
async function currentCredential(ctx: Context): Promise<string | undefined> {
  const config = openConfig(ctx);
  let key: string | undefined;
  try {
    key = (await resolveTarget(ctx, config)).apiKey;
  } catch (err) {
    // No base URL configured: the journal can still be read for the key alone.
    if (!(err instanceof CliError) || err.kind !== 'usage') throw err;
    key = ctx.env.CARRENTAL_API_KEY || config.profile(ctx.globals.profile).api_key;
  }
  return key ? credentialFingerprint(key) : undefined;
}

/** This key's entries, and format-1 entries (owner unknown) of this profile. */
function ownedBy(credential: string | undefined, profile: string) {
  return (e: JournalEntry) => (e.credential !== null && e.credential === credential) || (e.credential === null && e.profile === profile);
}

/** An entry as `pending --json` prints it: snake_case keys, as every JSON carrental prints. */
function entryJson(e: JournalEntry & { expired?: boolean }): Record<string, unknown> {
  const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e)) json[snake(key)] = value;
  json.rerun = rerunCommand(e) ?? null;
  return json;
}

export async function list(input: InputOf<'pending list'>, ctx: Context): Promise<number> {
  const out = output(ctx);
  const credential = input.all ? undefined : await currentCredential(ctx);
  const everything = (await openJournal(ctx, out).list()).filter((e) => e.state === 'pending');
  const entries = input.all ? everything : everything.filter(ownedBy(credential, ctx.globals.profile));
  const hidden = everything.length - entries.length;
  const now = ctx.now().getTime();
  const othersNote = () => {
    if (hidden > 0) out.info(`${hidden} more pending command${hidden === 1 ? '' : 's'} of other API keys or profiles: \`carrental pending list --all\``);
  };
  // one line per entry whose rerun line cannot be built; the entry itself is listed and kept
  for (const e of entries) {
    const problem = requestProblem(e);
    if (problem !== undefined) {
      out.warn(
        `journal entry ${e.id.slice(0, 12)} (${VERB[e.operation]} ${e.target}) is of an older or partial shape (${problem}): ` +
          'it cannot be rerun from here; check `carrental trips` before running that command again',
      );
    }
  }
  if (out.json) {
    out.printJson(entries.map(entryJson));
    othersNote();
    return 0;
  }
  if (entries.length === 0) {
    out.info(credential === undefined && !input.all ? 'no API key for this profile, so no pending commands of its own' : 'no pending reserve or cancel commands');
    othersNote();
    return 0;
  }
  const age = (e: JournalEntry) => formatAge(now - Date.parse(e.createdAt));
  const state = (e: JournalEntry & { expired: boolean }) => (e.expired ? 'expired' : 'pending');
  if (!out.tty) {
    // one line per entry, tab-separated, the finishing command last: `cut -f7`
    out.table(
      ['OPERATION', 'TARGET', 'PROFILE', 'IDEMPOTENCY KEY', 'AGE', 'STATE', 'RERUN TO FINISH'],
      entries.map((e) => [VERB[e.operation], e.target, e.profile, e.key, age(e), state(e), rerunCommand(e) ?? '']),
    );
    othersNote();
    return 0;
  }
  out.table(
    ['#', 'OPERATION', 'TARGET', 'PROFILE', 'IDEMPOTENCY KEY', 'AGE', 'STATE'],
    entries.map((e, i) => [i + 1, VERB[e.operation], e.target, e.profile, e.key, age(e), state(e)]),
    { alignRight: [0], ids: [2, 4] },
  );
  out.line('To finish one, rerun the same command (it reuses the key, so it cannot book or cancel twice):');
  entries.forEach((e, i) => out.line(`  ${i + 1}. ${rerunCommand(e) ?? '(cannot be rerun from here: see the warning above)'}`));
  out.info('Each may or may not have happened on the server. Expired entries are no longer reused: check `carrental trips` first.');
  othersNote();
  return 0;
}

export function clear(input: InputOf<'pending clear'>, ctx: Context): Promise<number> {
  return clearPending(input, ctx, inquirerPrompter(ctx));
}

export async function clearPending(input: InputOf<'pending clear'>, ctx: Context, prompter: Prompter): Promise<number> {
  const out = output(ctx);
  const journal = openJournal(ctx, out);
  const credential = input.all ? undefined : await currentCredential(ctx);
  const mine = input.all ? () => true : ownedBy(credential, ctx.globals.profile);
  const unfinished = (await journal.list()).filter((e) => e.state === 'pending' && mine(e)).length;
  const scope = input.all ? 'every API key and profile' : 'the current API key';
  const noun = `pending command${unfinished === 1 ? '' : 's'}`;
  if (unfinished > 0 && !ctx.globals.yes) {
    // Dropping an entry gives up the only safe way to finish its command: never silently.
    if (!ctx.canPrompt()) {
      const why = !ctx.globals.input ? 'prompts are off (--no-input or CI)' : 'this is not a terminal';
      throw usageError(`pending clear needs a confirmation and ${why}: pass -y (--yes) to confirm`, 'nothing was dropped');
    }
    const ok = await prompter.confirm(`Drop ${unfinished} ${noun} of ${scope}? Their outcome stays unknown and a rerun would send a new key.`, false);
    if (!ok) {
      out.info('nothing was dropped');
      return 1;
    }
  }
  if (input.all) await journal.clear({ all: true });
  else if (credential !== undefined || unfinished > 0) await journal.clear({ credential, profile: ctx.globals.profile });
  if (out.json) out.printJson({ cleared: unfinished });
  out.info(`dropped ${unfinished} ${noun} of ${scope}`);
  if (unfinished > 0) out.info('their outcome stays unknown: check `carrental trips` before running any of them again (a rerun now sends a new key)');
  return 0;
}
