// Every example of the README, of docs/ and of every command's --help, each session on a
// fresh sandbox whose clock is today (how they are run, and the conventions for
// their authors: ./examples.ts). One file per clock, so that the clocks run beside each other.
import { CLOCK_SHIFTS, describeExamplesAt } from './examples.js';

await describeExamplesAt(CLOCK_SHIFTS[0]);
