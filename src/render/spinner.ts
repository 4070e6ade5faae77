// A spinner on stderr while a request is slower than half a second, so a slow API does not
// look like a hung command. Terminal only (Output.progress draws nothing elsewhere), one
// for all the requests in flight, cleared as soon as the last one ends (and before any
// output, as every progress line is); it never draws over another progress line (retries,
// `cars --all`).
import type { Output } from './output.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
export const SPINNER_DELAY_MS = 500;
const INTERVAL_MS = 100;

export class Spinner {
  private inFlight = 0;
  private label = '';
  private frame = 0;
  private drawn: string | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: Output,
    private readonly delayMs = SPINNER_DELAY_MS,
  ) {}

  /** A request started; call the returned function when it ends (however it ends). */
  start(label: string): () => void {
    this.inFlight += 1;
    this.label = label;
    if (this.inFlight === 1) {
      this.timer = setTimeout(() => {
        this.draw();
        this.timer = setInterval(() => this.draw(), INTERVAL_MS);
        this.timer.unref?.();
      }, this.delayMs);
      this.timer.unref?.();
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight -= 1;
      if (this.inFlight === 0) this.stop();
    };
  }

  private draw(): void {
    const showing = this.out.progressLine;
    // another progress line (a retry, a page count) says more than a spinner
    if (showing !== undefined && showing !== this.drawn) return;
    this.drawn = `${FRAMES[this.frame++ % FRAMES.length]} waiting for ${this.label}`;
    this.out.progress(this.drawn);
  }

  private stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.timer);
    this.timer = undefined;
    if (this.drawn !== undefined && this.out.progressLine === this.drawn) this.out.clearProgress();
    this.drawn = undefined;
  }
}
