// The accessible mode's prompts (CARRENTAL_ACCESSIBLE=1, TERM=dumb): numbered lists and typed
// lines, nothing redrawn. Each test types its answers into stdin, all at once (as a fast
// typist or a screen reader's paste would), and reads what was written.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Context, InStream } from '../../src/session/context.js';
import { resolveGlobals } from '../../src/cmdkit/globals.js';
import { LIST_AT_MOST, plainPrompter, readSecret } from '../../src/cmdkit/plain-prompts.js';
import { inquirerPrompter } from '../../src/cmdkit/reserve-prompts.js';
import { FakeOut } from '../helpers/cli.js';

function setup(typed: string, env: NodeJS.ProcessEnv = { CARRENTAL_ACCESSIBLE: '1' }) {
  const stdin = new PassThrough() as unknown as InStream & PassThrough;
  stdin.isTTY = true;
  stdin.end(typed);
  const stdout = new FakeOut(true);
  const stderr = new FakeOut(true);
  const io = { stdin, stdout, stderr };
  const cleanups: Array<() => unknown> = [];
  const controller = new AbortController();
  const ctx: Context = {
    io,
    env,
    globals: resolveGlobals({}, env, io),
    version: 'test',
    now: () => new Date(),
    sleep: async () => {},
    signal: controller.signal,
    canPrompt: () => true,
    onCleanup: (fn) => cleanups.push(fn),
  };
  return { ctx, stdout, controller, close: () => cleanups.forEach((fn) => fn()) };
}

const choices = [
  { name: 'la (America/Los_Angeles)', value: 'la' },
  { name: 'miami (America/New_York)', value: 'miami' },
];

