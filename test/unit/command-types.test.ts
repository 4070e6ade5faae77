// Command inputs are typed from their declarations in src/cli/commands.ts. The checks here
// are mostly for the compiler (`npx tsc --noEmit` fails on a broken one); the runtime cases
// pin the type-level flag names to commander's own.
import { Option } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { CommandPath, InputOf } from '../../src/cmdkit/command-specs.js';
import type { ModuleMismatches, OptionKey } from '../../src/cmdkit/command-types.js';
import type { IO } from '../../src/session/context.js';
import type { RawGlobals } from '../../src/cmdkit/globals.js';
import { buildProgram } from '../../src/cli/program.js';
import type { CarsInput } from '../../src/commands/cars.js';
import { FakeOut } from '../helpers/cli.js';

describe('InputOf', () => {
  it('reads the flags and arguments of a declaration', () => {
    expectTypeOf<InputOf<'cars'>>().toHaveProperty('makeId').toEqualTypeOf<string | undefined>();
    expectTypeOf<InputOf<'cars'>>().toHaveProperty('all').toEqualTypeOf<boolean | undefined>();
    expectTypeOf<InputOf<'cars'>>().toHaveProperty('city').toEqualTypeOf<'la' | 'miami' | undefined>();
    expectTypeOf<InputOf<'reserve'>>().toHaveProperty('quote').toEqualTypeOf<boolean | undefined>(); // --no-quote
    expectTypeOf<InputOf<'reserve'>>().toHaveProperty('extra').toEqualTypeOf<string[] | undefined>(); // repeatable
    expectTypeOf<InputOf<'reserve'>>().toHaveProperty('alias').toEqualTypeOf<string | undefined>(); // [alias]
    expectTypeOf<InputOf<'car'>>().toEqualTypeOf<{ alias: string }>(); // <alias>
    expectTypeOf<InputOf<'api'>>().toHaveProperty('header').toEqualTypeOf<string[] | undefined>(); // -H, --header
    expectTypeOf<InputOf<'sandbox pay'>>().toEqualTypeOf<{ uuid: string; type?: 'rent' | 'deposit'; port?: string }>();
    expectTypeOf<'config set'>().toExtend<CommandPath>();
  });

  it('makes a misspelled field or command a compile error', () => {
    const input = {} as CarsInput;
    // @ts-expect-error the flag is --make-id: makeId, not makeid
    expect(input.makeid).toBeUndefined();
    // @ts-expect-error no command `carz`
    expectTypeOf<InputOf<'carz'>>().toBeObject();
  });

  it('names the command whose module reads a field its declaration lacks', () => {
    const specs = [
      {
        name: 'cars',
        options: [{ flags: '--make <n>', description: 'renamed from --make-id' }],
        module: () => Promise.resolve({ run: (_input: { makeId?: string }) => 0 }),
      },
      {
        name: 'car',
        args: [{ syntax: '<alias>', key: 'alias', description: '' }],
        module: () => Promise.resolve({ run: (_input: { alias: string }) => 0 }),
      },
      { name: 'profile', module: () => Promise.resolve({ run: (_input: unknown) => 0 }) },
    ] as const;
    expectTypeOf<ModuleMismatches<typeof specs>>().toEqualTypeOf<'cars'>();
  });
});

describe('RawGlobals', () => {
  it('reads the global flags of global-options.ts', () => {
    expectTypeOf<RawGlobals>().toHaveProperty('baseUrl').toEqualTypeOf<string | undefined>();
    expectTypeOf<RawGlobals>().toHaveProperty('color').toEqualTypeOf<boolean | undefined>(); // --no-color
    expectTypeOf<RawGlobals>().toHaveProperty('json').toEqualTypeOf<string | true | undefined>(); // --json [fields]
    expectTypeOf<RawGlobals>().toHaveProperty('yes').toEqualTypeOf<boolean | undefined>(); // -y, --yes
    // @ts-expect-error the flag is --base-url
    expectTypeOf<RawGlobals>().toHaveProperty('baseURL');
  });
});

describe('OptionKey follows commander', () => {
  const cases = [
    ['--make-id <n>', 'makeId'],
    ['--all', 'all'],
    ['--no-quote', 'quote'],
    ['-H, --header <header>', 'header'],
    ['--json [fields]', 'json'],
    ['--delivery-address <address>', 'deliveryAddress'],
  ] as const;
  type Case = (typeof cases)[number];
  expectTypeOf<{ [C in Case as C[0]]: OptionKey<C[0]> }>().toEqualTypeOf<{ [C in Case as C[0]]: C[1] }>();
  it.each(cases)('%s is %s', (flags, key) => {
    expect(new Option(flags).attributeName()).toBe(key);
  });
});

describe('the parser hands a command its declared input', () => {
  it('cars --make-id 3 --city LA --all', async () => {
    const io = { stdout: new FakeOut(), stderr: new FakeOut(), stdin: process.stdin } as unknown as IO;
    let got: unknown;
    const { program } = buildProgram(io, async (_spec, input, _raw: RawGlobals) => ((got = input), 0));
    await program.parseAsync(['cars', '--make-id', '3', '--city', 'LA', '--all'], { from: 'user' });
    expect(got).toEqual({ makeId: '3', city: 'la', all: true } satisfies InputOf<'cars'>);
  });
});
