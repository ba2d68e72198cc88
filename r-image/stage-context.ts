/**
 * Stages the r-image build context: the Dockerfile sits plainly at r-image/ (so `sam build` and
 * CDK's image asset find it), and everything else the image needs from the repository (bundled
 * execute handler, rules, grammar, packages.R, runner) is copied into r-image/staged/.
 * PLACEHOLDER until the image issue lands; the signature is the contract.
 */
import { fileURLToPath } from 'node:url';

/** Returns the asset directory (r-image/) after staging. */
export function stageImageContext(): string {
  return fileURLToPath(new URL('.', import.meta.url));
}
