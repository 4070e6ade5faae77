// Types only (erased by the build): a command's input type, read off its declaration in
// commands.ts, so a flag renamed there and not in the command is a compile error.
// `--make-id <n>` gives `makeId?: string`, `--all` `all?: boolean`, `--no-quote` `quote?: boolean`,
// a repeatable flag `string[]`, choices their union; argument `<alias>` gives `alias: string`,
// `[uuid]` `uuid?: string`. The key names follow commander's own camel-casing.
import type { ArgSpec, OptionSpec } from './command-specs.js';

/** The long form of a flag list: `-H, --header <header>` → `--header <header>`. */
type LongFlag<F extends string> = F extends `${string}, ${infer Long}` ? Long : F;
type FlagName<F extends string> = LongFlag<F> extends `${infer Name} ${string}` ? Name : LongFlag<F>;
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** The property commander stores a flag under: `--make-id` → makeId, `--no-quote` → quote. */
export type OptionKey<F extends string> = FlagName<F> extends `--no-${infer N}` ? Camel<N> : FlagName<F> extends `--${infer N}` ? Camel<N> : never;

type OptionValue<O extends OptionSpec> = O extends { repeatable: true }
  ? string[]
  : O extends { choices: readonly (infer C)[] }
    ? C
    : LongFlag<O['flags']> extends `${string} <${string}>`
      ? string
      : LongFlag<O['flags']> extends `${string} [${string}]`
        ? string | true
        : boolean;

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The options commander hands a command (`opts()`), typed. */
export type OptionsInput<Opts extends readonly OptionSpec[]> = { [O in Opts[number] as OptionKey<O['flags']>]?: OptionValue<O> };

/** The declared arguments, under their keys: `<x>` required, `[x]` optional. */
export type ArgsInput<Args extends readonly ArgSpec[]> = { [A in Args[number] as A['syntax'] extends `<${string}` ? A['key'] : never]: string } & {
  [A in Args[number] as A['syntax'] extends `[${string}` ? A['key'] : never]?: string;
};

/** What program.ts hands the run function of a declared command. */
export type SpecInput<S> = Flatten<
  (S extends { options: infer O extends readonly OptionSpec[] } ? OptionsInput<O> : {}) & (S extends { args: infer A extends readonly ArgSpec[] } ? ArgsInput<A> : {})
>;

/** `cars`, `config set`, `sandbox pay`: the path of every declared command. */
export type PathsOf<Specs, Prefix extends string = ''> = Specs extends readonly (infer S)[]
  ? S extends { name: infer N extends string }
    ? `${Prefix}${N}` | (S extends { subcommands: infer Sub } ? PathsOf<Sub, `${Prefix}${N} `> : never)
    : never
  : never;

/** The declaration at a path. */
export type SpecAt<Specs, Path extends string> = Specs extends readonly (infer S)[]
  ? Path extends `${infer Head} ${infer Rest}`
    ? SpecAt<Extract<S, { name: Head }> extends { subcommands: infer Sub } ? Sub : never, Rest>
    : Extract<S, { name: Path }>
  : never;

/**
 * The paths whose module's run takes another input than the declaration gives: it must accept
 * that input, and read no field the declaration lacks (a renamed flag). `unknown` ignores it.
 */
export type ModuleMismatches<Specs, Prefix extends string = ''> = Specs extends readonly (infer S)[]
  ? S extends { name: infer N extends string }
    ?
        | (S extends { module: () => Promise<{ run: (input: infer I, ...rest: never[]) => unknown }> }
            ? [SpecInput<S>] extends [I]
              ? [Exclude<keyof I, keyof SpecInput<S>>] extends [never]
                ? never
                : `${Prefix}${N}`
              : `${Prefix}${N}`
            : never)
        | (S extends { subcommands: infer Sub } ? ModuleMismatches<Sub, `${Prefix}${N} `> : never)
    : never
  : never;
