// The command tree: the loader of the module that runs each declared command, by its path
// (the declarations, src/cmdkit/command-specs.ts, name it). Nothing but the entry (main.ts)
// imports this file: the commands read their input types off the declarations, never off
// the tree. The build makes each module an entry of its own (scripts/build.mjs reads the
// import() calls below).
import type { CommandSpec, Declared } from '../cmdkit/command-specs.js';
import type { ModuleMismatches } from '../cmdkit/command-types.js';
import type { Context } from '../session/context.js';

const MODULES = {
  'cars': () => import('../commands/cars.js'),
  'car': () => import('../commands/car.js'),
  'quote': () => import('../commands/quote.js'),
  'trips': () => import('../commands/trips.js'),
  'reserve': () => import('../commands/reserve.js'),
  'cancel': () => import('../commands/cancel.js'),
  'pay-link': () => import('../commands/pay-link.js'),
  'extend-link': () => import('../commands/extend-link.js'),
  'invoices': () => import('../commands/invoices.js'),
  'invoice': () => import('../commands/invoice.js'),
  'profile': () => import('../commands/profile.js'),
  'verification': () => import('../commands/verification.js'),
  'cards': () => import('../commands/cards.js'),
  'card-link': () => import('../commands/card-link.js'),
  'auth login': () => import('../commands/auth-login.js'),
  'auth status': () => import('../commands/auth-status.js'),
  'auth logout': () => import('../commands/auth-logout.js'),
  'config get': () => import('../commands/config.js').then((m) => ({ run: m.get })),
  'config set': () => import('../commands/config.js').then((m) => ({ run: m.set })),
  'config unset': () => import('../commands/config.js').then((m) => ({ run: m.unset })),
  'config list': () => import('../commands/config.js').then((m) => ({ run: m.list })),
  'config path': () => import('../commands/config.js').then((m) => ({ run: m.path })),
  'pending list': () => import('../commands/pending.js').then((m) => ({ run: m.list })),
  'pending clear': () => import('../commands/pending.js').then((m) => ({ run: m.clear })),
  'pending': () => import('../commands/pending.js').then((m) => ({ run: (_input: unknown, ctx: Context) => m.list({}, ctx) })),
  'api': () => import('../commands/api.js'),
  'status': () => import('../commands/status.js'),
  'doctor': () => import('../commands/doctor.js'),
  'completion': () => import('../commands/completion.js'),
  '__complete': () => import('../commands/complete.js'),
  'mcp': () => import('../commands/mcp.js'),
  'sandbox serve': () => import('../commands/sandbox-serve.js'),
  'sandbox openapi': () => import('../commands/sandbox-openapi.js'),
  'sandbox reset': () => import('../commands/sandbox-reset.js'),
  'sandbox pay': () => import('../commands/sandbox-pay.js'),
  'sandbox card': () => import('../commands/sandbox-card.js'),
  'sandbox extend': () => import('../commands/sandbox-extend.js'),
  'sandbox clock': () => import('../commands/sandbox-clock.js'),
  'sandbox fault': () => import('../commands/sandbox-fault.js'),
  'sandbox keys': () => import('../commands/sandbox-keys.js'),
  'help': () => import('../commands/help.js'),
};

type ModulePath = keyof typeof MODULES;

/** The module of a declared command (one with a `module`). */
export function loadCommand(spec: CommandSpec): Promise<unknown> {
  return MODULES[spec.module as ModulePath]();
}

/** A declaration with its module path replaced by the loader, as ModuleMismatches reads it. */
type Loaded<S> = Omit<S, 'module' | 'subcommands'> &
  (S extends { module: infer M extends ModulePath } ? { module: (typeof MODULES)[M] } : {}) &
  (S extends { subcommands: infer Sub } ? { subcommands: LoadedAll<Sub> } : {});
/** Generic, so that a tuple maps to a tuple. */
type LoadedAll<T> = { [K in keyof T]: Loaded<T[K]> };

type ModulesOf<Specs> = Specs extends readonly (infer S)[]
  ? (S extends { module: infer M } ? M : never) | (S extends { subcommands: infer Sub } ? ModulesOf<Sub> : never)
  : never;

type Holds<T extends never> = T;
/** Fails to compile, naming it, when a declaration names a module this tree has no loader for. */
export type EveryModuleLoads = Holds<Exclude<ModulesOf<Declared>, ModulePath>>;
/**
 * Fails to compile, naming the command, when a module's run takes another input than its
 * declaration gives (a flag renamed there and not in the command).
 */
export type ModulesMatchDeclarations = Holds<ModuleMismatches<LoadedAll<Declared>>>;
