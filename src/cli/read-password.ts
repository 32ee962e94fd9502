// A password for a command (`share create --password`), never from its arguments (they land in shell
// history and process lists): typed at a terminal without echo, twice, or the first line of standard
// input when it is not a terminal (scripts: `printf '%s\n' "$PW" | footfall share create ...`).
import { CliError } from './output.js';

export async function readPassword(what: string): Promise<string> {
  const input = process.stdin;
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) text += String(chunk);
    const line = text.split(/\r?\n/)[0] ?? '';
    if (line === '') throw new CliError(`${what}: standard input holds no password (give it on its first line)`);
    return line;
  }
  const first = await typed(`${what}: `);
  const again = await typed('Again: ');
  if (first !== again) throw new CliError(`${what}: the two entries differ`);
  return first;
}

/** One line typed at the terminal, not echoed. */
function typed(prompt: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let line = '';
    const done = (err?: Error) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(line);
    };
    const onData = (s: string) => {
      for (const ch of s) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new CliError('cancelled'));
        if (ch === '\u007f' || ch === '\b') line = line.slice(0, -1);
        else line += ch;
      }
    };
    input.on('data', onData);
  });
}
