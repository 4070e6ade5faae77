// The examples of docs/scripting.md, in a file of their own so that they run beside the other
// pages' (see PAGES_OF_THEIR_OWN in ./examples.ts, which says how they are run).
import { describeExamples } from './examples.js';

describeExamples(['docs/scripting.md']);
