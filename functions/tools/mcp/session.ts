/**
 * The MCP session -> X-Jube-Session mapping. One MCP session (a Streamable HTTP session id, or one
 * stdio server process) is one jube-r session: its calls share a warm execution environment where
 * the deployment isolates by session, and no two MCP sessions ever share one. Every id is checked
 * against the header's own rule (the API's), so a malformed one fails here, not as a 400 later.
 */
import { randomUUID } from 'node:crypto';
import { sessionOf, SESSION_HEADER } from '../../api/create-api.ts';

/** A fresh session id: a random UUID is lower-case hex and "-", within the header's rule. */
export function newSessionId(): string {
  return checkedSessionId(randomUUID());
}

/** `id` if it is a valid X-Jube-Session value; throws the API's InvalidSessionError otherwise. */
export function checkedSessionId(id: string): string {
  const checked = sessionOf({ [SESSION_HEADER]: id });
  if (checked === undefined) throw new TypeError('no session id');
  return checked;
}
