import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseHeaders, parseMethod, parsePath, readBody } from '../../src/commands/api.js';
import type { InStream } from '../../src/cli/context.js';
import { CliError } from '../../src/errors.js';

const usage = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(2);
    return (err as CliError).message;
  }
  throw new Error('expected a usage error');
};

describe('api command input', () => {
  it('upper-cases known methods and refuses others', () => {
    expect(parseMethod('get')).toBe('GET');
    expect(usage(() => parseMethod('FETCH'))).toContain('unknown HTTP method');
  });

  it('keeps paths under the base URL', () => {
    expect(parsePath('my/profile')).toBe('/my/profile');
    expect(parsePath('/cars?city=la')).toBe('/cars?city=la');
    expect(usage(() => parsePath('https://evil.example/v1/my/profile'))).toContain('is a URL');
    expect(usage(() => parsePath('//evil.example/x'))).toContain('is a URL');
    expect(usage(() => parsePath(''))).toContain('path is required');
  });

  it('parses headers and refuses credentials on the command line', () => {
    expect(parseHeaders(['X-Agent-Client: me/1', 'Accept:application/json'])).toEqual({ 'x-agent-client': 'me/1', accept: 'application/json' });
    expect(usage(() => parseHeaders(['Authorization: Bearer svc_x']))).toContain('refusing');
    expect(usage(() => parseHeaders(['x-api-key: svc_x']))).toContain('refusing');
    expect(usage(() => parseHeaders(['no colon']))).toContain('Name: value');
    expect(usage(() => parseHeaders(['Bad Name: x']))).toContain('Name: value');
  });

  it('checks the body is JSON before anything is sent, from the flag or stdin', async () => {
    const stdin = new PassThrough();
    stdin.end('{"a": 1}');
    expect(await readBody('-', { io: { stdin: stdin as unknown as InStream } as never })).toBe('{"a": 1}');
    expect(await readBody('[1,2]', { io: {} as never })).toBe('[1,2]');
    expect(await readBody(undefined, { io: {} as never })).toBeUndefined();
    await expect(readBody('{nope', { io: {} as never })).rejects.toMatchObject({ kind: 'usage' });
  });
});
