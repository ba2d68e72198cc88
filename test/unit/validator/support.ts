/**
 * Shared set-up for the validator's tests: one validator per process for each walk driver
 * (the grammar and rules load once), and small helpers that keep table cases one line each.
 */
import { loadManifest } from '../../../layers/packages/manifest.ts';
import { loadRules } from '../../../layers/rules/rules.ts';
import { manifestPackages } from '../../../layers/validator/package-lists.ts';
import { loadValidator, type Validator, type ValidatorOptions } from '../../../layers/validator/validator.ts';
import type { ValidationResult } from '../../../layers/contract/validation.ts';

/** As the service runs it: the rules file and the generated manifest. */
const load = (extra: Partial<ValidatorOptions> = {}): Promise<Validator> =>
  loadValidator({ rules: loadRules(), ...manifestPackages(loadManifest()), ...extra });

let fast: Promise<Validator> | undefined;
let full: Promise<Validator> | undefined;

/** The validator as the service runs it (candidate walk). */
export const validator = (): Promise<Validator> => (fast ??= load());
/** The reference driver that visits every node. */
export const fullWalkValidator = (): Promise<Validator> => (full ??= load({ walk: 'full' }));

export async function validate(script: string): Promise<ValidationResult> {
  return (await validator())(script);
}

/** "CODE:symbol" for each error, the compact form the tables assert on. */
export async function errorsOf(script: string): Promise<string[]> {
  return (await validate(script)).errors.map((e) => (e.symbol === undefined ? e.code : `${e.code}:${e.symbol}`));
}

export async function lintRulesOf(script: string): Promise<string[]> {
  return (await validate(script)).lint.map((l) => l.rule);
}

/** Findings without the timing, for comparing the two walk drivers. */
export const findings = (r: ValidationResult): Omit<ValidationResult, 'durationMs'> => ({
  valid: r.valid,
  errors: r.errors,
  lint: r.lint,
});
