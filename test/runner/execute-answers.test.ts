/**
 * Answers an agent can act on in one step, with real R and the real validator: the whole cause of
 * an error with the script line it happened on and a hint, an output budget whose every cut says
 * what to raise, folded warnings, start-up chatter kept out, and quick answers for quit(), a
 * timeout and a meta-package.
 */
import { describe, expect, it } from 'vitest';
import { readServiceConfig } from '../../layers/config/service-config.ts';
import { harness } from './helpers.ts';

const h = harness();
const defaults = readServiceConfig({});

describe('the error carries the whole cause', () => {
  it('a column typo inside a pipeline: the innermost message, the failing stage\'s line, the pipeline\'s start, a hint', async () => {
    const script = 'library(dplyr)\nmtcars |>\n  group_by(cyl) |>\n  summarise(n = n()) |>\n  mutate(x = 1) |>\n  arrange(desc(mgp))\n';
    const r = await h.run(script, { timeoutSeconds: 20 });
    expect(r.status).toBe('error');
    expect(r.error).toContain("object 'mgp' not found");
    expect(r.error).toContain('At line 6: arrange(desc(mgp))');
    expect(r.error).toContain('Hint: did you mean `mpg` (a column of `mtcars`)?');
    expect(r.errorDetails).toMatchObject({ line: 6, expressionLine: 2, expressionColumn: 1, hints: ['did you mean `mpg` (a column of `mtcars`)?'] });
  }, 60_000);

  it('a function that another installed package exports names that package', async () => {
    const r = await h.run('long <- dplyr::pivot_longer(mtcars, everything())\n', { timeoutSeconds: 20 });
    expect(r.error).toContain("'pivot_longer' is not an exported object from 'namespace:dplyr'");
    expect(r.errorDetails?.hints).toEqual(['`pivot_longer` is in tidyr: call tidyr::pivot_longer(), or library(tidyr) first']);
  }, 60_000);
});

describe('the output budget', () => {
  it('a 60,000-row print comes back within the default budget, cut on lines, with a note naming what to raise', async () => {
    const r = await h.run('print(data.frame(id = 1:60000))\ninvisible(NULL)\n', { timeoutSeconds: 20 });
    expect(r.status).toBe('ok');
    const [head, tail] = r.consoleOutput.split(/\[\.\.\. \d+ bytes of console output omitted \.\.\.\]\n/);
    // The budget bounds the whole text, the omitted line included.
    expect(Buffer.byteLength(r.consoleOutput)).toBeLessThanOrEqual(defaults.outputBudget.consoleBytes);
    expect(head!.endsWith('\n')).toBe(true);
    expect(tail!.endsWith('60000 60000\n')).toBe(true);
    for (const line of `${head}${tail}`.split('\n').filter(Boolean).slice(1)) expect(line).toMatch(/^\d+ +\d+$/);
    expect(r.notes).toEqual([expect.stringMatching(/^consoleOutput was cut .*outputBudget\.consoleBytes is 16384; raise it \(up to 1048576\)/)]);
    expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(2 * defaults.outputBudget.consoleBytes);
  }, 60_000);

  it('a request\'s budget sets the caps, and each cut says so', async () => {
    const script = 'for (i in 1:3) warning(paste("w", i))\ncat(strrep("x\\n", 5000))\nrep("v", 1000)\n';
    const r = await h.run(script, { timeoutSeconds: 20, outputBudget: { consoleBytes: 1000, warnings: 1, valueBytes: 300 } });
    expect(r.warnings).toEqual(['w 1']);
    expect(Buffer.byteLength(r.consoleOutput)).toBeLessThanOrEqual(1000);
    expect(r.notes?.join('\n')).toMatch(/outputBudget\.consoleBytes is 1000/);
    expect(r.notes?.join('\n')).toMatch(/2 more distinct warning\(s\) were left out .*outputBudget\.warnings is 1/);
    expect(r.notes?.join('\n')).toMatch(/outputBudget\.valueBytes is 300/);
  }, 60_000);

  it('240 identical warnings come back as one with a count, their text once', async () => {
    const r = await h.run('for (i in 1:240) warning("same")\nwarning("other")\n', { timeoutSeconds: 20 });
    expect(r.warnings).toEqual(['same [240 times]', 'other']);
    expect(r.warningDetails).toEqual([{ call: null, line: 1, column: 1, count: 240 }, { call: null, line: 2, column: 1 }]);
    expect(r.truncated).toBeUndefined();
  }, 60_000);

  it('package start-up messages stay out of the console and messages, summed up in one note', async () => {
    const r = await h.run('library(dplyr)\nmessage("mine")\n', { timeoutSeconds: 20 });
    expect(r.consoleOutput).toBe('mine\n');
    expect(r.messages).toEqual(['mine']);
    expect(r.notes).toEqual([expect.stringMatching(/^3 package start-up message\(s\) left out .*Attaching package: ‘dplyr’.*filter, lag/)]);
  }, 60_000);
});

describe('quick answers', () => {
  it.each(['quit()', 'q(save = "no")', 'base::quit()'])('%s is the script\'s own error, not the service\'s', async (script) => {
    // R ends itself wherever quit() is called; the runner answers from R's exit finalizers.
    const r = await h.run(`x <- 1\ncat("before\\n")\nf <- function() ${script}\nf()\ncat("after\\n")\n`, { timeoutSeconds: 20 });
    expect(r).toMatchObject({ status: 'error', errorType: 'execution', retryable: true, consoleOutput: 'before\n' });
    expect(r.error).toMatch(/^Error: quit\(\) at line 4 ends the script here/);
  }, 60_000);

  it('a timeout names the maximum and the field that raises it', async () => {
    const r = await h.run('repeat {}\n', { timeoutSeconds: 1 });
    expect(r.timedOut).toBe(true);
    expect(r.error).toMatch(/exceeded its 1 s limit.*the request's timeoutSeconds raises the limit up to 20 s/);
  }, 60_000);

  it('library(tidyverse) names the installed members to load instead', async () => {
    const r = await h.run('library(tidyverse)\n', { timeoutSeconds: 20 });
    expect(r.status).toBe('rejected');
    expect(r.validation?.errors[0]?.message).toMatch(/Load the packages it would attach instead: library\(dplyr\); library\(tidyr\); library\(ggplot2\)/);
  }, 60_000);
});
