// What the journal records as a write's API, in a module of its own: the CLI's rerun lines
// (src/cmdkit/rerun.ts) read it without loading the writer and the transport behind it.

/** What the journal records as the API: the embedded sandbox gets a fresh port every run, so it is just "sandbox". */
export const SANDBOX_JOURNAL_URL = 'sandbox';
