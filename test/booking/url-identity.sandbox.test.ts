// Issue 29: the same `reserve` under six spellings of one base URL is one command for the
// journal, so the five reruns replay the first idempotency key: one reservation.
// Issue 35: and under another address of the same API altogether (a front that rewrites
// the path, an address that 307-redirects), the same request with the same key is the same
// command: while it is pending or answered within the window, the rerun stops and says
// where it went, how to finish it and how to book another (--new).
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { canonicalJson, commandId, credentialFingerprint, Journal } from '../../src/store/journal.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { FROM, TO, faults, requests, reservations, test as bookingTest } from './sandbox.js';

/** `reserve` of the fixture's car for FROM..TO against the sandbox, under the given spelling of its base URL. */
const test = bookingTest
  .extend('reserve', async ({ alias, cli }) => (baseUrl: string, ...more: string[]) =>
    cli(['--base-url', baseUrl, 'reserve', alias, '--from', FROM, '--to', TO, '-y', ...more], { env: { CARRENTAL_WRITE_RETRIES: '0' } }),
  )
  .extend('front', async ({ sb }, { onCleanup }) => {
    const front = await startFront(sb);
    onCleanup(() => new Promise<void>((resolve) => front.server.close(() => resolve())));
    return front;
  });

/**
 * A loopback front of the sandbox, as nginx would be: `/rewrite/<path>` is proxied to the
 * sandbox's `/<path>` (the path rewritten), and `/moved/<path>` answers 307 to
 * `/rewrite/<path>` on the same origin (which the client follows).
 */
async function startFront(sb: RunningSandbox): Promise<{ server: Server; rewrite: string; moved: string }> {
  const upstream = new URL(sb.baseUrl);
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/moved/')) {
      res.writeHead(307, { location: `/rewrite/${url.slice('/moved/'.length)}`, 'content-length': '0' });
      res.end();
      return;
    }
    if (!url.startsWith('/rewrite/')) {
      res.writeHead(404).end();
      return;
    }
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: url.slice('/rewrite'.length), headers: { ...req.headers, host: upstream.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    // the sandbox dropped the connection (a fault): so does the front, as a proxy would
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, rewrite: `http://127.0.0.1:${port}/rewrite${upstream.pathname}`, moved: `http://127.0.0.1:${port}/moved${upstream.pathname}` };
}

describe('one API, one identity', () => {
  test('six spellings of the base URL make one reservation', async ({ sb, alias, reserve }) => {
    const { port, pathname } = new URL(sb.baseUrl);
    const spellings = [
      `http://127.0.0.1:${port}${pathname}`,
      `HTTP://127.0.0.1:${port}${pathname}/`,
      `http://127.1:${port}${pathname}`,
      `http://localhost:${port}${pathname}`,
      `http://LOCALHOST:${port}${pathname}`,
      `http://127.0.0.1:${port}/x/..${pathname}//`,
    ];
    const uuids = new Set<string>();
    for (const spelling of spellings) {
      const r = await reserve(spelling);
      expect(r.code, `${spelling}: ${r.stderr}`).toBe(0);
      uuids.add(r.stdout.trim());
    }
    expect(uuids.size).toBe(1);
    expect(await reservations(sb, alias)).toHaveLength(1);
    const sent = await requests(sb, 'createReservation');
    expect(new Set(sent.map((q) => q.idempotency_key)).size).toBe(1);
    expect(sent.filter((q) => !q.replayed)).toHaveLength(1);
  });

  test('a command an older carrental journaled under the raw URL is still resumed with its key', async ({ sb, home, reserve }) => {
    // what the journal held before canonical identities: the id of the trimmed spelling
    const key = '11111111-2222-4333-8444-555555555555';
    const journalPath = join(home.dir, 'state', 'journal.json');
    const first = await reserve(sb.baseUrl);
    expect(first.code, first.stderr).toBe(0);
    const [made] = await new Journal({ path: journalPath }).list();
    // the same entry, as an older carrental wrote it: pending, under the id of the raw URL
    const oldId = createHash('sha256').update(canonicalJson({ baseUrl: sb.baseUrl, credential: made.credential, operation: made.operation, request: made.request })).digest('hex');
    expect(oldId).not.toBe(commandId({ baseUrl: sb.baseUrl, credential: credentialFingerprint(sb.keys.booking_write), operation: 'createReservation', request: made.request }));
    const { state: _s, doneAt: _d, result: _r, ...pending } = made as unknown as Record<string, unknown>;
    writeFileSync(journalPath, JSON.stringify({ version: 2, entries: [{ ...pending, id: oldId, key, state: 'pending' }] }));
    const again = await reserve(sb.baseUrl);
    expect(again.code, again.stderr).toBe(0);
    const sent = await requests(sb, 'createReservation');
    expect(sent[sent.length - 1].idempotency_key).toBe(key);
  });
});

