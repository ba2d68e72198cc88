/**
 * The installed packages' own Rd examples, as a corpus of real-world R nobody wrote for jube-r.
 * Used by `npm run bench -- examples` (test/bench/examples.bench.ts) and by the test that the
 * corpus has no false rejection (test/runner/example-corpus.test.ts); how a finding on it counts is
 * test/bench/corpus-findings.ts.
 *
 * The scripts are generated from the installed documentation (tools::Rd_db + tools::Rd2ex with
 * \dontrun and \donttest commented out, as R CMD check runs them, see
 * https://stat.ethz.ch/R-manual/R-devel/library/tools/html/Rdutils.html) into the caller's
 * scratch dir, never into the tree. Each script starts with library(<its package>), which is
 * what R CMD check does before running a package's examples. The sample is deterministic: at
 * most `perPackage` topics with examples per package, sorted by name, either evenly spaced over
 * them (`spread`) or the first ones (`first`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Writes <pkg>__<n>.R per chosen example; prints [{package, topic, file}] and the installed packages. */
const GENERATOR = String.raw`
args <- commandArgs(TRUE)
env <- new.env()
sys.source(file.path(args[1], "packages.R"), envir = env)
declared <- get("jube_r_packages", envir = env)
out <- args[2]
packages <- as.integer(args[3])
per_package <- as.integer(args[4])
mode <- args[5]
if (packages > 0L) declared <- utils::head(declared, packages)
pick <- function(n) {
  if (n <= per_package) return(seq_len(n))
  if (mode == "first") return(seq_len(per_package))
  unique(round(seq(1, n, length.out = per_package)))
}
scripts <- list()
for (pkg in declared) {
  db <- tools::Rd_db(pkg)
  db <- db[order(names(db))]
  has <- vapply(db, function(rd) any(tools:::RdTags(rd) == "\\examples"), logical(1))
  db <- db[has]
  for (i in pick(length(db))) {
    tmp <- tempfile()
    tools::Rd2ex(db[[i]], tmp, commentDontrun = TRUE, commentDonttest = TRUE)
    if (!file.exists(tmp)) next
    file <- file.path(out, sprintf("%s__%03d.R", pkg, i))
    writeLines(c(sprintf("library(%s)", pkg), readLines(tmp, warn = FALSE)), file)
    scripts[[length(scripts) + 1L]] <- list(package = pkg, topic = sub("[.]Rd$", "", names(db)[i]), file = file)
  }
}
cat(jsonlite::toJSON(list(scripts = scripts, installed = rownames(utils::installed.packages())), auto_unbox = TRUE))
`;

export interface Example {
  readonly package: string;
  readonly topic: string;
  readonly file: string;
}

export interface ExampleCorpus {
  readonly scripts: Example[];
  /** Every installed package (utils::installed.packages()). */
  readonly installed: string[];
}

export interface ExampleSample {
  /** The first this many packages of packages.R; 0: all of them. */
  readonly packages: number;
  /** At most this many examples per package. */
  readonly perPackage: number;
  /** `spread`: evenly spaced over the topics sorted by name; `first`: the first ones. */
  readonly mode: 'spread' | 'first';
}

/** Writes the sampled examples into `<scratch>/examples` and lists them. */
export function collectExamples(scratch: string, sample: ExampleSample): ExampleCorpus {
  const dir = join(scratch, 'examples');
  mkdirSync(dir, { recursive: true });
  const generator = join(scratch, 'generate-examples.R');
  writeFileSync(generator, GENERATOR);
  const out = execFileSync('Rscript', ['--vanilla', generator, repo, dir, String(sample.packages), String(sample.perPackage), sample.mode], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    cwd: scratch,
  });
  const parsed = JSON.parse(out) as { scripts: Example[] | Record<string, never>; installed: string[] };
  return { scripts: Array.isArray(parsed.scripts) ? parsed.scripts : [], installed: parsed.installed };
}
