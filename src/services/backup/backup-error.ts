// A backup or a restore refused or stopped, with what to do: the command prints it as it is (exit 1).
export class BackupError extends Error {
  constructor(
    readonly code:
      | 'OUT_NOT_EMPTY'
      | 'BACKUP_INCONSISTENT'
      | 'BACKUP_NOT_FOUND'
      | 'BACKUP_INCOMPLETE'
      | 'BACKUP_INVALID'
      | 'BACKUP_CORRUPT'
      | 'BACKUP_FROM_NEWER_VERSION'
      | 'TARGET_NOT_EMPTY',
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'BackupError';
  }
}
