// The stdio wire of `carrental mcp`: one JSON-RPC message a line on the command's own
// streams. The SDK's StdioServerTransport closes itself when stdin ends and drops the answers
// of the calls still running; a host that writes a request and closes stdin (a script, a
// one-shot call) must still get its answer, and a create or cancel must settle its journal
// entry. So the end of stdin only tells the server to stop (`onEnd`); the server finishes the
// calls in flight, waits for their answers to be written, then closes this transport.
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import type { InStream, OutStream } from '../session/context.js';

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Answers being written now: the server waits for them before it stops. */
  sending = 0;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(
    private readonly stdin: InStream,
    private readonly stdout: OutStream,
    private readonly onEnd: (why: string) => void,
  ) {}

  private readonly ondata = (chunk: Buffer | string) => {
    this.buffer.append(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (err) {
        // a line that is not JSON-RPC: said on stderr, the next line is read
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      if (message === null) break;
      this.onmessage?.(message);
    }
  };
  private readonly onstdinEnd = () => this.onEnd('stdin closed');
  private readonly onstdinError = (err: Error) => this.onerror?.(err);
  private readonly onstdoutError = (err: Error) => this.onEnd(`stdout failed (${err.message})`);

  async start(): Promise<void> {
    const stdin = this.stdin as unknown as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean };
    stdin.on('data', this.ondata);
    stdin.on('error', this.onstdinError);
    stdin.once('end', this.onstdinEnd);
    stdin.once('close', this.onstdinEnd);
    (this.stdout as unknown as NodeJS.WritableStream).on('error', this.onstdoutError);
    if (stdin.readableEnded || stdin.destroyed) setImmediate(this.onstdinEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the stdio transport is closed');
    const out = this.stdout as unknown as NodeJS.WritableStream;
    this.sending++;
    try {
      await new Promise<void>((resolve, reject) => {
        // the write's callback: written, or failed (a closed pipe; onstdoutError stops the server)
        out.write(serializeMessage(message), (err?: Error | null) => (err ? reject(err) : resolve()));
      });
    } finally {
      this.sending--;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const stdin = this.stdin as unknown as NodeJS.ReadableStream;
    stdin.off('data', this.ondata);
    stdin.off('error', this.onstdinError);
    stdin.off('end', this.onstdinEnd);
    stdin.off('close', this.onstdinEnd);
    // a write failing after the end is not news; keep a listener so it is not thrown
    (this.stdout as unknown as NodeJS.WritableStream).off('error', this.onstdoutError);
    (this.stdout as unknown as NodeJS.WritableStream).on('error', () => undefined);
    stdin.pause();
    this.buffer.clear();
    this.onclose?.();
    this.onEnd('transport closed');
  }
}
