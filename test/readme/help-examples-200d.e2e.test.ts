// Every command's --help examples on a fresh sandbox, its clock today + 200 days (how they are
// run: describeHelpExamples in ./examples.ts). One file per clock, so the three run at once.
import { CLOCK_SHIFTS, describeHelpExamples } from './examples.js';

describeHelpExamples(CLOCK_SHIFTS[1]);
