// Text people chose (a site's, a workspace's, an inviter's name; a page path) written into the mails and
// the small pages the server renders itself: escaped for HTML, or kept on one line for a subject.

/** For text and attribute values alike: quotes too, as attributes are double-quoted. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One line of plain text: control characters (line breaks most of all) become spaces. */
export function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