describe('the accessible prompter', () => {
  it('is what reserve, cancel and sandbox reset get with CARRENTAL_ACCESSIBLE=1 or TERM=dumb, and not otherwise', async () => {
    for (const env of [{ CARRENTAL_ACCESSIBLE: '1' }, { TERM: 'dumb' }]) {
      const { ctx, stdout, close } = setup('2\n', env);
      expect(await inquirerPrompter(ctx).select('City', choices, 'la')).toBe('miami');
      expect(stdout.text()).toContain('  2. miami (America/New_York)');
      close();
    }
    expect(resolveGlobals({}, { TERM: 'dumb', CARRENTAL_ACCESSIBLE: '0' }, setup('').ctx.io).accessible).toBe(false);
    expect(resolveGlobals({}, { TERM: 'xterm-256color' }, setup('').ctx.io).accessible).toBe(false);
  });

  it('select: a numbered list, a typed number; Enter takes the default; anything else is asked again', async () => {
    const { ctx, stdout, close } = setup('\nthree\n9\n2\n');
    const p = plainPrompter(ctx);
    expect(await p.select('City', choices, 'la')).toBe('la');
    expect(await p.select('City', choices, 'la')).toBe('miami');
    close();
    const text = stdout.text();
    expect(text).toContain('City:\n  1. la (America/Los_Angeles)\n  2. miami (America/New_York)\nType a number from 1 to 2, or press Enter for 1: ');
    expect(text).toContain('"three" is not a number from 1 to 2.');
    expect(text).toContain('"9" is not a number from 1 to 2.');
    // no escape sequence: nothing moves the cursor, erases or colours
    expect(text).not.toContain('\u001b');
  });

  it('search: a long list is narrowed by typed words before it is read out, then a number picks', async () => {
    const cars = Array.from({ length: LIST_AT_MOST + 5 }, (_, i) => ({ name: `${i % 2 ? 'Honda Civic' : 'Toyota Camry'} ${2000 + i}`, value: i }));
    const { ctx, stdout, close } = setup('tesla\ntoyota 2004\n1\n');
    expect(await plainPrompter(ctx).search('Car (25 available; type to filter)', cars)).toBe(4);
    close();
    const text = stdout.text();
    expect(text).toContain('25 to choose from: type words to narrow the list');
    expect(text).toContain('Nothing matches "tesla".');
    expect(text).toContain('1 match "toyota 2004":\n  1. Toyota Camry 2004\n');
    expect(text).not.toContain('\u001b');
  });

  it('input: Enter takes the default; a refused answer says why and asks again', async () => {
    const { ctx, stdout, close } = setup('\nnot a date\n2026-12-01 10:00\n');
    const p = plainPrompter(ctx);
    expect(await p.input('Delivery address', { defaultValue: 'here' })).toBe('here');
    expect(await p.input('Check-in', { validate: (v) => (/^\d{4}-/.test(v) ? true : `"${v}" is not a date`) })).toBe('2026-12-01 10:00');
    close();
    expect(stdout.text()).toContain('Delivery address [Enter for here]: ');
    expect(stdout.text()).toContain('"not a date" is not a date\nCheck-in: ');
  });

  it('checkbox: numbers separated by spaces or commas; Enter for none', async () => {
    const extras = [
      { name: 'Child seat — $10.00 per day', value: 'child_seat' },
      { name: 'GPS — $5.00 per day', value: 'gps' },
      { name: 'Cooler — $3.00 per day', value: 'cooler' },
    ];
    const { ctx, stdout, close } = setup('3, 1\n4\n\n');
    const p = plainPrompter(ctx);
    expect(await p.checkbox('Extras (space to select, enter to continue)', extras)).toEqual(['child_seat', 'cooler']);
    expect(await p.checkbox('Extras (space to select, enter to continue)', extras)).toEqual([]);
    close();
    expect(stdout.text()).toMatch(/^Extras:\n  1\. Child seat/);
    expect(stdout.text()).toContain('"4": type numbers from 1 to 3.');
  });

  it('confirm: yes or no typed out; another answer is asked again; Enter takes the default', async () => {
    const { ctx, stdout, close } = setup('maybe\nyes\n\n');
    const p = plainPrompter(ctx);
    expect(await p.confirm('Book it?', false)).toBe(true);
    expect(await p.confirm('Book it?', false)).toBe(false);
    close();
    expect(stdout.text()).toContain('Book it? Type yes or no (Enter for no): ');
    expect(stdout.text()).toContain('"maybe": type yes or no.');
  });

  it('the input ending before an answer is a usage error, not a hang; Ctrl-C is interrupted', async () => {
    const { ctx, close } = setup('');
    await expect(plainPrompter(ctx).confirm('Book it?', false)).rejects.toMatchObject({ kind: 'usage' });
    close();
    const stdin = new PassThrough();
    const live = setup('');
    (live.ctx.io as { stdin: unknown }).stdin = Object.assign(stdin, { isTTY: true });
    const asked = plainPrompter(live.ctx).confirm('Book it?', false);
    await new Promise((r) => setTimeout(r, 10));
    live.controller.abort();
    await expect(asked).rejects.toMatchObject({ kind: 'interrupted' });
    live.close();
  });
});

describe('a secret in the accessible mode (auth login)', () => {
  it('is read without echo or mask: raw mode on, Backspace honoured, Enter ends it, raw mode off', async () => {
    const { ctx, close } = setup('');
    const stdin = Object.assign(new PassThrough(), { isTTY: true, modes: [] as boolean[], setRawMode(mode: boolean) {
      this.modes.push(mode);
    } });
    (ctx.io as { stdin: unknown }).stdin = stdin;
    const read = readSecret(ctx, 'API key');
    stdin.write('svc_abcx\u007fd');
    stdin.write('\r');
    expect(await read).toBe('svc_abcd');
    expect(stdin.modes).toEqual([true, false]);
    const err = (ctx.io.stderr as FakeOut).text();
    expect(err).toBe('API key (typing is not shown; press Enter when done): \n8 characters read.\n');
    expect(err).not.toContain('svc_');
    close();
  });

  it('Ctrl-C is interrupted; an input that ends with nothing typed is a usage error', async () => {
    const { ctx, close } = setup('');
    const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode() {} });
    (ctx.io as { stdin: unknown }).stdin = stdin;
    const read = readSecret(ctx, 'API key');
    stdin.write('svc_\u0003');
    await expect(read).rejects.toMatchObject({ kind: 'interrupted' });
    const ended = Object.assign(new PassThrough(), { isTTY: true });
    (ctx.io as { stdin: unknown }).stdin = ended;
    const none = readSecret(ctx, 'API key');
    ended.end();
    await expect(none).rejects.toMatchObject({ kind: 'usage' });
    close();
  });
});
