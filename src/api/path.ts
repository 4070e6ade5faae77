// A value put in a URL path (a car alias, a uuid) is one segment and can never change the
// route: `car ..` must not become `GET /v1/`, nor `car .` `GET /v1/cars/`. Both URL
// parsers resolve `.` and `..` segments (and WHATWG also `%2e` spellings of them), so
// those are refused, and everything else is percent-encoded as one segment.
import { usageError } from '../errors.js';

/** `.` or `..`, also percent-encoded (`%2e`, `.%2E`): a segment a URL parser removes. */
export function isDotSegment(value: string): boolean {
  return /^(?:\.|%2e){1,2}$/i.test(value);
}

/** The value as one path segment; a usage error for an empty or dot segment. */
export function pathSegment(value: string, what = 'a path parameter'): string {
  if (value === '' || isDotSegment(value)) throw usageError(`${what} cannot be "${value}": it would change the request's path`);
  return encodeURIComponent(value);
}
