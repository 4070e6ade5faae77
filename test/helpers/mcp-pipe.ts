// The client's end of an in-process `carrental mcp`: JSON lines over two pipes.
import type { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class PipeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private buffer = '';
  /** The byte length of each line the server sent, by JSON-RPC id (the MCP budgets count these). */
  readonly sizes = new Map<string | number, number>();
  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}
  async start() {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      for (let i = this.buffer.indexOf('\n'); i >= 0; i = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, i);
        this.buffer = this.buffer.slice(i + 1);
        if (!line.trim()) continue;
        const message = JSON.parse(line) as JSONRPCMessage & { id?: string | number };
        if (message.id !== undefined) this.sizes.set(message.id, Buffer.byteLength(line));
        this.onmessage?.(message);
      }
    });
  }
  async send(message: JSONRPCMessage) {
    this.toServer.write(`${JSON.stringify(message)}\n`);
  }
  async close() {
    this.toServer.end();
    this.onclose?.();
  }
}
