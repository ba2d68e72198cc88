/** Every registered check and lint rule has its own test file (STYLE.md item 1). */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../../functions/validate/core/checks/index.ts';
import { LINT_RULES } from '../../../functions/validate/core/lint/index.ts';

const testFile = (name: string): URL => new URL(`./${name}.test.ts`, import.meta.url);

describe('registries', () => {
  it.each(Object.keys(CHECKS))('check %s has a test file', (id) => {
    expect(existsSync(testFile(id))).toBe(true);
  });

  it.each(Object.keys(LINT_RULES))('lint rule %s has a test file', (id) => {
    expect(existsSync(testFile(`lint-${id.toLowerCase()}`))).toBe(true);
  });
});
