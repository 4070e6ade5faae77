// `carrental api <METHOD> <path>`: a raw call with the profile's credentials, for what no
// command covers yet. The body goes to stdout as received; the exit code follows the status
// like every other command. The key never comes from the command line.
import { errorFromResponse, NO_RETRY, READ_RETRY } from '../api/client.js';
import { OPERATIONS, type Operation } from '../api/operations.js';
import { redactHeader, scrubSecrets } from '../text/redact.js';
import type { InputOf } from '../cmdkit/command-specs.js';
import type { Context } from '../session/context.js';
import { requireKey, services } from '../session/services.js';
import { CliError, usageError } from '../errors.js';
import { arrayElementsAt } from '../text/json-scan.js';
import type { Output } from '../render/output.js';
import { rawPayload } from '../text/raw-json.js';
import { clean, cleanText } from '../text/sanitize.js';
import { JournaledWrite, type WriteCommand } from '../booking/journaled-write.js';
import { cliWriteWords } from '../cmdkit/rerun.js';
import { parseWriteKey } from '../input/parse.js';
import { decisionKey, journalDecision, printDryRun, refuseReadOnly } from '../cmdkit/dry-run.js';
import { walkPages } from '../api/page-walk.js';
import { buildCreateRequest } from '../booking/create-request.js';

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

