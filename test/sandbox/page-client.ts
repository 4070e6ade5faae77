// A minimal browser for the sandbox's customer pages over real HTTP: one cookie jar,
// redirects followed by hand (so tests see each hop), forms posted urlencoded.
export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
  /** Set on a 3xx. */
  location: string | null;
}

export class PageClient {
  private cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  private absolute(path: string): string {
    return path.startsWith('http') ? path : this.origin + path;
  }

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, opts: { form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<PageResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookies.size) headers.Cookie = this.cookieHeader;
    let body: string | undefined;
    if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(this.absolute(path), { method, headers, body, redirect: 'manual' });
    this.remember(res);
    return { status: res.status, headers: res.headers, html: await res.text(), location: res.headers.get('location') };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.request('GET', path, { headers });
  }

  post(path: string, form: Record<string, string>, headers?: Record<string, string>) {
    return this.request('POST', path, { form, headers });
  }

  /** GET, then follow redirects (at most 5) as a browser would. */
  async open(path: string): Promise<PageResponse & { url: string }> {
    let url = path;
    for (let i = 0; i < 5; i++) {
      const res = await this.get(url);
      if (res.status < 300 || res.status >= 400 || !res.location) return { ...res, url };
      url = res.location;
    }
    throw new Error(`too many redirects from ${path}`);
  }

  /** POST, then follow the 303 with GETs. */
  async submit(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<PageResponse & { url: string }> {
    const res = await this.post(path, form, headers);
    if (res.status === 303 && res.location) return this.open(res.location);
    return { ...res, url: path };
  }

  async login(handle: string, next = '/app/'): Promise<void> {
    const res = await this.post('/app/login', { customer: handle, next });
    if (res.status !== 303) throw new Error(`login failed: ${res.status}`);
  }
}

/** The value of a hidden (or any) input of the page, by name. */
export function field(html: string, name: string): string | null {
  const m = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  return m ? m[1].replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))) : null;
}

/** Every field of the first form posting (method post) to `action`. */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`method="post" action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const out: Record<string, string> = {};
  for (const m of form.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) out[m[1]] = m[2].replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
  return out;
}

/** The text of the element with that data-testid (its markup stripped). */
export function testId(html: string, id: string): string | null {
  const m = new RegExp(`<(\\w+)[^>]*data-testid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  return m ? m[2].replace(/<[^>]+>/g, '').replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))).trim() : null;
}

export const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
