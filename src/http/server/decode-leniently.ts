// Percent-decoding that never throws: a URL as sent may hold a malformed sequence (`%zz`, a lone byte of
// a UTF-8 character), and code that only reads the URL (to redact it, to decide on headers) must still
// see what the router would see in the rest of it. Each run of well-formed sequences is decoded; a run
// that is not valid UTF-8 has its ASCII bytes decoded and the others left as sent.
const RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const ASCII = /%([0-7][0-9A-Fa-f])/g;

export function decodeLeniently(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(RUN, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run.replace(ASCII, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
  });
}
