/**
 * Every blocking check, one per file; the id type comes from this map, so a check cannot be
 * referenced without existing (flowr's linter-rules.ts pattern).
 */
import { blockedOperator } from './blocked-operator.ts';
import { forbiddenStringFunction } from './forbidden-string-function.ts';
import { forbiddenSymbol } from './forbidden-symbol.ts';
import { formulaString } from './formula-string.ts';
import { namespacePackage } from './namespace-package.ts';
import { optionsCheck } from './options.ts';
import { packageLoader } from './package-loader.ts';
import { packageQuery } from './package-query.ts';
import { s3Dispatch } from './s3-dispatch.ts';

export const CHECKS = {
  'forbidden-symbol': forbiddenSymbol,
  'forbidden-string-function': forbiddenStringFunction,
  'blocked-operator': blockedOperator,
  'package-loader': packageLoader,
  'package-query': packageQuery,
  'namespace-package': namespacePackage,
  options: optionsCheck,
  's3-dispatch': s3Dispatch,
  'formula-string': formulaString,
} as const;

