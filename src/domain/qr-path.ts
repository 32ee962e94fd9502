// A QR code as one SVG path, drawn by the server: the page draws <svg><path d=…/></svg> itself, so the
// browser bundle carries no QR encoder and the page's Content-Security-Policy (img-src 'self', no data:
// URIs) needs no exception. qrcode-generator does the encoding (MIT, no dependencies).
import qrcode from 'qrcode-generator';

/** The quiet zone every reader needs around the code, in modules. */
const QUIET = 4;

export interface QrPath {
  /** the side of the square, in modules, quiet zone included (the SVG's viewBox is 0 0 size size) */
  size: number;
  /** one path of the dark modules, a rectangle per run of dark modules in a row */
  path: string;
}

/** The QR code of `text` (ASCII, as an otpauth:// URI is), error correction M. */
export function qrPath(text: string): QrPath {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  let path = '';
  for (let row = 0; row < n; row++) {
    for (let col = 0; col < n; col++) {
      if (!qr.isDark(row, col)) continue;
      const start = col;
      while (col + 1 < n && qr.isDark(row, col + 1)) col++;
      path += `M${start + QUIET} ${row + QUIET}h${col - start + 1}v1h-${col - start + 1}z`;
    }
  }
  return { size: n + 2 * QUIET, path };
}
