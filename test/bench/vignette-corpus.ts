/**
 * The installed vignettes' R code of the packages in packages.R, as a corpus of real-world R
 * nobody wrote for jube-r. Used by `npm run bench -- vignettes` (test/bench/vignettes.bench.ts)
 * and by the test that the corpus has no false rejection (test/runner/vignette-corpus.test.ts);
 * how a finding on it counts is test/bench/corpus-findings.ts.
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
