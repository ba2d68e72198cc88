/**
 * The installed vignettes' code of the packages in packages.R (test/bench/vignette-corpus.ts):
 * /validate and the runner's check in R refuse nothing the tables do not mean, and accept at least
 * 99% of them (test/runner/corpus-verdicts.ts). Validate-only; `npm run bench -- vignettes` also
 * runs the corpus (plain R, then the execute handler).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { collectVignettes } from '../bench/vignette-corpus.ts';
import { describeCorpus } from './corpus-verdicts.ts';

const scratch = mkdtempSync(join(tmpdir(), 'jube-vignette-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const corpus = collectVignettes(scratch);
await describeCorpus(
  'the vignette corpus',
  scratch,
  corpus.scripts.map((v) => ({ name: `${v.package}/${v.vignette}`, file: v.file })),
  60,
);
