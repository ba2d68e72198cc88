/**
 * `pkg:::name` of a listed internal function (script-rules.json packages.internalFunctions: glmnet's
 * fid and cox.path, whose help pages call them so) through the real execute handler: /validate and
 * the runtime's re-validation give the same verdict, the listed ones run, and every other `:::` is
 * refused, statically and by the runner's `:::` when it is reached by name. The R side's own cases
 * are test/runner/r/test-internal-functions.R, test-revalidate.R and test-mask.R.
 */
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../layers/packages/manifest.ts';
import { loadRules } from '../../layers/rules/rules.ts';
import { manifestPackages } from '../../layers/validator/package-lists.ts';
import { loadValidator } from '../../layers/validator/validator.ts';
import { acceptEverything, harness } from './helpers.ts';

const validator = loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()) });
const runtime = harness({ validator: acceptEverything });
const HINT = "Of glmnet's internal functions, a script may use only fid, cox.path, as glmnet:::name.";

const verdicts = async (script: string) => {
  const statically = (await (await validator)(script)).errors;
  const response = await runtime.run(script);
  const atRuntime = response.status === 'rejected' ? (response.validation?.errors ?? []) : [];
  const codes = (errors: typeof statically) => errors.map((e) => `${e.code}:${e.symbol ?? ''}`);
  return { statically: codes(statically), staticMessages: statically.map((e) => e.message), atRuntime: codes(atRuntime), response };
};

describe('listed internal functions: accepted by /validate and the runtime alike, and they run', () => {
  it('glmnet:::fid() as its help page calls it', async () => {
    const script = 'library(glmnet); set.seed(1); x <- matrix(rnorm(200), 40); print(glmnet:::fid(c(1, 4, 5, 6), 1:5))';
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response.status, response.error ?? '').toBe('ok');
    expect(response.consoleOutput).toContain('$index_first');
  }, 60_000);

  it('glmnet:::cox.path() on (start, stop] data, as its help page calls it', async () => {
    const script = [
      'set.seed(2); x <- matrix(rnorm(100 * 5), 100)',
      'start <- runif(100, 0, 5); y <- survival::Surv(start, start + runif(100, 0.1, 3), rbinom(100, 1, 0.3))',
      'fit <- glmnet:::cox.path(x, y)',
      'class(fit)',
    ].join('\n');
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response, response.error ?? '').toMatchObject({ status: 'ok', value: { json: ['coxnet', 'glmnet'] } });
  }, 60_000);

  it('as a value, and through `:::` called by name', async () => {
    const script = [
      'r <- lapply(list(c(1, 1, 2)), glmnet:::fid, 1:3)',
      'get_internal <- `:::`',
      'f <- get_internal("glmnet", "fid")',
      'c(r[[1]]$index_first, f(c(2, 2, 3), 1:3)$index_first)',
    ].join('\n');
    const { statically, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(atRuntime).toEqual([]);
    expect(response, response.error ?? '').toMatchObject({ status: 'ok', value: { json: [1, 3, 1, 3] } });
  }, 60_000);
});

describe('every other ::: is refused', () => {
  it.each([
    ['an internal function of a package with none listed', 'stats:::Pillai', false],
    ['an unlisted internal function of glmnet', 'library(glmnet)\nglmnet:::someOther(1)', true],
    ['glmnet.path, which evaluates its family\'s initialize expression', 'glmnet:::glmnet.path(x, y)', true],
  ])('%s, by /validate and the re-validation alike', async (_, script, hinted) => {
    const { statically, staticMessages, atRuntime, response } = await verdicts(script);
    expect(statically).toEqual(['BLOCKED_OPERATOR::::']);
    expect(atRuntime).toEqual(['BLOCKED_OPERATOR::::']);
    expect(response.status).toBe('rejected');
    expect(staticMessages[0]!.endsWith(HINT)).toBe(hinted);
    expect(response.validation?.errors[0]?.message.endsWith(HINT)).toBe(hinted);
  }, 60_000);

  it.each([
    ['`:::`("stats", "Pillai")', "':::' is not available in jube-r"],
    ['`:::`("glmnet", "someOther")', `':::' is not available in jube-r. ${HINT}`],
  ])('%s, which the static walks cannot see, by the runner\'s :::', async (script, message) => {
    const { statically, response } = await verdicts(script);
    expect(statically).toEqual([]);
    expect(response).toMatchObject({ status: 'error', error: expect.stringContaining(message) });
  }, 60_000);
});
