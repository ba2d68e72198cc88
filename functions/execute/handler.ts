/** The Lambda entry point (the image's CMD): the handler, created and its configuration read when this module loads. */
import { createExecuteHandler } from './create-handler.ts';

export const handler = createExecuteHandler();
// The warm start's internal extension must register before the runtime client's first Next, and
// the client awaits this module's evaluation before asking (functions/execute/warm/lambda-extension.ts).
await handler.initialized;
