import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/session/context.js';
import { resolveGlobals } from '../../src/cmdkit/globals.js';
import { CliError } from '../../src/errors.js';
import { FakeOut } from '../helpers/cli.js';

const io = (tty: boolean): IO => ({ stdin: process.stdin, stdout: new FakeOut(tty), stderr: new FakeOut(tty) });

describe('resolveGlobals: flags win over environment variables', () => {
  it('has the contract defaults', () => {
    expect(resolveGlobals({}, {}, io(false))).toEqual({
      profile: 'default',
      baseUrl: undefined,
      sandbox: false,
      json: false,
      color: false,
      input: true,
      yes: false,
      debug: false,
      timeoutMs: 30_000,
      wide: false,
      pager: true,
      agent: false,
      accessible: false,
    });
  });

  it('reads CARRENTAL_PROFILE / BASE_URL / SANDBOX / DEBUG / TIMEOUT', () => {
    const g = resolveGlobals(
      {},
      { CARRENTAL_PROFILE: 'ci', CARRENTAL_BASE_URL: 'https://api.example.com/v1', CARRENTAL_SANDBOX: '1', CARRENTAL_DEBUG: '1', CARRENTAL_TIMEOUT: '2.5' },
      io(false),
    );
    expect(g).toMatchObject({ profile: 'ci', baseUrl: 'https://api.example.com/v1', sandbox: true, debug: true, timeoutMs: 2500 });
  });

  it('lets flags override the environment', () => {
    const g = resolveGlobals(
      { profile: 'flag', baseUrl: 'https://flag.example.com/v1', timeout: '5' },
      { CARRENTAL_PROFILE: 'env', CARRENTAL_BASE_URL: 'https://env.example.com/v1', CARRENTAL_TIMEOUT: '60' },
      io(false),
    );
    expect(g).toMatchObject({ profile: 'flag', baseUrl: 'https://flag.example.com/v1', timeoutMs: 5000 });
  });

  it('treats 0, false and empty as off', () => {
    expect(resolveGlobals({}, { CARRENTAL_SANDBOX: '0', CARRENTAL_DEBUG: 'false', CI: '' }, io(false))).toMatchObject({ sandbox: false, debug: false, input: true });
  });

  it('CI or --no-input means never prompt', () => {
    expect(resolveGlobals({}, { CI: 'true' }, io(true)).input).toBe(false);
    expect(resolveGlobals({ input: false }, {}, io(true)).input).toBe(false);
  });

  it('colour: on a terminal only, off with --no-color or NO_COLOR, forced by FORCE_COLOR unless --no-color', () => {
    expect(resolveGlobals({}, {}, io(true)).color).toBe(true);
    expect(resolveGlobals({}, {}, io(false)).color).toBe(false);
    expect(resolveGlobals({ color: false }, {}, io(true)).color).toBe(false);
    expect(resolveGlobals({}, { NO_COLOR: '1' }, io(true)).color).toBe(false);
    expect(resolveGlobals({}, { FORCE_COLOR: '1' }, io(false)).color).toBe(true);
    expect(resolveGlobals({}, { FORCE_COLOR: '0' }, io(true)).color).toBe(true);
    expect(resolveGlobals({ color: false }, { FORCE_COLOR: '1' }, io(false)).color).toBe(false);
  });

  it.each([['0'], ['-1'], ['abc'], ['3601']])('refuses --timeout %s', (t) => {
    expect(() => resolveGlobals({ timeout: t }, {}, io(false))).toThrow(CliError);
  });

  it('refuses a profile name that could escape the config', () => {
    expect(() => resolveGlobals({ profile: '../etc' }, {}, io(false))).toThrow(/invalid profile name/);
  });
});
