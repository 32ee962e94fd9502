// A one-line progress bar for long imports on a terminal (docs/product.md §2): percent and ETA from
// the file size when known, rate in lines per second always. Redrawn at most 10 times a second.

export interface ProgressBar {
  update(p: { bytes?: number; lines?: number; rejected?: number }): void;
  done(message?: string): void;
}

export const noProgress: ProgressBar = { update: () => undefined, done: () => undefined };

export function createProgressBar(
  out: NodeJS.WriteStream,
  totalBytes: number | null,
  label = 'importing',
  now: () => number = Date.now,
): ProgressBar {
  const start = now();
  let last = 0;
  let bytes = 0;
  let lines = 0;
  let rejected = 0;
  const draw = () => {
    const secs = Math.max((now() - start) / 1000, 0.001);
    const rate = lines / secs;
    let text = `${label} ${fmtCount(lines)} lines, ${fmtCount(rate)}/s`;
    if (rejected) text += `, ${fmtCount(rejected)} rejected`;
    if (totalBytes && totalBytes > 0) {
      const frac = Math.min(bytes / totalBytes, 1);
      const width = 24;
      const fill = Math.round(frac * width);
      const eta = frac > 0 ? (secs / frac) * (1 - frac) : NaN;
      text =
        `[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${(frac * 100).toFixed(0).padStart(3)}% ${text}` +
        (Number.isFinite(eta) ? `, ETA ${fmtDuration(eta)}` : '');
    }
    out.write(`\r${text}\x1b[K`);
  };
  return {
    update(p) {
      if (p.bytes !== undefined) bytes = p.bytes;
      if (p.lines !== undefined) lines = p.lines;
      if (p.rejected !== undefined) rejected = p.rejected;
      const t = now();
      if (t - last >= 100) {
        last = t;
        draw();
      }
    },
    done(message) {
      draw();
      out.write(message ? `\n${message}\n` : '\n');
    },
  };
}

function fmtCount(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  return String(Math.round(n));
}

function fmtDuration(secs: number): string {
  const s = Math.round(secs);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}
