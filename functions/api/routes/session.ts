/** DELETE /t/{tenant}/session: the session X-Jube-Session names ends; its snapshot is deleted and its next call starts new. */
import type { SessionEndResponse } from '../../../layers/contract/api.ts';
import { InvalidSessionError } from '../http/errors.ts';
import type { ApiDeps } from './deps.ts';

export async function endSession(deps: ApiDeps, tenant: string, session: string | undefined): Promise<SessionEndResponse> {
  if (session === undefined) throw new InvalidSessionError('DELETE /t/{tenant}/session ends the session the header X-Jube-Session names; send that header');
  return { session, deleted: await (await deps.sessions()).delete(tenant, session) };
}
