// The journal's identity of an API address (issue 29): one canonical spelling per API.
import { describe, expect, it } from 'vitest';
import { canonicalBaseUrl } from '../../src/api/base-url.js';
import { commandId, credentialFingerprint } from '../../src/store/journal.js';

describe('canonicalBaseUrl', () => {
  it('lower-cases scheme and host, drops the default port and trailing slashes, resolves dot-segments', () => {
    for (const spelling of [
      'https://api.example.test/v1',
      'HTTPS://API.Example.TEST/v1',
      'https://api.example.test:443/v1/',
      'https://api.example.test/v1///',
      'https://api.example.test/x/../v1',
      'https://api.example.test/./v1/.',
      'https://api.example.test/x/%2e%2E/v1',
      'https://api.example.test./v1',
      ' https://api.example.test/v1 ',
    ]) {
      expect(canonicalBaseUrl(spelling), spelling).toBe('https://api.example.test/v1');
    }
  });

  it('writes every loopback spelling of one port as localhost, and keeps ports and paths apart', () => {
    for (const spelling of ['http://127.0.0.1:4010/v1', 'http://127.1:4010/v1', 'http://localhost:4010/v1', 'http://LOCALHOST:4010/v1/', 'http://[::1]:4010/v1', 'http://127.0.0.2:4010/v1', 'http://[::ffff:127.0.0.1]:4010/v1', 'HTTP://localhost.:4010/v1']) {
      expect(canonicalBaseUrl(spelling), spelling).toBe('http://localhost:4010/v1');
    }
    expect(canonicalBaseUrl('http://localhost:80/v1')).toBe('http://localhost/v1');
    expect(canonicalBaseUrl('http://localhost:4011/v1')).toBe('http://localhost:4011/v1');
    expect(canonicalBaseUrl('https://localhost:4010/v1')).toBe('https://localhost:4010/v1');
    expect(canonicalBaseUrl('http://localhost:4010/v2')).toBe('http://localhost:4010/v2');
    expect(canonicalBaseUrl('http://128.0.0.1:4010/v1')).toBe('http://128.0.0.1:4010/v1');
    expect(canonicalBaseUrl('https://api.example.test:8443/V1')).toBe('https://api.example.test:8443/V1');
  });

  it('leaves a text that is not a URL as it was, without trailing slashes', () => {
    expect(canonicalBaseUrl('not a url//')).toBe('not a url');
  });

  it('gives a command one journal id under every spelling', () => {
    const id = (baseUrl: string) => commandId({ baseUrl, credential: credentialFingerprint('svc_x_0123456789'), operation: 'cancelReservation', request: { uuid: 'u' } });
    expect(new Set(['http://127.0.0.1:9/v1', 'HTTP://127.1:9/v1/', 'http://LOCALHOST:9/x/../v1', 'http://[::1]:9/v1'].map(id)).size).toBe(1);
    expect(id('http://127.0.0.1:10/v1')).not.toBe(id('http://127.0.0.1:9/v1'));
  });
});
