// Matches `/v1/...` paths against the operations table; no framework, one regex per path.
import { OPERATIONS, type Operation } from '../api/operations.js';

interface CompiledRoute {
  op: Operation;
  regex: RegExp;
  params: string[];
}

const ROUTES: CompiledRoute[] = OPERATIONS.map((op) => {
  const params: string[] = [];
  const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    params.push(name);
    return '([^/]+)';
  });
  return { op, regex: new RegExp(`^${pattern}$`), params };
});

export type RouteMatch =
  | { kind: 'match'; op: Operation; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

/**
 * `path` is relative to /v1, without the query string. HEAD is answered as GET (RFC 9110);
 * node:http leaves the body out of the answer to a HEAD request, headers and all kept.
 */
export function matchRoute(method: string, path: string): RouteMatch {
  const allowed: string[] = [];
  const as = method === 'HEAD' ? 'GET' : method;
  for (const route of ROUTES) {
    const m = route.regex.exec(path);
    if (!m) continue;
    if (route.op.method !== as) {
      allowed.push(...(route.op.method === 'GET' ? ['GET', 'HEAD'] : [route.op.method]));
      continue;
    }
    const params: Record<string, string> = {};
    try {
      route.params.forEach((name, i) => {
        params[name] = decodeURIComponent(m[i + 1]);
      });
    } catch {
      return { kind: 'not_found' };
    }
    return { kind: 'match', op: route.op, params };
  }
  return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
}
