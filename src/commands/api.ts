// `carrental api <METHOD> <path>`: a raw call with the profile's credentials, for what no
// command covers yet. The body goes to stdout as received; the exit code follows the status
// like every other command. The key never comes from the command line.
import { errorFromResponse, NO_RETRY, READ_RETRY } from '../api/client.js';
import { redactHeader, scrubSecrets } from '../api/redact.js';
import type { Context } from '../cli/context.js';
import { services } from '../cli/services.js';
import { usageError } from '../errors.js';
import { clean, cleanText } from '../render/sanitize.js';

export interface ApiInput {
  method?: string;
  path?: string;
  body?: string;
  header?: string[];
  include?: boolean;
  anonymous?: boolean;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const CREDENTIAL_HEADERS = /^(authorization|x-api-key|cookie|proxy-authorization)$/i;
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function parseMethod(value: string | undefined): string {
  const method = (value ?? '').toUpperCase();
  if (!METHODS.includes(method)) throw usageError(`unknown HTTP method "${value ?? ''}" (one of ${METHODS.join(', ')})`);
  return method;
}

/** A path under the base URL; a full URL would send the key to whatever host it names. */
export function parsePath(value: string | undefined): string {
  const path = (value ?? '').trim();
  if (!path) throw usageError('a path is required, e.g. /my/profile');
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw usageError(`"${path}" is a URL; give a path relative to the base URL, e.g. /my/profile`, 'point at another API with --base-url');
  }
  if (/[\s\u0000-\u001f]/.test(path)) throw usageError(`the path must not contain spaces or control characters: "${clean(path)}"`);
  return path.startsWith('/') ? path : `/${path}`;
}

export function parseHeaders(values: string[] | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const raw of values ?? []) {
    const at = raw.indexOf(':');
    const name = at < 0 ? '' : raw.slice(0, at).trim();
    const value = at < 0 ? '' : raw.slice(at + 1).trim();
    if (!name || !TOKEN_RE.test(name)) throw usageError(`-H/--header must be "Name: value", got "${clean(raw)}"`);
    if (/[\r\n\u0000]/.test(value)) throw usageError(`the value of header ${name} must be one line`);
    if (CREDENTIAL_HEADERS.test(name)) {
      throw usageError(`refusing to send a ${name} header from the command line: it would land in shell history and \`ps\``, 'the key comes from CARRENTAL_API_KEY or `carrental auth login`; use --anonymous to send none');
    }
    headers[name.toLowerCase()] = value;
  }
  return headers;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The body exactly as given, after checking locally that it is JSON. */
export async function readBody(value: string | undefined, ctx: Pick<Context, 'io'>): Promise<string | undefined> {
  if (value === undefined) return undefined;
  const text = value === '-' ? await readAll(ctx.io.stdin) : value;
  try {
    JSON.parse(text);
  } catch (err) {
    throw usageError(`--body is not valid JSON${value === '-' ? ' (read from stdin)' : ''}: ${(err as Error).message}`);
  }
  return text;
}

export async function run(input: ApiInput, ctx: Context): Promise<number> {
  const method = parseMethod(input.method);
  const path = parsePath(input.path);
  const headers = parseHeaders(input.header);
  const rawBody = await readBody(input.body, ctx);

  const { client, out, target } = await services(ctx);
  const withKey = !input.anonymous && client.hasKey;
  if (!input.anonymous && !client.hasKey) out.info('no API key configured: sending the request without credentials');
  const res = await client.request<unknown>({
    method,
    path,
    rawBody,
    headers,
    auth: withKey ? 'key' : 'none',
    envelope: false,
    allowErrorStatus: true,
    // a raw GET may be retried on a dropped connection; anything else is sent once
    retry: method === 'GET' ? READ_RETRY : NO_RETRY,
  });

  // a server that echoes the key back must not make us print it
  const scrub = (text: string) => scrubSecrets(text, [target.apiKey]);
  const text = scrub(res.text);
  const body: unknown = res.body === undefined ? undefined : JSON.parse(text);
  if (input.include) {
    out.info(`HTTP ${res.status}`);
    for (const [name, value] of Object.entries(res.headers)) out.info(`${name}: ${clean(scrub(redactHeader(name, value)))}`);
    out.info('');
  }
  if (text !== '') {
    // a terminal gets indented JSON (or text without control characters); a pipe gets the body as sent (keys masked)
    if (!out.tty) ctx.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    else if (body !== undefined) out.printJson(body);
    else out.line(cleanText(text));
  }
  if (res.status >= 200 && res.status < 300) return 0;
  throw errorFromResponse(res.status, body, res.headers, `${method} ${path}`, true);
}
