// Memory-hard password hashing. The hash string carries its own algorithm and parameters, so raising
// them later leaves older hashes verifiable.
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password or a malformed hash; never throws for either (a hasher may refuse with 429 RATE_LIMITED when too many wait). */
  verify(hash: string, password: string): Promise<boolean>;
}
