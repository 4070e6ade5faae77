// Issue 29: a line carrental prints from a file or a protocol peer is sanitised like a
// server string: the corrupt journal's warning (which quotes the file) and the MCP
// server's protocol-error line on stderr carry no escape, control or bidi character.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import { Journal } from '../../src/store/journal.js';
import { FakeOut, runCommand, TestHome } from '../helpers/cli.js';

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\u001b]0;owned\u0007\u001b[2J\u0000\u009b1m\u202eevil';

let home: TestHome;
beforeEach(() => {
  home = new TestHome();
});
afterEach(() => home.cleanup());

describe('the corrupt journal warning', () => {
  it('quotes no raw byte of the damaged file', async () => {
    const dir = home.env().CARRENTAL_STATE_DIR!;
    mkdirSync(dir, { recursive: true });
    // a version the warning quotes; JSON.stringify leaves C1 and bidi characters raw
    writeFileSync(join(dir, 'journal.json'), JSON.stringify({ version: `2${HOSTILE}`, entries: [] }));
    const warnings: string[] = [];
    expect(await new Journal({ path: join(dir, 'journal.json'), onWarning: (m) => warnings.push(m) }).list()).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('is corrupt (unknown format version "2');
    expect(warnings[0]).not.toMatch(UNSAFE);

    writeFileSync(join(dir, 'journal.json'), JSON.stringify({ version: `2${HOSTILE}`, entries: [] }));
    const r = await runCommand(['pending', 'list'], { env: home.env(), tty: true });
    expect(r.stderr).toContain('is corrupt');
    expect(r.stderr.replaceAll('\r\u001b[2K', '').replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(UNSAFE);
  });
});

describe('the MCP server’s stderr log', () => {
  it('a protocol error quoting the peer’s bytes is one clean line', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const stderr = new FakeOut(false);
    const exited = runCli(['--base-url', 'http://127.0.0.1:9/v1', 'mcp'], {
      io: { stdin: stdin as unknown as InStream, stdout: stdout as never, stderr },
      env: home.env(),
    });
    // wait until it serves, then send a line that is not JSON, full of terminal controls
    for (let i = 0; i < 200 && !stderr.text().includes('serving'); i++) await new Promise((r) => setTimeout(r, 10));
    // valid JSON, not JSON-RPC: the error quotes the unknown key, C1 and bidi characters raw
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', [`x${HOSTILE}`]: 1 })}\n`);
    for (let i = 0; i < 200 && !stderr.text().includes('protocol error'); i++) await new Promise((r) => setTimeout(r, 10));
    stdin.end();
    expect(await exited).toBe(0);
    const log = stderr.text();
    expect(log).toContain('carrental mcp: protocol error: ');
    for (const line of log.split('\n')) expect(line).not.toMatch(UNSAFE);
  });
});
