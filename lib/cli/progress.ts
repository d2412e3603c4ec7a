// A command's progress line on stderr: a bar redrawn in place on a terminal; elsewhere (a log
// file, a pipe) a plain line at each tenth of the way, so a log gets ten lines, not thousands.

const BAR_WIDTH = 30;
/** The fastest a terminal line is redrawn: faster only costs writes nobody can read. */
const REDRAW_MS = 100;

export class Progress {
  private shownTenth = -1;
  private shownLine = '';
  private lastDraw = 0;
  constructor(private readonly command: string) {}

  /** Shows `done` of `total` as a bar followed by `detail`; `final` always draws, and ends the line. */
  update(done: number, total: number, detail: string, final = false): void {
    const tty = process.stderr.isTTY;
    const now = Date.now();
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const tenth = Math.floor(share * 10);
    if (!final && (tty ? now - this.lastDraw < REDRAW_MS : tenth === this.shownTenth)) return;
    const filled = Math.round(share * BAR_WIDTH);
    const line = `${this.command} [${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${detail}`;
    if (!tty && line === this.shownLine) return;
    this.lastDraw = now;
    this.shownTenth = tenth;
    this.shownLine = line;
    // On a terminal, \r returns to the line's start and ESC[K clears what a longer line left.
    process.stderr.write(tty ? `\r${line}\x1b[K${final ? '\n' : ''}` : `${line}\n`);
  }
}
