/** The Lambda entry point (the image's CMD): the handler, created and its configuration read when this module loads. */
import { createExecuteHandler } from './create-handler.ts';

export const handler = createExecuteHandler();
