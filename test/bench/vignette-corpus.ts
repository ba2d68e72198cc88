/**
 * The installed vignettes' R code of the packages in packages.R, as a corpus of real-world R
 * nobody wrote for jube-r, and the one list of the findings on it that are security necessities.
 * Used by `npm run bench -- vignettes` (test/bench/vignettes.bench.ts) and by the test that the
 * corpus has no false rejection (test/runner/vignette-corpus.test.ts).
 *
 * The code is the tangled `doc/<name>.R` that R CMD build installs for each vignette (Debian's
 * r-cran-* packages ship them; Meta/vignette.rds names the file), or, where that is missing and
 * the source is installed, tools::buildVignette(tangle = TRUE, weave = FALSE) of the source.
 * Vignettes whose code is empty (every chunk eval = FALSE, or a PDF shipped as is) are counted,
 * not run. The rendering harness is dropped, as a rendered vignette never shows it:
 * top-level `knitr::opts_chunk$set(...)`, `knitr::knit_hooks$set(...)`, `knitr::opts_knit$set(...)`
 * and `x <- knitr::knit_hooks$get(...)` configure knitr's output, not the analysis (their lines
 * become a comment, so line numbers still match the installed file).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const COLLECTOR = String.raw`
args <- commandArgs(TRUE)
env <- new.env()
sys.source(file.path(args[1], "packages.R"), envir = env)
out <- args[2]
harness <- c("knitr::opts_chunk$set", "opts_chunk$set", "knitr::knit_hooks$set", "knitr::opts_knit$set", "knitr::knit_hooks$get")
is_harness <- function(e) {
  if (is.call(e) && (identical(e[[1]], as.name("<-")) || identical(e[[1]], as.name("="))) && length(e) == 3L) e <- e[[3]]
  is.call(e) && paste(deparse(e[[1]]), collapse = "") %in% harness
}
strip_harness <- function(lines) {
  exprs <- tryCatch(parse(text = lines, keep.source = TRUE), error = function(e) NULL)
  if (is.null(exprs)) return(lines)
  refs <- attr(exprs, "srcref")
  for (i in seq_along(exprs)) {
    if (!is_harness(exprs[[i]])) next
    from <- refs[[i]][[1]]
    to <- refs[[i]][[3]]
    lines[from:to] <- "# (knitr rendering harness, dropped by the vignette corpus)"
  }
  lines
}
scripts <- list()
empty <- character()
scratch <- tempfile("tangle")
dir.create(scratch)
for (pkg in get("jube_r_packages", envir = env)) {
  meta <- system.file("Meta", "vignette.rds", package = pkg)
  if (!nzchar(meta)) next
  m <- readRDS(meta)
  doc <- system.file("doc", package = pkg)
  for (i in seq_len(nrow(m))) {
    name <- tools::file_path_sans_ext(m$File[[i]])
    code <- if (nzchar(m$R[[i]])) file.path(doc, m$R[[i]]) else ""
    if (!nzchar(code) || !file.exists(code)) {
      src <- file.path(doc, m$File[[i]])
      code <- ""
      if (file.exists(src) && grepl("[.]([RrSs]nw|[Rr]md|[Rr]tex)$", src)) {
        tangled <- tryCatch(
          suppressMessages(tools::buildVignette(src, dir = scratch, weave = FALSE, tangle = TRUE, quiet = TRUE)),
          error = function(e) character()
        )
        if (length(tangled) == 1L) code <- file.path(scratch, tangled)
      }
    }
    lines <- if (nzchar(code)) readLines(code, warn = FALSE) else character()
    if (!any(nzchar(trimws(lines)) & !grepl("^\\s*#", lines))) {
      empty <- c(empty, paste0(pkg, "/", name))
      next
    }
    file <- file.path(out, sprintf("%s__%s.R", pkg, name))
    writeLines(strip_harness(lines), file)
    scripts[[length(scripts) + 1L]] <- list(package = pkg, vignette = name, file = file)
  }
}
unlink(scratch, recursive = TRUE)
cat(jsonlite::toJSON(list(scripts = scripts, empty = I(empty), installed = rownames(utils::installed.packages())), auto_unbox = TRUE))
`;

export interface Vignette {
  readonly package: string;
  readonly vignette: string;
  readonly file: string;
}

export interface VignetteCorpus {
  readonly scripts: Vignette[];
  /** pkg/vignette of the vignettes with no code to run. */
  readonly empty: string[];
  readonly installed: string[];
}

