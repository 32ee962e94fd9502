// The signed-in person's own account: the name others see beside their email (members, invitations),
// and signing out on every device at once. Changing the password is links.ts's changePassword.
import { invalidField } from '../../domain/manage-errors.js';
import type { User } from '../../ports/people-store.js';
import type { PeopleDeps } from './people-deps.js';

/** The longest name a person may give themselves. */
export const MAX_PERSON_NAME = 100;

// C0 and C1 controls (a line break, a tab, DEL) and the Unicode line and paragraph separators.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

/** A name as stored: trimmed, null for nothing; INVALID_PARAMS naming `name` for a long one or one with control characters. */
export function personName(input: string | null): string | null {
  const name = (input ?? '').trim();
  if (name === '') return null;
  if (name.length > MAX_PERSON_NAME) throw invalidField('name', `name must be at most ${MAX_PERSON_NAME} characters.`);
  if (CONTROL.test(name)) throw invalidField('name', 'name must be one line, without control characters (line breaks, tabs).');
  return name;
}

/** Sets or clears the person's name; answers the user as it now is. */
export async function renameSelf(deps: Pick<PeopleDeps, 'people'>, user: User, name: string | null): Promise<User> {
  return deps.people.setUserName(user.id, personName(name));
}

/** Ends every session of the person, the one asking included; answers how many ended. */
export async function signOutEverywhere(deps: Pick<PeopleDeps, 'people'>, user: User): Promise<number> {
  return deps.people.deleteUserSessions(user.id);
}
