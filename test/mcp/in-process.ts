// `carrental mcp` in-process (runCli with piped stdio, the SDK's client on the other end)
// against the in-process sandbox: fast, seen by mutation testing, and every byte the server
// sends is counted (the context budgets are measured on exactly that).
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { InStream } from '../../src/session/context.js';
import { runCli } from '../../src/cli/main.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { FakeOut, type TestHome } from '../helpers/cli.js';
import { PipeTransport } from '../helpers/mcp-pipe.js';

export interface Session {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The bytes of the minified JSON-RPC answer to the last request. */
  lastSize(): number;
  /** Ends the session; resolves to the server's stderr once it has stopped. */
  stop(): Promise<string>;
}

export interface ServeOptions {
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  now?: () => Date;
  key?: string;
  /** Declares MCP elicitation and answers the server's forms with this. */
  elicit?: (params: { message: string; requestedSchema: unknown }) => ElicitResult | Promise<ElicitResult>;
}

export async function serve(sb: RunningSandbox, home: TestHome, opts: ServeOptions = {}): Promise<Session> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new FakeOut(false);
  const exited = runCli(['--base-url', sb.baseUrl, 'mcp', ...(opts.argv ?? ['--allow-booking'])], {
    io: { stdin: stdin as unknown as InStream, stdout: stdout as never, stderr },
    env: home.env({ CARRENTAL_API_KEY: opts.key ?? sb.keys.booking_write, CARRENTAL_WRITE_RETRIES: '2', ...opts.env }),
    sleep: async () => {},
    ...(opts.now ? { now: opts.now } : {}),
  });
  const transport = new PipeTransport(stdin, stdout);
  const client = new Client({ name: 'in-process-test', version: '1.0.0' }, opts.elicit ? { capabilities: { elicitation: {} } } : undefined);
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(request.params as { message: string; requestedSchema: unknown }));
  }
  let lastId: string | number | undefined;
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    if ('id' in message) lastId = message.id;
    return send(message);
  };
  await client.connect(transport);
  return {
    client,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    lastSize: () => transport.sizes.get(lastId!) ?? 0,
    stop: async () => {
      await client.close();
      expect(await exited).toBe(0);
      return stderr.text();
    },
  };
}

export const structured = (r: CallToolResult) => r.structuredContent as Record<string, any>;
export const errorOf = (r: CallToolResult) => JSON.parse((r.content[1] as { text: string }).text).error as Record<string, any>;
