// The command the journal tests begin: a cancel of reservation u-1 by the demo customer.
// Taking the fingerprint function lets a file that mocks node:fs import the journal after
// its mocks and still share this.
export const cancelOfU1 = (credentialFingerprint: (key: string) => string) => ({
  profile: 'default',
  baseUrl: 'https://api.example.test/v1',
  credential: credentialFingerprint('svc_dana_booking_write_key_0001'),
  operation: 'cancelReservation' as const,
  target: 'u-1',
  request: { uuid: 'u-1' },
});