/** Writes each vignette's code into `dir` (under the caller's scratch directory) and lists them. */
export function collectVignettes(scratch: string): VignetteCorpus {
  const dir = join(scratch, 'vignettes');
  mkdirSync(dir, { recursive: true });
  const collector = join(scratch, 'collect-vignettes.R');
  writeFileSync(collector, COLLECTOR);
  const out = execFileSync('Rscript', ['--vanilla', collector, repo, dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, cwd: scratch });
  const parsed = JSON.parse(out) as { scripts: Vignette[] | Record<string, never>; empty: string[]; installed: string[] };
  return { scripts: Array.isArray(parsed.scripts) ? parsed.scripts : [], empty: parsed.empty, installed: parsed.installed };
}

/**
 * Findings on the vignette corpus that are security necessities, each with the rule that makes it
 * one (docs/script-rules.md). Key: "<code> <symbol>", or "PACKAGE_NOT_ALLOWED <pkg>::<name>" for
 * an export of a blocked package. A package the allow-list does not hold
 * (not installed, or installed only as a dependency: chron, gtable, pillar, ...) is not listed
 * here: `classify` calls it `notLoadable`, as it is no rejection of the validator's making.
 */
export const VIGNETTE_NECESSITIES: Readonly<Record<string, string>> = {
  'PACKAGE_NOT_ALLOWED knitr': 'knitr is blocked: it evaluates code from text and runs engines that spawn processes (knitr::kable is the usual use)',
  'PACKAGE_NOT_ALLOWED rlang::eval_tidy': 'rlang is blocked and eval_tidy is not among packages.namedExports: it evaluates an expression',
  'PACKAGE_NOT_ALLOWED rlang::call2': 'rlang is blocked and call2 is not among packages.namedExports: it builds a call from a name, as base call (forbidden, indirection) does',
  'BLOCKED_OPERATOR :::': '`:::` reaches unexported internals the allow-list does not audit',
  'FORBIDDEN_SYMBOL load': 'deserialization: .RData can carry code (CVE-2024-27322)',
  'FORBIDDEN_SYMBOL readRDS': 'deserialization: an RDS can carry code (CVE-2024-27322)',
  'FORBIDDEN_SYMBOL parse': 'codeFromText: turns text into code',
  'FORBIDDEN_SYMBOL parent.frame': 'environments: hands out the caller\'s frame',
  'FORBIDDEN_SYMBOL getClass': 'environments: a class definition carries its package environment',
};

export type Verdict = 'necessity' | 'notLoadable' | 'false';

export interface Finding {
  readonly code: string;
  readonly symbol?: string | undefined;
  readonly message: string;
}

export function findingKey(f: Finding): string {
  const qualified = f.code === 'PACKAGE_NOT_ALLOWED' ? /^'([A-Za-z][A-Za-z0-9.]*::[^']+)' is not available/.exec(f.message) : null;
  return `${f.code} ${qualified?.[1] ?? f.symbol ?? ''}`.trim();
}

/** How a finding on the corpus counts; `loadable`: the packages a script may load. */
export function classify(finding: Finding, loadable: ReadonlySet<string>): Verdict {
  if (VIGNETTE_NECESSITIES[findingKey(finding)] !== undefined) return 'necessity';
  if (finding.code === 'PACKAGE_NOT_ALLOWED' && finding.symbol !== undefined && !loadable.has(finding.symbol) && /not available in jube-r[. ]/.test(finding.message)) return 'notLoadable';
  return 'false';
}
