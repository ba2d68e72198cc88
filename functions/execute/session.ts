/**
 * A session's call on the execute side (docs/sessions.md): the snapshot the event carries is staged
 * for the runner, and the one the runner wrote goes back beside the response. Both are hostile
 * bytes: the event's was written by an earlier call of this session (whose script may have shaped
 * it), the runner's by this one. Here they are only bounded (gunzip stops at the session's byte
 * cap, the nesting is counted in one pass) and never parsed; the runner's reader, under the
 * capsule, builds nothing but data.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ServiceConfig } from '../../layers/config/service-config.ts';
import type { ExecuteResponse } from '../../layers/contract/execute.ts';
import type { RunnerEnvelope } from '../../layers/contract/runner.ts';
import { SESSION_OBJECTS_LISTED, SNAPSHOT_MAX_JSON_DEPTH, type ExecuteSession, type ResponseSession, type RunnerSession } from '../../layers/contract/session.ts';
import { jsonDepth } from './output/json-bounds.ts';

/** What the runner gets for a session's call: its input.json `session`, and the snapshot to stage. */
export interface StagedSession {
  readonly input: RunnerSession;
  readonly snapshot: Buffer | undefined;
  /** Said before the run's own notes: an expired session, a snapshot refused before R saw it. */
  readonly notes: readonly string[];
}

type SessionLimits = ServiceConfig['sessions'];

const idleNote = (limits: SessionLimits) =>
  `this session had been idle longer than ${limits.idleSeconds} s (GET /health?detail=full limits.sessionIdleSeconds), so it starts with an empty workspace`;

export function stageSession(session: ExecuteSession, limits: SessionLimits): StagedSession {
  const notes = session.expired ? [idleNote(limits)] : [];
  let snapshot: Buffer | undefined;
  if (session.snapshot !== undefined) {
    try {
      // maxOutputLength: a gzip that inflates past the cap stops here, whatever it claims.
      snapshot = gunzipSync(Buffer.from(session.snapshot, 'base64'), { maxOutputLength: limits.maxBytes });
    } catch {
      notes.push(`the session's snapshot is not a gzip of at most ${limits.maxBytes} bytes (GET /health?detail=full limits.maxSessionBytes); this call starts with an empty workspace`);
    }
    // Nesting bounded before R's JSON reader recurses into it (one linear pass, no parse).
    if (snapshot !== undefined && jsonDepth(snapshot.toString('utf8'), SNAPSHOT_MAX_JSON_DEPTH) > SNAPSHOT_MAX_JSON_DEPTH) {
      snapshot = undefined;
      notes.push(`the session's snapshot nests deeper than ${SNAPSHOT_MAX_JSON_DEPTH} levels; this call starts with an empty workspace`);
    }
  }
  return {
    input: {
      call: session.call + 1,
      restore: snapshot !== undefined,
      maxBytes: limits.maxBytes,
      maxObjects: limits.maxObjects,
    },
    snapshot,
    notes,
  };
}

/** The runner's snapshot for the payload: base64 of its gzip. undefined: none written. */
export function snapshotForTransit(written: Buffer | undefined): string | undefined {
  // Level 1: most of the size for a fraction of the time (a snapshot is mostly base64 of numbers).
  return written === undefined || written.length === 0 ? undefined : gzipSync(written, { level: 1 }).toString('base64');
}

/**
 * The response's `session`. `saved`: the runner wrote a snapshot and it came back (the store then
 * counts this call); otherwise the session's next call gets the workspace of the call before.
 */
export function responseSession(session: ExecuteSession, envelope: RunnerEnvelope | undefined, saved: boolean): ResponseSession {
  const reported = envelope?.session;
  const state = reported?.restored ? 'restored' : 'new';
  return {
    id: session.id,
    call: saved ? session.call + 1 : session.call,
    state,
    objects: reported?.objects ?? [],
    ...(reported && reported.objectsOmitted > 0 ? { objectsOmitted: reported.objectsOmitted } : {}),
    ...(reported?.dropped && reported.dropped.length > 0 ? { dropped: reported.dropped.slice(0, SESSION_OBJECTS_LISTED) } : {}),
  };
}

/** The note when this call's workspace was not kept (the run did not finish, or wrote too much). */
export function notSavedNote(session: ExecuteSession, why: string): string {
  return session.call > 0
    ? `this call's workspace was not kept (${why}); the session's next call gets the workspace of call ${session.call}`
    : `this call's workspace was not kept (${why}); the session's next call starts with an empty workspace`;
}

/** The response with its session, its notes within the cap. */
export function withSession(response: ExecuteResponse, session: ResponseSession, extraNotes: readonly string[], maxNotes: number): ExecuteResponse {
  const notes = [...(response.notes ?? []), ...extraNotes].slice(0, maxNotes);
  return { ...response, session, ...(notes.length > 0 ? { notes } : {}) };
}
