// A loopback proxy in front of a sandbox that breaks the spec on purpose, one rule per
// break, for `doctor --contract` tests: every request is forwarded as is, and a break can
// rewrite the answer of one operation (its raw text, so `185.00` stays a decimal) or
// answer in the sandbox's place.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface Break {
  /** Which requests it applies to. */
  match: (method: string, path: string) => boolean;
  /** Answers in the sandbox's place (no forwarding); return undefined to forward this one. */
  answer?: (count: number) => Upstream | undefined;
  /** Rewrites the sandbox's answer. */
  rewrite?: (res: Upstream) => Upstream;
}

export class ContractBreaker {
  private breaks: Break[] = [];
  private counts = new Map<Break, number>();
  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
    private readonly upstream: string,
  ) {}

  /** `upstream` is the sandbox's base URL (ending in /v1); the proxy's base URL ends in /v1 too. */
  static async start(upstream: string): Promise<ContractBreaker> {
    let self: ContractBreaker | undefined;
    const server = createServer((req, res) => {
      self!.handle(req, res).catch((err: Error) => {
        res.statusCode = 502;
        res.end(String(err.message));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    self = new ContractBreaker(server, `http://127.0.0.1:${port}/v1`, upstream);
    return self;
  }

  use(...breaks: Break[]): void {
    this.breaks.push(...breaks);
  }

  clear(): void {
    this.breaks = [];
    this.counts.clear();
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = (req.url ?? '/').replace(/^\/v1/, '');
    const bare = path.split('?')[0];
    const method = req.method ?? 'GET';
    const hits = this.breaks.filter((b) => b.match(method, bare));
    for (const b of hits) {
      const n = (this.counts.get(b) ?? 0) + 1;
      this.counts.set(b, n);
      const own = b.answer?.(n);
      if (own) return send(res, own);
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
    const up = await fetch(this.upstream + path, { method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    let answer: Upstream = { status: up.status, headers: { 'content-type': up.headers.get('content-type') ?? 'application/json' }, text: await up.text() };
    const retryAfter = up.headers.get('retry-after');
    if (retryAfter !== null) answer.headers['retry-after'] = retryAfter;
    for (const b of hits) if (b.rewrite) answer = b.rewrite(answer);
    send(res, answer);
  }
}

function send(res: ServerResponse, a: Upstream): void {
  res.writeHead(a.status, { ...a.headers, 'content-length': Buffer.byteLength(a.text) });
  res.end(a.text);
}

/** The answer's JSON changed by `fn` (which may mutate it), written back with JSON.stringify. */
export function editJson(fn: (body: any) => void): (res: Upstream) => Upstream {
  return (res) => {
    const body = JSON.parse(res.text);
    fn(body);
    return { ...res, text: JSON.stringify(body) };
  };
}
