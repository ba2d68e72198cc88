/**
 * What to tell the script's author (often an LLM) to do instead, per forbidden category.
 * A message that names the fix gets a corrected script on the next try.
 */
const ADVICE: Readonly<Record<string, string>> = {
  process: 'jube-r scripts cannot start programs, editors or pagers; do the work in R itself.',
  network: 'the sandbox has no network; pass data in as a dataframe or variable instead.',
  environmentVariables: 'pass values as request variables; the environment can only be read, as Sys.getenv("TZ") with a literal name (it answers the locale, time zone, home and R\'s own paths), and set for TZ and the locale (Sys.setenv(TZ = "UTC")).',
  nativeCode: 'call the R-level function instead of native entry points.',
  indirection: 'call the function or use the object directly by its name (f(x), or do.call(f, args) with f named literally; x instead of get("x")).',
  codeFromText: 'write the code directly instead of building or evaluating it (a formula from text: as.formula(paste("y ~", x)) or reformulate(vars, "y")).',
  bindings: 'assign with <- in your own code (e.g. results[[name]] <- value in a list instead of assign()).',
  environments: 'keep values in lists or your own variables; environments are not reachable.',
  hooksAndTracing: 'remove it; time limits, hooks and debugging are managed by the service.',
  deserialization: 'serialized R objects are not accepted; pass data as a dataframe (CSV) input.',
  fileSystem: 'stay in the working directory and use relative paths (setwd("sub") or setwd(tempdir()) and back, sink("log.txt") ... sink() are allowed); output is captured for you.',
};

export function adviceFor(category: string | undefined): string {
  return (category !== undefined && ADVICE[category]) || 'remove it.';
}

/** The standard message for a forbidden name, shared by the symbol and string checks. */
export function forbiddenMessage(name: string, category: string | undefined, how: string): string {
  return `\`${name}\` is forbidden in jube-r (${category ?? 'forbidden'})${how}; ${adviceFor(category)}`;
}
