// src/store/lazy-crypto.ts loads node:crypto on first use; the journal's identities and
// fingerprints must stay what they were when node:crypto was imported directly (an entry
// written by an older carrental is found by them). Known-answer vectors: FIPS 180-2 and
// RFC 4231 test case 2.
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex, randomUUID, sha256Hex } from '../../src/store/lazy-crypto.js';

describe('lazy-crypto', () => {
  it('sha256Hex and hmacSha256Hex give the standard answers, UTF-8 for text', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    // é as UTF-8 (c3 a9), not Latin-1 (e9: de2e331d…)
    expect(sha256Hex('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });

  it('randomUUID draws a fresh version-4 UUID each time', () => {
    const a = randomUUID();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(randomUUID()).not.toBe(a);
  });
});
