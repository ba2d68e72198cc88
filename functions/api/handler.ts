/** The Lambda entry point (infra bundles it): the API, created and its configuration read when this module loads. */
import { createApi } from './create-api.ts';

export const handler = createApi().handler;
