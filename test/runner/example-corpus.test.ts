/**
 * The installed Rd examples of the packages in packages.R (test/bench/example-corpus.ts: the
 * bench's default sample, at most 12 per package evenly spaced over the topics sorted by name,
 * each script starting with library(<its package>)): /validate and the runner's check in R refuse
 * nothing the tables do not mean, and accept at least 99% of them (test/runner/corpus-verdicts.ts).
 * Validate-only; `npm run bench -- examples` also runs them (plain R, then the execute handler).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { collectExamples } from '../bench/example-corpus.ts';
import { describeCorpus } from './corpus-verdicts.ts';

const scratch = mkdtempSync(join(tmpdir(), 'jube-example-corpus-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const corpus = collectExamples(scratch, { packages: 0, perPackage: 12, mode: 'spread' });
await describeCorpus(
  'the Rd-examples corpus',
  scratch,
  corpus.scripts.map((e) => ({ name: `${e.package}/${e.topic}`, file: e.file })),
  loadManifest().declared.length,
);
