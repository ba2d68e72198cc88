/**
 * The validator's public face: load once (grammar, rules, manifest), then validate synchronously.
 * PLACEHOLDER: accepts everything until the validator (issue 2) lands; the signature is the contract.
 */
import type { SandboxRules } from '../../../layers/rules/rules.ts';
import type { ValidationResult } from '../../../layers/contract/validation.ts';

export interface ValidatorOptions {
  readonly rules?: SandboxRules;
  /** Packages packages.R declares (the allow-list, with the rules' base set, minus the blocked). */
  readonly declaredPackages?: readonly string[];
  /** Packages actually installed (the manifest), for the not-installed lint. */
  readonly installedPackages?: ReadonlySet<string>;
}

export type Validator = (script: string) => ValidationResult;

export async function loadValidator(_options: ValidatorOptions = {}): Promise<Validator> {
  return () => ({ valid: true, errors: [], lint: [], durationMs: 0 });
}
