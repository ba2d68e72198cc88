#!/usr/bin/env node
// Prints the package names packages.R declares, one a line, optionally as Debian package names
// (--debian). Setup needs them before R exists, so this reads the file's string literals
// instead of running R; packages.R keeps its list a plain character vector for that reason.
import { readFileSync } from 'node:fs';

const text = readFileSync(new URL('../packages.R', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => line.replace(/#.*$/, ''))
  .join('\n');
const vector = /jube_r_packages\s*<-\s*c\(([^)]*)\)/.exec(text);
if (!vector?.[1]) {
  console.error('packages.R: no `jube_r_packages <- c(...)` vector found');
  process.exit(1);
}
const names = [...vector[1].matchAll(/"([A-Za-z][A-Za-z0-9.]*)"/g)].map((m) => m[1]);
const debian = process.argv.includes('--debian');
for (const name of names) console.log(debian ? `r-cran-${name.toLowerCase()}` : name);
