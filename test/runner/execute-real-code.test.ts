/**
 * Ordinary code runs as it does in plain R, the script's own and what base R or a package runs on
 * its behalf (with the real validator in front, which accepts it); what the script itself does with
 * a capability stays refused below R.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptEverything, harness } from './helpers.ts';

const h = harness();
/** The runtime alone, to show it still refuses what the script itself names. */
const runtimeOnly = harness({ validator: acceptEverything });

async function runOk(script: string): Promise<string> {
  const r = await h.run(script, { timeoutSeconds: 30 });
  expect(r.error ?? null).toBeNull();
  expect(r.status).toBe('ok');
  return r.consoleOutput;
}

/** A .zip archive holding one stored (uncompressed) file, as the bytes of an R raw vector. */
function storedZip(name: string, content: string): string {
  const data = Buffer.from(content);
  const file = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(file.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(file.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + file.length, 12);
  end.writeUInt32LE(local.length + file.length + data.length, 16);
  const bytes = Buffer.concat([local, file, data, central, file, end]);
  return `as.raw(c(${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}))`;
}

describe('what the old name layer refused now runs, as in plain R', () => {
  it.each([
    ['environment() inside within()', 'l <- within(list(a = 1), e <- environment())\ncat(is.environment(l$e))\n', 'TRUE'],
    ['withAutoprint() into globalenv()', 'withAutoprint({ x <- 1 }, local = FALSE)\ncat(x)\n', '1'],
    ['source() of a file the script wrote', 'writeLines("y <- 41 + 1", "a.R")\nsource("a.R")\ncat(y)\n', '42'],
    ['unzip() by R\'s internal method', `writeBin(${storedZip('in.txt', 'zipped')}, "in.zip")\nunzip("in.zip", unzip = "internal")\ncat(readLines("in.txt"))\n`, 'zipped'],
  ])('%s', async (_label, script, expected) => {
    expect(await runOk(script)).toContain(expected);
  }, 60_000);

  it('the script\'s own .External() of a package routine, reached past the static checks, is refused below R', async () => {
    const r = await runtimeOnly.run('f <- get(".External")\nf(data.table:::Cfastmean, 1, FALSE)\n', { timeoutSeconds: 30 });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/jube-r: (\.External|routine Cfastmean of data\.table) loads or calls compiled code directly/);
  }, 60_000);
});

describe('base R and packages run their own code', () => {
  it('within() evaluates the block in a data frame', async () => {
    expect(await runOk('d <- within(mtcars, kpl <- mpg * 0.425)\ncat(round(d$kpl[1], 3))\n')).toBe('8.925');
  }, 60_000);

  it('withAutoprint() prints each expression of its block', async () => {
    expect(await runOk('withAutoprint({ x <- 1; x })\n')).toContain('[1] 1');
  }, 60_000);

  it('data.table\'s grouped := with mean()', async () => {
    const out = await runOk('library(data.table)\nDT <- as.data.table(mtcars)\ninvisible(DT[, m := mean(mpg), by = cyl])\ncat(round(DT$m[1], 3))\n');
    expect(out).toBe('19.743');
  }, 60_000);

  it('dplyr\'s mutate_at() with a ~ lambda', async () => {
    expect(await runOk('d <- mtcars |> dplyr::mutate_at(dplyr::vars(mpg), ~ .x * 2)\ncat(d$mpg[1])\n')).toBe('42');
  }, 60_000);

  it('data.table\'s within() method (transform.data.table\'s example)', async () => {
    expect(await runOk('library(data.table)\nDT <- data.table(a = rep(1:3, each = 2), b = 1:6)\nDT2 <- within(DT, { c <- a * 2; rm(a) })\ncat(names(DT2), DT2$c[6])\n')).toBe('b c 6');
  }, 60_000);

  it('nlme\'s nlsList() with a model function of the script\'s (MASS\'s OME example)', async () => {
    const script = [
      'library(MASS)\nlibrary(nlme)',
      'fp2 <- deriv(~ 0.5 + 0.5/(1 + exp(-(x-L75)/2)), "L75", function(x, L75) NULL)',
      'OMEi <- OME\nOMEi$UIDn <- 10 * OMEi$ID + unclass(factor(OMEi$Age)) + 0.1 * (OMEi$Noise == "incoherent")',
      'fits <- nlsList(Correct/Trials ~ fp2(Loud, L75) | UIDn, data = OMEi, start = list(L75 = 45), control = list(maxiter = 100), warn.nls = FALSE)',
      'cat(sum(!vapply(fits, is.null, TRUE)) > 100)',
    ].join('\n');
    expect(await runOk(script)).toBe('TRUE');
  }, 60_000);
});

