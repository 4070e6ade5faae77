// zod/mini as carrental uses it: the members it calls (read off the namespace one by one, so
// the build keeps only those), set up once (English messages, no JIT). Every module takes
// zod from here, never from 'zod/mini' itself (test/unit/layers.test.ts checks), so the
// set-up always comes first. A member not listed here is a compile error.
//
// The build puts scripts/zod-on-first-use.ts in this module's place for every other module:
// it loads this one, and with it zod, the first time a member of `z` is read rather than when
// the client loads, so a command that builds no schema never runs zod's module bodies
// (`cars --json` checks its page without zod: ~4 ms of CPU on Node 22, docs/performance.md).
import * as mini from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// mini ships no messages: load the English ones, so a validation error says what it expected
mini.config(en());
// zod's JIT builds a parser per object schema with new Function on first use: worth it in a
// long-running server, a loss in a command that parses a few responses and exits (the
// first parse of a 50-car page costs about twice as much with it).
mini.config({ jitless: true });

export const z = {
  _default: mini._default,
  array: mini.array,
  boolean: mini.boolean,
  describe: mini.describe,
  discriminatedUnion: mini.discriminatedUnion,
  enum: mini.enum,
  extend: mini.extend,
  globalRegistry: mini.globalRegistry,
  int: mini.int,
  literal: mini.literal,
  looseObject: mini.looseObject,
  maximum: mini.maximum,
  maxLength: mini.maxLength,
  minimum: mini.minimum,
  minLength: mini.minLength,
  nullable: mini.nullable,
  number: mini.number,
  object: mini.object,
  optional: mini.optional,
  partial: mini.partial,
  prettifyError: mini.prettifyError,
  record: mini.record,
  refine: mini.refine,
  regex: mini.regex,
  strictObject: mini.strictObject,
  string: mini.string,
  toJSONSchema: mini.toJSONSchema,
};
