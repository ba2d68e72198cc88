/**
 * Every blocking check, one per file; the id type comes from this map, so a check cannot be
 * referenced without existing (flowr's linter-rules.ts pattern).
 */
import { capabilityCall } from './capability-call.ts';
import { namespacePackage } from './namespace-package.ts';
import { packageLoader } from './package-loader.ts';

export const CHECKS = {
  'capability-call': capabilityCall,
  'package-loader': packageLoader,
  'namespace-package': namespacePackage,
} as const;
