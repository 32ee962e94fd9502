// An input a command cannot use (a file, an option, a configured path): the command prints the message,
// which says what to do, and exits 2 as for any usage error, with the code its --json error carries.

export type InputErrorCode = 'INVALID_ARGUMENTS' | 'INVALID_CONFIG';

export class InputError extends Error {
  readonly exitCode = 2;
  constructor(
    readonly code: InputErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