it('lapply() of data.table::setDT over a split: substitute() and parent.frame() see lapply\'s call', async () => {
  const script = 'DF <- data.frame(g = c(1, 1, 2), x = 1:3)\nl <- lapply(split(DF, DF$g), data.table::setDT)\ncat(class(l[[1]])[1], nrow(l[[2]]))\n';
  expect(await runOk(script)).toBe('data.table 1');
}, 60_000);

it('.Last.value is the value of the previous top-level expression, as in R\'s console', async () => {
  expect(await runOk('x <- 6 * 7\ny <- .Last.value\ninvisible("quiet")\ncat(y, .Last.value)\n')).toBe('42 quiet');
}, 60_000);

it('readr reads a .zip input with R\'s internal unzip method (no program)', async () => {
  const script = `writeBin(${storedZip('a.csv', 'a,b\n1,2\n3,4\n')}, "in.zip")\nd <- readr::read_csv("in.zip", show_col_types = FALSE)\ncat(nrow(d), sum(d$b))\n`;
  expect(await runOk(script)).toBe('2 6');
}, 60_000);

it('data.table::dcast() with ... ~ v: the mask\'s `~` takes `...` as the primitive does', async () => {
  const script = 'DT <- data.table::data.table(id = c(1, 1, 2), k = c(3, 3, 4), v = c("a", "b", "a"), x = 1:3)\nw <- data.table::dcast(DT, ... ~ v, value.var = "x")\ncat(dim(w), deparse(y ~ ...))\n';
  expect(await runOk(script)).toBe('2 4 y ~ ...');
}, 60_000);

describe('environment-valued exports, used as their package intends (packages.environmentExports)', () => {
  it('readr\'s chunked readers with R6 callbacks and with a plain function (read_delim_chunked\'s example)', async () => {
    const script = [
      'library(readr)',
      'f <- function(x, pos) subset(x, gear == 3)',
      'd <- read_csv_chunked(readr_example("mtcars.csv"), DataFrameCallback$new(f), chunk_size = 5, show_col_types = FALSE)',
      'acc <- read_csv_chunked(readr_example("mtcars.csv"), AccumulateCallback$new(function(x, pos, acc) acc + nrow(x), acc = 0), chunk_size = 10, show_col_types = FALSE)',
      'invisible(read_csv_chunked(readr_example("mtcars.csv"), callback = function(x, pos) cat(pos, ""), chunk_size = 10, show_col_types = FALSE))',
      'cat(nrow(d), acc)',
    ].join('\n');
    expect(await runOk(script)).toBe('1 11 21 31 15 32');
  }, 60_000);

  it('ggplot2 extensions: ggproto() of Stat with the script\'s compute_group, and of CoordCartesian', async () => {
    const script = [
      'library(ggplot2)',
      'StatChull <- ggproto("StatChull", Stat, required_aes = c("x", "y"),',
      '  compute_group = function(data, scales) data[chull(data$x, data$y), , drop = FALSE])',
      'coord <- ggproto(NULL, CoordCartesian, limits = list(x = c(1, 7), y = NULL), expand = TRUE, default = FALSE, clip = "on")',
      'p <- ggplot(mpg, aes(displ, hwy)) + geom_point() + geom_polygon(stat = StatChull, fill = NA, colour = "black") + coord',
      'cat(nrow(layer_data(p, 2)), class(ggplot_build(p)$layout$coord)[1])',
    ].join('\n');
    expect(await runOk(script)).toBe('10 CoordCartesian');
  }, 60_000);
});
