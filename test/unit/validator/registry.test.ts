/**
 * Every registered check and lint rule has its own test file, at the path mirroring its source
 * (layers/validator/checks/<id>.ts -> checks/<id>.test.ts; STYLE.md item 1).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../../../layers/validator/checks/index.ts';
import { LINT_RULES } from '../../../layers/validator/lint/index.ts';

const testFile = (name: string): URL => new URL(`./${name}.test.ts`, import.meta.url);
const sourceFile = (name: string): URL => new URL(`../../../layers/validator/${name}.ts`, import.meta.url);

describe('registries', () => {
  it.each(Object.keys(CHECKS))('check %s has a test file', (id) => {
    expect(existsSync(sourceFile(`checks/${id}`))).toBe(true);
    expect(existsSync(testFile(`checks/${id}`))).toBe(true);
  });

  it.each(Object.keys(LINT_RULES))('lint rule %s has a test file', (id) => {
    expect(existsSync(sourceFile(`lint/${id.toLowerCase()}`))).toBe(true);
    expect(existsSync(testFile(`lint/${id.toLowerCase()}`))).toBe(true);
  });
});
