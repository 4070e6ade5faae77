// Which command an argument list names (global options and their values skipped).
import { describe, expect, it } from 'vitest';
import { commandNamed } from '../../src/cli/argv.js';

describe('commandNamed', () => {
  it.each([
    [['cars', '--city', 'la'], 'cars'],
    [['--profile', 'ci', '--timeout', '5', 'quote', 'x'], 'quote'],
    [['--profile=ci', '--json', '-y', 'auth', 'login'], 'auth'],
    [['--base-url', 'cars', 'car', 'x'], 'car'],
    [['help', 'trips'], 'trips'],
    [['help'], 'help'],
    [['--help'], undefined],
    [[], undefined],
    [['--', 'cars'], 'cars'],
  ])('%j -> %s', (argv, name) => {
    expect(commandNamed(argv)).toBe(name);
  });
});
