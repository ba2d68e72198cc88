/**
 * Where the execute handler's own files are: beside the bundled handler (the image stages them
 * into /app) or, when it runs from the repository, at their place in the source tree.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `besideBundle` relative to this module's directory if it exists there, else `inRepository` relative to the repository root. */
export function handlerFile(besideBundle: string, inRepository: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const beside = join(here, besideBundle);
  return existsSync(beside) ? beside : join(here, '..', '..', inRepository);
}
