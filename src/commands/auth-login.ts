// `carrental auth login [--with-key]`: stores the API key of a profile after checking it
// against GET /my/profile. The key comes from a masked prompt or from stdin, never from
// an argument (shell history, `ps`), and it is never printed in full.
import { Writable } from 'node:stream';
import { Api } from '../api/endpoints.js';
import { maskKey } from '../text/redact.js';
import type { Profile } from '../api/schemas.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { makeClient, openConfig, output, resolveTarget } from '../session/services.js';
import { CliError, usageError } from '../errors.js';
import { clean } from '../text/sanitize.js';

export type LoginInput = InputOf<'auth login'>;

/** The key's shape: `svc_` and printable, space-free ASCII. The message never echoes the value. */
export function checkKeyShape(key: string): string {
  if (!key) throw usageError('no API key given');
  if (!key.startsWith('svc_')) throw usageError('an API key starts with "svc_" (create one in your account settings)');
  if (!/^svc_[\x21-\x7e]{4,512}$/.test(key)) throw usageError('the API key has unexpected characters (one key, no spaces or line breaks)');
  return key;
}

export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

async function promptForKey(ctx: Context): Promise<string> {
  if (ctx.globals.accessible) {
    // a plain question, asked again until the key has the right shape
    const { readSecret } = await import('../cmdkit/plain-prompts.js');
    for (;;) {
      const typed = (await readSecret(ctx, 'API key (svc_…, from your account settings)')).trim();
      try {
        return checkKeyShape(typed);
      } catch (err) {
        ctx.io.stderr.write(`${(err as Error).message}\n`);
      }
    }
  }
  const { password } = await import('@inquirer/prompts');
  // inquirer ends the stream it writes to when the prompt closes; ours must stay open
  const stderr = ctx.io.stderr;
  const sink = Object.assign(
    new Writable({ write: (chunk, _enc, cb) => void stderr.write(chunk, () => cb()) }),
    { isTTY: stderr.isTTY, columns: stderr.columns },
  );
  try {
    const key = await password(
      {
        message: 'API key (svc_…, from your account settings):',
        mask: '*',
        validate: (value) => {
          try {
            checkKeyShape(value.trim());
            return true;
          } catch (err) {
            return (err as Error).message;
          }
        },
      },
      { input: ctx.io.stdin, output: sink, signal: ctx.signal },
    );
    return key.trim();
  } catch (err) {
    if (err instanceof Error && /ExitPromptError|AbortPromptError|CancelPromptError/.test(err.name)) {
      throw new CliError('interrupted', 'interrupted');
    }
    throw err;
  }
}

export async function run(input: LoginInput, ctx: Context): Promise<number> {
  const out = output(ctx);
  const config = openConfig(ctx);
  // resolved first: nobody should type a key only to learn that the profile has no API
  const target = await resolveTarget(ctx, config);

  let key: string;
  if (input.withKey) {
    if (ctx.io.stdin.isTTY) ctx.io.stderr.write('Paste the key, then press Enter and Ctrl-D:\n');
    const text = (await readAll(ctx.io.stdin)).trim();
    if (!text) throw usageError('--with-key read nothing from standard input', 'pipe the key in: printf %s "$KEY" | carrental auth login --with-key');
    key = checkKeyShape(text);
  } else if (ctx.canPrompt()) {
    key = await promptForKey(ctx);
  } else {
    throw usageError(
      'no terminal to prompt for the key on',
      'pipe it in with --with-key (printf %s "$KEY" | carrental auth login --with-key), or set CARRENTAL_API_KEY',
    );
  }

  // checked before anything is saved: a mistyped or revoked key never lands in the file
  const client = makeClient(ctx, { baseUrl: target.baseUrl, apiKey: key }, out);
  let who: Profile | undefined;
  try {
    who = (await new Api(client, `carrental/${ctx.version}`).profile()).data;
  } catch (err) {
    if (err instanceof CliError && err.api?.error_code === 'api_key_operation_not_enabled') {
      out.warn('this deployment does not let keys read /my/profile yet, so whose key this is could not be checked');
    } else if (err instanceof CliError && err.kind === 'auth') {
      throw new CliError('auth', `the key was refused, nothing was saved: ${err.message}`, { hint: err.hint, api: err.api });
    } else throw err;
  }

  const apiName = target.sandbox ? 'sandbox' : target.baseUrl;
  await config.update(target.profile, (p) => {
    p.api_key = key;
    // the key belongs to the API it was checked against: pair them when the profile names none
    if (!p.base_url) p.base_url = apiName;
  });
  const saved = config.profile(target.profile);
  if (saved.base_url !== apiName) {
    out.warn(`profile "${target.profile}" uses base_url ${saved.base_url}, but the key was checked against ${apiName}`);
  }
  if (target.keySource === 'env') out.warn('CARRENTAL_API_KEY is set and takes precedence over the stored key');

  const result = {
    profile: target.profile,
    base_url: saved.base_url,
    key: maskKey(key),
    customer: who ? { uuid: who.uuid, first_name: who.first_name } : null,
  };
  if (ctx.globals.json) out.printJson(result);
  else {
    // the spec requires no profile field: name the customer only when the profile does
    const name = who?.first_name ? ` as ${clean(who.first_name)}` : '';
    out.info(`Logged in${name}: key ${result.key} saved to profile "${target.profile}" (${config.path})`);
  }
  return 0;
}
