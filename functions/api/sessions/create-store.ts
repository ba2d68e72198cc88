/** The deployment's session store: its bucket when one is configured, else the local directory (each loaded only where used). */
import type { ServiceConfig } from '../../../layers/config/service-config.ts';
import type { SessionStore } from './store.ts';

export async function createSessionStore(config: Pick<ServiceConfig['sessions'], 'dir' | 'bucket'>): Promise<SessionStore> {
  if (config.bucket !== undefined) return (await import('./s3-store.ts')).createS3SessionStore(config.bucket);
  return (await import('./local-store.ts')).createLocalSessionStore(config.dir);
}
