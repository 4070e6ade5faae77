// Servers from the outside world, on loopback: an HTTP proxy that records what it saw
// (plain forwarding and CONNECT tunnels), and certificates made with openssl for https
// servers. Every server listens on port 0; close() ends it and its connections.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Listening {
  port: number;
  close(): Promise<void>;
}

function listening(server: Server, sockets: Set<Socket>): Promise<Listening> {
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      }),
    ),
  );
}

export function serveHttp(handler: RequestListener): Promise<Listening> {
  return listening(createServer(handler), new Set());
}

export function serveHttps(cert: { key: string; cert: string }, handler: RequestListener): Promise<Listening> {
  return listening(createHttpsServer({ key: cert.key, cert: cert.cert }, handler) as unknown as Server, new Set());
}

/**
 * A CA and a server certificate it signed for `names` (DNS names or IP addresses), made
 * with openssl in a temp directory; `selfSigned` is a lone certificate for the same names;
 * `expired` is signed by the same CA for the same names and ran out in January 2020.
 */
export function makeCertificates(names: string[], opts: { days?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'carrental-certs-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const san = names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  try {
    run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=carrental test CA']);
    run(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${names[0]}`]);
    const ext = join(dir, 'ext.cnf');
    execFileSync('sh', ['-c', `printf 'subjectAltName=${san}\\n' > ${ext}`]);
    run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', String(opts.days ?? 2), '-extfile', ext]);
    // `openssl x509` cannot date a certificate in the past; `openssl ca` can, with a minimal CA database
    writeFileSync(join(dir, 'ca.cnf'), '[ca]\ndefault_ca=t\n[t]\ndatabase=index.txt\nnew_certs_dir=.\nserial=serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n');
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'serial'), '01\n');
    run(['ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.pem', '-keyfile', 'ca.key', '-in', 'server.csr', '-out', 'expired.pem', '-startdate', '20200101000000Z', '-enddate', '20200102000000Z', '-extfile', ext, '-notext']);
    run(['req', '-x509', ...ec, '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', `/CN=${names[0]}`, '-addext', `subjectAltName=${san}`]);
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return {
      ca: read('ca.pem'),
      caFile: join(dir, 'ca.pem'),
      signed: { key: read('server.key'), cert: read('server.pem') },
      selfSigned: { key: read('self.key'), cert: read('self.pem') },
      expired: { key: read('server.key'), cert: read('expired.pem') },
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

export interface ProxySeen {
  /** `GET http://host/path` for a forwarded request, `CONNECT host:port` for a tunnel. */
  line: string;
  headers: IncomingHttpHeaders;
}

/**
 * An HTTP proxy on loopback that resolves every host to this machine: a plain request
 * (absolute URL) goes to `httpPort`, a CONNECT tunnel to `tlsPort`. It records each
 * request line with its headers, and every byte a client sent through a tunnel.
 * `credentials` ("user:password") makes it answer 407 to anyone who does not send them;
 * `tls` (a key and certificate) makes it an https proxy: the client speaks TLS to it.
 */
export async function startProxy(opts: { httpPort?: number; tlsPort?: number; credentials?: string; tls?: { key: string; cert: string } }) {
  const seen: ProxySeen[] = [];
  const tunnelled: Buffer[] = [];
  const authorized = (headers: IncomingHttpHeaders) =>
    !opts.credentials || headers['proxy-authorization'] === `Basic ${Buffer.from(opts.credentials).toString('base64')}`;
  const handler: RequestListener = (req, res) => {
    seen.push({ line: `${req.method} ${req.url}`, headers: req.headers });
    if (!authorized(req.headers)) return void res.writeHead(407, { 'proxy-authenticate': 'Basic realm="test"' }).end();
    const url = new URL(req.url ?? '/');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = request({ host: '127.0.0.1', port: opts.httpPort, method: req.method, path: `${url.pathname}${url.search}`, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  };
  const server = opts.tls ? (createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, handler) as unknown as Server) : createServer(handler);
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push({ line: `CONNECT ${req.url}`, headers: req.headers });
    if (!authorized(req.headers)) return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n');
    const upstream = connect(opts.tlsPort ?? 0, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      client.on('data', (d: Buffer) => tunnelled.push(d));
      client.pipe(upstream).pipe(client);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const sockets = new Set<Socket>();
  const l = await listening(server, sockets);
  return { ...l, url: `${opts.tls ? 'https' : 'http'}://127.0.0.1:${l.port}`, seen, tunnelled: () => Buffer.concat(tunnelled) };
}