/** The operation of the spec a method and path name, if any (query string ignored). */
export function operationFor(method: string, path: string): Operation | undefined {
  const bare = path.split(/[?#]/)[0].replace(/\/+$/, '') || '/';
  return OPERATIONS.find((op) => op.method === method && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare));
}

/**
 * The journal's identity of a raw create. A body of the usual shape becomes exactly what
 * `reserve` would send for the same booking (buildCreateRequest: extras sorted and
 * deduplicated, no delivery address on a pickup), and that canonical body is what goes
 * out, so `api POST /my/reservation` and `reserve` of the same thing are one command: one
 * journal entry, one key, one reservation. Any other body is journaled and sent as given.
 */
export function canonicalCreate(rawBody: string): { request: unknown; body: string; target: string } {
  const value: unknown = JSON.parse(rawBody);
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  const str = (v: unknown): v is string => typeof v === 'string' && v !== '';
  const target = isObj(value) && typeof value.car_alias === 'string' ? value.car_alias : '(raw body)';
  if (!isObj(value) || !isObj(value.options)) return { request: value, body: rawBody, target };
  const o = value.options;
  const known = (obj: Record<string, unknown>, keys: string[]) => Object.keys(obj).every((k) => keys.includes(k));
  const delivery = o.delivery_type === 'delivery';
  const usual =
    known(value, ['car_alias', 'date_checkin', 'date_checkout', 'options', 'extras', 'promo_code']) &&
    known(o, ['protection_plan', 'mileage_type', 'delivery_type', 'delivery_address']) &&
    str(value.car_alias) &&
    str(value.date_checkin) &&
    str(value.date_checkout) &&
    (o.protection_plan === 'minimum' || o.protection_plan === 'standard') &&
    (o.mileage_type === 'limited' || o.mileage_type === 'unlimited') &&
    (delivery ? str(o.delivery_address) : o.delivery_type === 'pickup' && (o.delivery_address === undefined || o.delivery_address === null)) &&
    (value.extras === undefined || (Array.isArray(value.extras) && value.extras.every(str))) &&
    (value.promo_code === undefined || str(value.promo_code));
  if (!usual) return { request: value, body: rawBody, target };
  const request = buildCreateRequest({
    alias: value.car_alias as string,
    from: value.date_checkin as string,
    to: value.date_checkout as string,
    protection: o.protection_plan as 'minimum' | 'standard',
    mileage: o.mileage_type as 'limited' | 'unlimited',
    deliveryAddress: delivery ? (o.delivery_address as string) : undefined,
    extras: value.extras as string[] | undefined,
    promo: value.promo_code as string | undefined,
  });
  return { request, body: JSON.stringify(request), target };
}

export type ApiInput = InputOf<'api'>;

export async function run(input: ApiInput, ctx: Context): Promise<number> {
  const method = parseMethod(input.method);
  const path = parsePath(input.path);
  const headers = parseHeaders(input.header);
  const rawBody = await readBody(input.body, ctx);
  const operation = operationFor(method, path);
  if (input.paginate && method !== 'GET') throw usageError('--paginate follows the pages of a GET (for example GET /cars)');
  if (input.dryRun && (method === 'GET' || method === 'HEAD')) throw usageError(`--dry-run is for writes: a ${method} changes nothing, so send it`);

  const { client, out, target } = await services(ctx, { dryRun: input.dryRun });
  // the spec: anonymous operations take no credentials, none are sent on them
  const anonymous = input.anonymous || operation?.auth === 'none';
  const withKey = !anonymous && client.hasKey;
  if (!anonymous && !client.hasKey) out.info('no API key configured: sending the request without credentials');

  if (operation?.idempotent && !input.anonymous) return journaledWrite(ctx, { method, path, headers, rawBody, operation, input });
  if (input.paginate) return paginate(ctx, { path, headers, withKey, include: input.include });
  if (input.dryRun) return printDryRun(out, { command: 'api', request: client.describe({ method, path, rawBody, headers, auth: withKey ? 'key' : 'none' }) });

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
  printResponse(out, res, target.apiKey, input.include);
  if (res.status >= 200 && res.status < 300) return 0;
  throw errorFromResponse(res.status, scrubbedBody(res, target.apiKey), res.headers, `${method} ${path}`, true);
}

/** The error body with the key masked, for the error line: a server may echo the key. */
function scrubbedBody(res: { text: string; body: unknown }, apiKey: string | undefined): unknown {
  return res.body === undefined ? undefined : JSON.parse(scrubSecrets(res.text, [apiKey]));
}

/** The body as received (JSON through printJson: --jq and --json fields apply), headers with -i. */
function printResponse(out: Output, res: { status: number; headers: Record<string, string>; text: string; body: unknown }, apiKey: string | undefined, include?: boolean): void {
  // a server that echoes the key back must not make us print it
  const scrub = (text: string) => scrubSecrets(text, [apiKey]);
  if (include) {
    out.info(`HTTP ${res.status}`);
    for (const [name, value] of Object.entries(res.headers)) out.info(`${name}: ${clean(scrub(redactHeader(name, value)))}`);
    out.info('');
  }
  if (res.text === '') return;
  if (res.body !== undefined) out.printJson(rawPayload(res.text, res.body, false));
  else out.line(cleanText(scrub(res.text)).replace(/\n$/, ''));
}

/**
 * POST /my/reservation and DELETE /my/reservation/{uuid} go through the same journaled,
 * idempotent write as `reserve` and `cancel`: a key is made (or the user's
 * Idempotency-Key header taken), written down before the request leaves, reused by
 * retries and by a rerun of the same command, and settled on a definitive answer.
 */
async function journaledWrite(
  ctx: Context,
  req: { method: string; path: string; headers: Record<string, string>; rawBody?: string; operation: Operation; input: ApiInput },
): Promise<number> {
  const { client, out, target } = await services(ctx);
  requireKey(target);
  const { 'idempotency-key': given, ...headers } = req.headers;
  const key = parseWriteKey(given);
  let command: WriteCommand;
  let body = req.rawBody;
  if (req.operation.id === 'createReservation') {
    if (body === undefined) throw usageError('POST /my/reservation needs a body: --body JSON (or --body - to read it from stdin)');
    const canonical = canonicalCreate(body);
    body = canonical.body;
    command = { operation: 'createReservation', target: canonical.target, request: canonical.request, key };
  } else {
    const uuid = decodeURIComponent(req.path.split(/[?#]/)[0].replace(/\/+$/, '').split('/').pop()!).toLowerCase();
    command = { operation: 'cancelReservation', target: uuid, request: { uuid }, key };
  }
  const writer = new JournaledWrite(ctx, out, target, undefined, cliWriteWords({ create: true }));
  if (req.input.dryRun) {
    refuseReadOnly(target);
    const journal = journalDecision(await writer.pending(command, { readOnly: true }), ctx.now(), key);
    const request = client.describe({ method: req.method, path: req.path, rawBody: body, headers: { ...headers, 'idempotency-key': decisionKey(journal) }, auth: 'key' });
    return printDryRun(out, { command: 'api', request, journal });
  }
  try {
    const res = await writer.run(command, (idempotencyKey, retry, onRetry) =>
      client.request<unknown>({ method: req.method, path: req.path, rawBody: body, headers: { ...headers, 'idempotency-key': idempotencyKey }, auth: 'key', envelope: false, retry, onRetry }),
    );
    // the write is done (and journaled as done): a failure to print it is exit 7 naming it
    const data = (res.body as { data?: unknown } | undefined)?.data;
    const done = command.operation === 'createReservation' ? `reserved ${typeof data === 'string' ? clean(data) : '(see `carrental trips`)'}` : `cancelled reservation ${command.target}`;
    await out.committed(done, () => printResponse(out, res, target.apiKey, req.input.include), '`carrental trips` shows it; do not send the request again');
    return 0;
  } catch (err) {
    // like any other raw call, the error body goes to stdout (the exit code says what it was)
    const errBody = err instanceof CliError ? err.api?.body : undefined;
    if (errBody !== undefined && err instanceof CliError && err.api?.status !== undefined) {
      const text = JSON.stringify(errBody);
      printResponse(out, { status: err.api.status, headers: {}, text, body: errBody }, target.apiKey, false);
    }
    throw err;
  }
}

/**
 * `--paginate`: follows `offset` until `has_more` is false, one page after the other as the
 * spec says, and prints one document: the first page's envelope with every item of its list
 * and `has_more: false`. Items keep the server's bytes.
 */
async function paginate(ctx: Context, req: { path: string; headers: Record<string, string>; withKey: boolean; include?: boolean }): Promise<number> {
  const { client, out, target } = await services(ctx);
  const url = new URL(req.path, 'http://x');
  const bare = url.pathname;
  const query = Object.fromEntries(url.searchParams);
  const start = query.offset === undefined ? 0 : Number(query.offset);
  if (!Number.isInteger(start) || start < 0) throw usageError(`--paginate needs a whole offset >= 0, got "${query.offset}"`);
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  const items: string[] = [];
  let listKey = '';
  let total = 0;
  let received = 0;
  let last: { status: number; headers: Record<string, string> } | undefined;
  let stalledAt: number | undefined;
  for await (const { page, offset, stalled } of walkPages({
    start,
    size: Number.isInteger(limit) && limit > 0 ? limit : 50,
    concurrency: 1,
    // the first page goes out as the user wrote it: it may not be a paged list at all
    fetch: async (offset) => {
      const label = `GET ${bare}`;
      const res = await client.request<unknown>({ method: 'GET', path: bare, query: offset === start ? query : { ...query, offset }, headers: req.headers, auth: req.withKey ? 'key' : 'none', envelope: false, allowErrorStatus: true });
      if (res.status >= 300) {
        printResponse(out, res, target.apiKey, req.include);
        throw errorFromResponse(res.status, scrubbedBody(res, target.apiKey), res.headers, label, true);
      }
      return { res, list: pageList(res.text, res.body, label) };
    },
    facts: (p) => ({ count: p.list.count, total: p.list.total, hasMore: p.list.hasMore }),
  })) {
    listKey = page.list.key;
    total = page.list.total;
    received += page.list.count;
    items.push(...page.list.items);
    last = page.res;
    if (stalled) stalledAt = offset;
  }
  if (req.include && last) printResponse(out, { ...last, text: '', body: undefined }, target.apiKey, true);
  const text = `{"data":{${JSON.stringify(listKey)}:[${items.join(',')}],"total":${total},"has_more":false}}`;
  out.printJson(rawPayload(text, JSON.parse(text), false));
  if (stalledAt !== undefined) out.warn(`the server said has_more at offset ${stalledAt} but sent nothing, so the walk stops there: the list may be incomplete (rerun later, or page on with --offset)`);
  else if (received !== total - start) out.warn(`the server's total is ${total}${start ? ` (${total - start} from offset ${start})` : ''}, but ${received} items arrived: the list changed while it was paged, or the server counts differently`);
  return 0;
}

/** A page of an offset-paged list: `{"data": {"<list>": [...], "total": n, "has_more": b}}`. */
function pageList(text: string, body: unknown, label: string) {
  const data = (body as { data?: unknown } | undefined)?.data as Record<string, unknown> | undefined;
  const lists = data && typeof data === 'object' ? Object.keys(data).filter((k) => Array.isArray(data[k])) : [];
  if (!data || lists.length !== 1 || typeof data.has_more !== 'boolean' || typeof data.total !== 'number') {
    throw usageError(`${label} is not a paged list (a "data" object with one list, "total" and "has_more"): --paginate does not apply`);
  }
  const key = lists[0];
  const items = arrayElementsAt(text, ['data', key])!.map((el) => text.slice(el.start, el.end));
  return { key, items, count: items.length, total: data.total, hasMore: data.has_more };
}
