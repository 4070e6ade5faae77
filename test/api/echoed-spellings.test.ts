// Issue 35: a server that echoes the caller's key in spellings other than the one sent:
// upper or lower case, without its `svc_` prefix, split by characters a terminal does not
// show (zero-width space, word joiner, soft hyphen, ZWNJ, ZWJ, BOM, ...). A loopback proxy
// in front of the sandbox appends every spelling to every free-text string of every JSON
// answer (errors too) and puts the latin-1 ones in a response header; no output of any
// mode (stdout, stderr, --json, --debug) nor the JUnit file of `doctor --contract` may let
// a reader recover the key.
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCommand, TestHome } from '../helpers/cli.js';
import { SANDBOX_NOW, TestSandbox } from '../helpers/sandbox-admin.js';

let sb: TestSandbox;
let home: TestHome;
let proxy: Server;
let proxyUrl = '';
let key = '';
let echoed = 0;
/** Answers that break the contract with the key in them (for `doctor --contract`'s findings and failures). */
let breakContract = false;

/** Characters that print as nothing (Unicode's default-ignorable ones among them). */
const INVISIBLE = ['\u200b', '\u2060', '\u00ad', '\u200c', '\u200d', '\ufeff', '\u180e', '\u2061', '\u034f', '\ufe0f', '\u{e0020}', '\u2063'];

function spellings(k: string): string[] {
  const body = k.slice(4);
  return [
    k.toUpperCase(),
    body,
    body.toUpperCase(),
    `Svc_${body.slice(0, 5).toUpperCase()}${body.slice(5)}`,
    ...INVISIBLE.map((ch) => [...k].join(ch)),
    ...INVISIBLE.map((ch) => `${body.slice(0, 9)}${ch}${body.slice(9)}`),
    `SVC_${[...body.toUpperCase()].join('\u200b\u2060')}`,
    [...body].join('\u00ad'),
  ];
}

/** Spellings a header can carry (latin-1). */
const headerSpellings = (k: string) => [k.toUpperCase(), k.slice(4), k.slice(4).toUpperCase(), [...k].join('\u00ad')];

/** What the proxy leaves alone: ids, dates, numbers, enum-like words, so the answers still parse. */
const STRUCTURAL = [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, /^[\d:.TZ+ -]+$/, /^[a-z0-9_-]+$/, /^[A-Z0-9_]+$/];

function echoKey(value: unknown, everywhere = false): unknown {
  if (typeof value === 'string') {
    if (!everywhere && STRUCTURAL.some((re) => re.test(value))) return value;
    echoed += 1;
    const all = spellings(key).join(' ');
    return /^https?:\/\//.test(value) ? `${value}#${encodeURIComponent(all)}` : `${value} ${all}`;
  }
  if (Array.isArray(value)) return value.map((v) => echoKey(v, everywhere));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, echoKey(v, everywhere)]));
  return value;
}

/**
 * The text as a reader would recover it: JSON and XML escapes decoded, every character
 * that prints as nothing dropped, one case.
 */
function recovered(text: string): string {
  return text
    .replace(/\\u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#x([0-9a-f]+);/gi, (_m, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}]/gu, '')
    .toLowerCase();
}

function expectNoKey(text: string, where: string): void {
  // the mask keeps the last four characters: everything before them must be gone
  const secretPart = key.slice(4, -4).toLowerCase();
  expect(recovered(text).includes(secretPart), `${where} holds the key:\n${text.slice(0, 2000)}`).toBe(false);
}

beforeAll(async () => {
  sb = await TestSandbox.start();
  key = sb.keys.booking_write;
  const upstream = new URL(sb.baseUrl);
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (breakContract && req.method === 'GET' && /\/my\/billing\/cards$/.test(req.url ?? '')) {
        // a failed request: its error message is in the report
        echoed += 1;
        res.writeHead(400, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: `rejected ${spellings(key).join(' ')}`, description: spellings(key).join(' ') }));
      }
      const everywhere = breakContract && /\/my\/(verification|profile)$/.test(req.url ?? '');
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host, 'accept-encoding': 'identity' } }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          let text = Buffer.concat(body).toString('utf8');
          if (/json/.test(String(answer.headers['content-type']))) text = JSON.stringify(echoKey(JSON.parse(text), everywhere));
          const headers: Record<string, string | string[] | undefined> = { ...answer.headers, 'x-echo': headerSpellings(key).join(' ') };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(text);
        });
      });
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await sb.close();
});
beforeEach(async () => {
  home = new TestHome();
  await sb.reset();
  echoed = 0;
  breakContract = false;
});
afterEach(() => home.cleanup());

const run = (args: string[], tty = false) => runCommand(['--base-url', proxyUrl, ...args], { now: () => SANDBOX_NOW, tty, env: home.env({ CARRENTAL_API_KEY: key, NO_COLOR: '1' }) });

describe('the key echoed in other spellings is printed nowhere', () => {
  const COMMANDS: Array<[string, string[], number]> = [
    ['cars', ['cars', '--city', 'la', '--limit', '3'], 0],
    ['profile', ['profile'], 0],
    ['trips', ['trips'], 0],
    ['api', ['api', 'GET', '/my/profile'], 0],
    ['api -i', ['api', '-i', 'GET', '/my/profile'], 0],
    // an error answer: its message and description hold every spelling
    ['car (404)', ['car', 'no-such-car-0000'], 4],
    ['trips (404)', ['trips', '00000000-0000-4000-8000-000000000000'], 4],
  ];
  describe.each([
    ['plain', [] as string[], false],
    ['terminal', [] as string[], true],
    ['--json', ['--json'], false],
    ['--jq', ['--jq', '.'], false],
    ['--debug', ['--debug'], false],
  ])('%s', (_mode, flags, tty) => {
    it.each(COMMANDS)('%s', async (label, args, exit) => {
      const r = await run([...flags, ...args], tty);
      if (!label.startsWith('api') || !flags[0]?.startsWith('--j')) expect(r.code, r.stderr).toBe(exit);
      expect(echoed).toBeGreaterThan(0);
      expectNoKey(r.stdout, 'stdout');
      expectNoKey(r.stderr, 'stderr');
    });
  });

  it('doctor --contract --junit FILE: the report, its JSON and the JUnit file', async () => {
    // every value of two answers (enum values too: violations whose value is shown) and an error answer
    breakContract = true;
    for (const flags of [[], ['--json'], ['--debug']]) {
      const file = join(home.dir, `contract${flags.join('')}.xml`);
      const r = await run([...flags, 'doctor', '--contract', '--junit', file]);
      expect(echoed).toBeGreaterThan(0);
      expectNoKey(r.stdout, 'stdout');
      expectNoKey(r.stderr, 'stderr');
      const xml = readFileSync(file, 'utf8');
      // not vacuous: the echoed strings reached the file, masked
      expect(xml).toContain('…');
      expectNoKey(xml, 'the JUnit file');
    }
  });
});
