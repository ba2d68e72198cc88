/**
 * The Lambda entry point (the image's CMD): the handler, created and its configuration read when
 * this module loads. Its creation is awaited: the warm start's internal extension must register
 * before the runtime client's first Next, and the client awaits this module's evaluation before it
 * asks (functions/execute/warm/lambda-extension.ts).
 */
import { createInitializedExecuteHandler } from './create-handler.ts';

export const handler = await createInitializedExecuteHandler();
