/**
 * Sessions (docs/sessions.md): a tenant's calls that send one X-Jube-Session keep their workspace.
 * This module is the one owner of what crosses a seam about them:
 * - the ExecuteEvent's `session` (the API function -> the execute function): which session, the
 *   store's call counter and the snapshot to restore;
 * - the execute function's payload: its ExecuteResponse plus the snapshot this call wrote;
 * - the ExecuteResponse's `session` (what the agent is told it has);
 * - the envelope's `session` (the runner -> the handler);
 * - what a snapshot may hold (SNAPSHOT_SEAM, read by its writer and reader in R).
 * The snapshot is a data-only JSON document the runner writes after every call and reads back in
 * a new process (r-image/runner/R/session-*.R), gzipped and base64-encoded in transit. It is
 * hostile input wherever it is read: the API function never parses it (it stores and passes the
 * bytes, bounded); the execute function, in the session's own environment, bounds its bytes before
 * it hands it to the runner, whose reader builds nothing but the kinds its writer writes.
 */
import { z } from 'zod';

/** The snapshot's format version; a snapshot of another version is refused (the call starts new). */
export const SNAPSHOT_VERSION = 1;

/** The attributes a data node may carry (a data frame's, factor's, date's, matrix's, table's). */
export const SNAPSHOT_ATTRIBUTES = [
  'names', 'dim', 'dimnames', 'class', 'levels', 'tzone', 'units', 'comment', 'row.names', 'balanced', 'tsp', 'sorted',
] as const;

/**
 * Attributes the writer leaves out and the object is still whole: data.table's column pointer
 * (reallocated on restore) and its secondary indices (rebuilt when used), readr's column
 * specification and parsing problems (what read_csv() saw, not the data). Any other attribute not
 * in SNAPSHOT_ATTRIBUTES drops the object, named: it is never kept without it.
 */
export const SNAPSHOT_SKIPPED_ATTRIBUTES = ['.internal.selfref', 'index', 'spec', 'problems'] as const;

/** The vector types a snapshot holds: numbers as exact little-endian bytes (base64), strings as JSON. */
export const SNAPSHOT_TYPES = ['logical', 'integer', 'double', 'character'] as const;

/** Nodes nest at most this deep (a list in a list ..., attributes included). */
export const SNAPSHOT_MAX_DEPTH = 32;
/** The JSON nesting that allows: each node level is at most three JSON levels (node, attributes, value), plus the document's own. */
export const SNAPSHOT_MAX_JSON_DEPTH = 3 * SNAPSHOT_MAX_DEPTH + 6;

/** The answer lists at most this many of the session's objects (the rest are counted). */
export const SESSION_OBJECTS_LISTED = 50;

/** The runner's side of the seam (seam.json `session`), so both read one list. */
export const SNAPSHOT_SEAM = {
  version: SNAPSHOT_VERSION,
  attributes: SNAPSHOT_ATTRIBUTES,
  skippedAttributes: SNAPSHOT_SKIPPED_ATTRIBUTES,
  types: SNAPSHOT_TYPES,
  maxDepth: SNAPSHOT_MAX_DEPTH,
  listed: SESSION_OBJECTS_LISTED,
} as const;

/** A session id: [a-z0-9-], as X-Jube-Session is (functions/api/http/session.ts). */
const SessionIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/);

/** The snapshot in transit: base64 of its gzip. */
const SnapshotTransitSchema = z.string().max(8 * 1024 * 1024).regex(/^[A-Za-z0-9+/]*={0,2}$/);

/**
 * The ExecuteEvent's `session`. `call`: the store's counter, the number of the last call whose
 * snapshot it holds (0: none, and no `snapshot`). This call writes call + 1. `expired`: the store
 * dropped the session after it sat idle past JUBE_R_SESSION_IDLE_SECONDS.
 */
export const ExecuteSessionSchema = z.strictObject({
  id: SessionIdSchema,
  call: z.number().int().min(0).max(2 ** 31 - 2),
  snapshot: SnapshotTransitSchema.optional(),
  expired: z.boolean().optional(),
});
export type ExecuteSession = z.infer<typeof ExecuteSessionSchema>;

export const SESSION_STATES = ['new', 'restored'] as const;
export type SessionState = (typeof SESSION_STATES)[number];

const SessionObjectSchema = z.strictObject({ name: z.string().max(10_000), class: z.string().max(4096), bytes: z.number().int().min(0) });
const DroppedObjectSchema = z.strictObject({ name: z.string().max(10_000), class: z.string().max(4096), why: z.string().max(4096) });

/**
 * The response's `session`: which call of which session this was (`call`: the store's counter
 * after it, so the number of the last call whose workspace the next one gets), whether the
 * workspace was built again from the session's snapshot (`restored`) or started empty (`new`), and
 * what it holds now (at most SESSION_OBJECTS_LISTED, the rest counted). Every call restores: no R
 * process outlives its call (a live session process, `continued`, is not built).
 */
export const ResponseSessionSchema = z.strictObject({
  id: z.string(),
  call: z.number().int().min(0),
  state: z.enum(SESSION_STATES),
  objects: z.array(SessionObjectSchema).max(SESSION_OBJECTS_LISTED),
  objectsOmitted: z.number().int().min(0).optional(),
  /** Objects the snapshot leaves out (kept only while the session's process lives), with why. */
  dropped: z.array(DroppedObjectSchema).optional(),
});
export type ResponseSession = z.infer<typeof ResponseSessionSchema>;

/** The execute function's payload beside the response: the snapshot this call wrote (base64 of its gzip). */
export const SessionPayloadSchema = z.strictObject({ sessionSnapshot: SnapshotTransitSchema.optional() });

/** The envelope's `session` (r-image/runner/R/session.R session_end), bounded as every envelope field. */
export const EnvelopeSessionSchema = z.strictObject({
  restored: z.boolean(),
  objects: z.array(SessionObjectSchema).max(SESSION_OBJECTS_LISTED),
  objectsOmitted: z.number().int().min(0),
  saved: z.boolean(),
  dropped: z.array(DroppedObjectSchema).max(10_000).optional(),
});
export type EnvelopeSession = z.infer<typeof EnvelopeSessionSchema>;

/** input.json's `session`: this call's number, a staged snapshot to restore, and the snapshot's caps (how many objects the answer lists is the seam's `session.listed`). */
export const RunnerSessionSchema = z.strictObject({
  call: z.number().int().min(1).max(2 ** 31 - 1),
  restore: z.boolean(),
  maxBytes: z.number().int().min(1),
  maxObjects: z.number().int().min(1),
});
export type RunnerSession = z.infer<typeof RunnerSessionSchema>;
