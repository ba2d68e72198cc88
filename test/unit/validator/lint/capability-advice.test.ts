import { describe, expect, it } from 'vitest';
import { capabilityMessage } from '../../../../layers/rules/capabilities.ts';
import { validate } from '../support.ts';

describe('lint capability-advice', () => {
  describe('Noncompliance', () => {
    it.each([
      ['x <- readRDS("f.rds")', capabilityMessage('deserialization', 'readRDS')],
      ['load("x.rda")', capabilityMessage('deserialization', 'load')],
      ['readr::read_rds("f.rds")', capabilityMessage('deserialization', 'readr::read_rds')],
      ['parallel::mclapply(1:3, sqrt, mc.cores = getOption("cores"))', 'mclapply() runs serially here (one core, no fork): mc.cores must be 1, or leave it out.'],
      ['mcmapply(sum, 1:3, mc.cores = n)', 'mcmapply() runs serially here (one core, no fork): mc.cores must be 1, or leave it out.'],
    ])('warns on %s, and the script stays valid', async (script, message) => {
      const result = await validate(script);
      expect(result.valid).toBe(true);
      expect(result.lint).toEqual([expect.objectContaining({ rule: 'capability-advice', severity: 'warning', message })]);
    });
  });

  describe('Compliance', () => {
    it.each([['parallel::mclapply(1:3, sqrt)'], ['parallel::mclapply(1:3, sqrt, mc.cores = 1)'], ['lapply(1:3, sqrt)'], ['read.csv("d.csv")']])(
      'stays quiet for %s',
      async (script) => {
        expect((await validate(script)).lint).toEqual([]);
      },
    );
  });
});
