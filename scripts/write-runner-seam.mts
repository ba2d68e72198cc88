// Writes r-image/runner/seam.json from layers/contract/runner.ts, the seam's one source:
//   node --import tsx scripts/write-runner-seam.mts
// test/unit/contract/runner.test.ts fails while the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runnerSeamJson } from '../layers/contract/runner.ts';

writeFileSync(fileURLToPath(new URL('../r-image/runner/seam.json', import.meta.url)), runnerSeamJson());
