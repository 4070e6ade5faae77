// Kept honest (issue 34): agents' prompts and host configurations depend on the tools'
// names and arguments, so a change to any tool's input or output schema, as tools/list
// serves it, fails here until its snapshot is updated on purpose:
//
//   npx vitest run test/mcp/tool-schemas.test.ts -u
//
// and the diff of test/mcp/__snapshots__/tool-schemas.json is reviewed with the change
// (docs/agents.md, "Changing a tool"). Add, don't rename.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { test } from '../booking/sandbox.js';
import { serve } from './in-process.js';

const SNAPSHOT = join(import.meta.dirname, '__snapshots__', 'tool-schemas.json');

describe('tool schemas', () => {
  test('every tool’s input and output schema, as tools/list serves them with booking allowed, matches the committed snapshot', async ({ sb, home }) => {
    // a deleted snapshot would be written afresh and pass: it must be there
    expect(existsSync(SNAPSHOT), `${SNAPSHOT} is committed`).toBe(true);
    const s = await serve(sb, home);
    let tools;
    try {
      tools = (await s.client.listTools()).tools;
    } finally {
      await s.stop();
    }
    const schemas = Object.fromEntries(
      [...tools].sort((a, b) => a.name.localeCompare(b.name)).map((t) => [t.name, { input: t.inputSchema, output: t.outputSchema ?? null }]),
    );
    await expect(`${JSON.stringify(schemas, null, 2)}\n`).toMatchFileSnapshot(SNAPSHOT);
  });
});
