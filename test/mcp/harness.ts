// `carrental mcp` as an agent host runs it: the built CLI spawned over stdio and driven by
// the SDK's own client, against a spawned `carrental sandbox serve --port 0`.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { assertBuilt, BIN, ROOT } from '../helpers/bin.js';
import type { TestHome } from '../helpers/cli.js';

export interface Served {
  base_url: string;
  app_url: string;
  keys: Record<'booking_write' | 'read_only' | 'other_customer' | 'unverified' | 'no_card_payments', string>;
}

export class Serve {
  private constructor(
    readonly child: ChildProcessWithoutNullStreams,
    readonly info: Served,
  ) {}

  static async start(home: TestHome, extra: string[] = [], state = 'serve.json'): Promise<Serve> {
    assertBuilt();
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--json', '--reset', '--no-rate-limit', '--state', `${home.dir}/${state}`, ...extra], {
      env: home.env(),
    });
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`sandbox serve exited with ${code}`)));
    });
    return new Serve(child, JSON.parse(line) as Served);
  }

  get adminUrl(): string {
    return `${new URL(this.info.base_url).origin}/__sandbox`;
  }

  async admin<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.adminUrl + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as T;
    if (!res.ok) throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** The demo customer's (dana's) reservations, as the sandbox itself records them. */
  async reservations(): Promise<Array<{ uuid: string; status: string; car_alias: string; date_checkin: string; date_checkout: string }>> {
    return (await this.admin('GET', '/reservations?customer=dana')).reservations;
  }

  async requests(): Promise<Array<{ operation: string | null; status: number | null; agent_client?: string | null; idempotency_key?: string | null; path: string }>> {
    return (await this.admin('GET', '/requests')).requests;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await gone;
  }
}

export interface Session {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Starts `carrental <argv>` (e.g. `--base-url U mcp`) as an MCP server and connects the SDK client to it. */
export async function connect(argv: string[], env: NodeJS.ProcessEnv, clientInfo = { name: 'mcp-test-host', version: '1.2.3' }): Promise<Session> {
  assertBuilt();
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, ...argv], env: env as Record<string, string>, cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client(clientInfo);
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    call: (name, args = {}) => client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }) as Promise<CallToolResult>,
    close: () => client.close(),
  };
}

/** A car-local date `days` ahead of today at `time` (inside the sandbox's opening hours). */
export function daysAhead(days: number, time = '10:00'): string {
  const d = new Date(Date.now() + days * 86_400_000);
  return `${d.toISOString().slice(0, 10)}T${time}`;
}

export const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