describe('one request and one key, one command, whatever the address', () => {
  test('pending at the sandbox, rerun through a front that rewrites the path: stops, nothing sent; --new books another', async ({ sb, alias, front, reserve }) => {
    await faults(sb, { kind: 'drop', operation: 'createReservation', when: 'after_commit', times: 1 });
    const first = await reserve(sb.baseUrl);
    expect(first.code, first.stderr).toBe(6);
    expect(await reservations(sb, alias)).toHaveLength(1);
    const sentBefore = (await requests(sb, 'createReservation')).length;

    const again = await reserve(front.rewrite);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain(`error: an identical reserve was sent to ${sb.baseUrl} `);
    expect(again.stderr).toContain('its outcome is not known yet');
    expect(again.stderr).toContain('`carrental pending`');
    expect(again.stderr).toContain(`carrental --base-url ${sb.baseUrl} reserve ${alias}`);
    expect(again.stderr).toContain('--new books another anyway');
    expect((await requests(sb, 'createReservation')).length).toBe(sentBefore);
    expect(await reservations(sb, alias)).toHaveLength(1);

    // what `pending` shows finishes it where it went: the first booking, not a second
    const finish = await reserve(sb.baseUrl);
    expect(finish.code, finish.stderr).toBe(0);
    expect(await reservations(sb, alias)).toHaveLength(1);

    const another = await reserve(front.rewrite, '--new');
    expect(another.code, another.stderr).toBe(0);
    expect(await reservations(sb, alias)).toHaveLength(2);
  });

  test('pending through an address that 307-redirects, rerun at the address it redirects to: stops, nothing sent', async ({ sb, alias, front, reserve }) => {
    await faults(sb, { kind: 'drop', operation: 'createReservation', when: 'after_commit', times: 1 });
    const first = await reserve(front.moved);
    expect(first.code, first.stderr).toBe(6);
    expect(await reservations(sb, alias)).toHaveLength(1);
    const sentBefore = (await requests(sb, 'createReservation')).length;
    const again = await reserve(front.rewrite);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`error: an identical reserve was sent to ${front.moved} `);
    expect(again.stderr).toContain('--new books another anyway');
    expect((await requests(sb, 'createReservation')).length).toBe(sentBefore);
    expect(await reservations(sb, alias)).toHaveLength(1);
  });

  test('answered within the window at one address, the same command at another: says where and what it booked, nothing sent', async ({ sb, alias, front, reserve }) => {
    const first = await reserve(sb.baseUrl);
    expect(first.code, first.stderr).toBe(0);
    const uuid = first.stdout.trim();
    const again = await reserve(front.rewrite);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain(`error: already reserved by this same command through ${sb.baseUrl} 0 s ago: ${uuid}; nothing was sent`);
    expect(again.stderr).toContain(`\`carrental --base-url ${sb.baseUrl} trips ${uuid}\` shows it; --new books another anyway`);
    expect(await reservations(sb, alias)).toHaveLength(1);
  });
});

