/**
 * The agent suite: tasks an LLM agent gives jube-r through the MCP server (the official SDK's
 * client, `jube-r mcp` over the local stack's HTTP API, the warm start, real R), as a model sees
 * them. Each task's first script is what an agent would write (some with the mistakes agents
 * make); each attempt is r_validate, then r_execute if the script is valid. A failed attempt is
 * followed by one fix derived only from what the tool result said (the fix asserts it held what it
 * needed, and every hint and the failing line are in the text the model reads), and a retry. A
 * task may go on in later calls of its MCP session, which send only the new step: the workspace
 * is the session's. Every task is its own MCP session. Measured per task: first-try success, round
 * trips, and the bytes of every tool result (content and structuredContent apart), within budgets
 * that suit a model's context.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthResponseSchema, type HealthResponse } from '../../layers/contract/api.ts';
import type { ExecuteResponse } from '../../layers/contract/execute.ts';
import { ValidationResultSchema, type ValidationResult } from '../../layers/contract/validation.ts';
import { createJubeRClient, type JubeRClient } from '../../functions/tools/client/jube-r-client.ts';
import { McpExecuteResultSchema } from '../../functions/tools/mcp/content.ts';
import { createJubeRMcpServer } from '../../functions/tools/mcp/server.ts';
import { newSessionId } from '../../functions/tools/mcp/session.ts';
import { request, startStack, type RunningStack } from './local-stack.ts';

const TENANT = 'agent-suite';
const TIMEOUT_MAX = 10;
/** What a model can take in one response as text, for every task but the large-output one. */
const TEXT_BYTES = 16 * 1024;

type Body = { script: string } & Record<string, unknown>;

interface Reply {
  readonly validation: ValidationResult;
  /** Absent when r_validate refused the script: the agent does not run what it must fix first. */
  readonly response?: ExecuteResponse;
  /** The text items of both tool results: what the model reads. */
  readonly text: string;
  /** Both tool results' `content` (images and embedded files included), as JSON. */
  readonly contentBytes: number;
  /** Both tool results' `structuredContent`, as JSON. */
  readonly structuredBytes: number;
}

interface Task {
  readonly name: string;
  readonly first: Body;
  /** Written wrong on purpose: the first attempt must fail. */
  readonly buggy?: boolean;
  /** The next script, derived from the failed reply; asserts the reply holds what the fix needs. */
  readonly fix?: (reply: Reply, body: Body) => Body;
  /** The attempt did what the task asked (default: it ran and ended ok). */
  readonly done?: (response: ExecuteResponse) => boolean;
  /** What the successful response must carry. */
  readonly check: (response: ExecuteResponse) => void;
  /** Every tool result's `content` of the task together, images included (default TEXT_BYTES). */
  readonly maxBytes?: number;
  /** Later steps in the same MCP session, each sending only its own code: each must succeed first time. */
  readonly then?: readonly { readonly body: Body; readonly check: (response: ExecuteResponse) => void }[];
}

let stack: RunningStack;
let data: string;
let api: JubeRClient;
let health: HealthResponse;
let limits: HealthResponse['limits'];

const lines = (script: string) => script.split('\n');
const json = (r: ExecuteResponse) => (r.value?.kind === 'json' ? r.value.json : undefined);
const records = (r: ExecuteResponse) => json(r) as Record<string, unknown>[];
const CSV_VARIABLE = 'region,units,price\nnorth,3,9.5\nsouth,4,12\nnorth,5,10\neast,2,8.25\n';

const TASKS: readonly Task[] = [
  {
    name: 'dplyr summary',
    first: { script: 'library(dplyr)\nmtcars |>\n  group_by(cyl) |>\n  summarise(avg_mpg = round(mean(mpg), 2), n = n()) |>\n  arrange(desc(avg_mpg))' },
    check: (r) => {
      expect(records(r)).toEqual([{ cyl: 4, avg_mpg: 26.66, n: 11 }, { cyl: 6, avg_mpg: 19.74, n: 7 }, { cyl: 8, avg_mpg: 15.1, n: 14 }]);
      expect(r.notes?.join('\n')).toMatch(/package start-up message\(s\) left out/);
    },
  },
  {
    name: 'dplyr column typo',
    buggy: true,
    first: { script: 'library(dplyr)\nmtcars |>\n  filter(hp > 100) |>\n  group_by(cyl) |>\n  summarise(avg_mpg = mean(mgp), n = n()) |>\n  arrange(desc(avg_mpg))' },
    fix: (reply, body) => {
      const details = reply.response?.errorDetails;
      // The missing name, the column meant and the stage of the pipeline, all from the response.
      const wrong = /object '(\w+)' not found/.exec(details?.message ?? '')?.[1];
      const meant = /did you mean `(\w+)`/.exec(details?.hints?.join('\n') ?? '')?.[1];
      expect([wrong, meant, details?.line]).toEqual(['mgp', 'mpg', 5]);
      const script = lines(body.script);
      script[details!.line! - 1] = script[details!.line! - 1]!.replace(wrong!, meant!);
      return { ...body, script: script.join('\n') };
    },
    check: (r) => {
      expect(records(r).map((row) => row['cyl'])).toEqual([4, 6, 8]);
      expect(records(r).map((row) => row['n'])).toEqual([2, 7, 14]);
    },
  },
  {
    name: 'tidyr via dplyr::',
    buggy: true,
    first: {
      script: [
        'library(dplyr)',
        'scores <- data.frame(student = c("a", "b", "c"), math = c(90, 75, 82), art = c(70, 88, 95))',
        'long <- scores |> dplyr::pivot_longer(c(math, art), names_to = "subject", values_to = "score")',
        'long |> group_by(subject) |> summarise(mean = round(mean(score), 2))',
      ].join('\n'),
    },
    fix: (reply, body) => {
      const hint = reply.response?.errorDetails?.hints?.join('\n') ?? '';
      const call = /call (\w+::\w+)\(\)/.exec(hint)?.[1];
      expect(call).toBe('tidyr::pivot_longer');
      return { ...body, script: body.script.replace(`dplyr::${call!.split('::')[1]}`, call!) };
    },
    check: (r) => expect(records(r)).toEqual([{ subject: 'art', mean: 84.33 }, { subject: 'math', mean: 82.33 }]),
  },
  {
    name: 'tidyr pivot_wider',
    first: {
      script: 'library(tidyr)\nsales <- data.frame(region = c("n", "n", "s"), q = c("q1", "q2", "q1"), units = c(3, 5, 4))\npivot_wider(sales, names_from = q, values_from = units, values_fill = 0)',
    },
    check: (r) => expect(records(r)).toEqual([{ region: 'n', q1: 3, q2: 5 }, { region: 's', q1: 4, q2: 0 }]),
  },
  {
    name: 'ggplot2 scatter',
    first: {
      script: 'library(ggplot2)\nggplot(mtcars, aes(wt, mpg, colour = factor(cyl))) +\n  geom_point() +\n  labs(title = "Weight and mileage", colour = "cylinders")',
      plots: { width: 480, height: 360 },
    },
    check: (r) => {
      expect(r.plots).toMatchObject([{ mimeType: 'image/png', width: 480, height: 360 }]);
      expect(r.value).toMatchObject({ kind: 'printed', class: ['gg', 'ggplot'] });
    },
    maxBytes: 48 * 1024,
  },
  {
    name: 'base plots',
    first: {
      script: 'hist(faithful$eruptions, breaks = 20, main = "Eruption length")\nboxplot(len ~ supp, data = ToothGrowth, main = "Tooth growth")',
      plots: { width: 400, height: 300 },
    },
    check: (r) => expect(r.plots?.map((p) => [p.mimeType, p.width, p.height])).toEqual([['image/png', 400, 300], ['image/png', 400, 300]]),
    maxBytes: 48 * 1024,
  },
  {
    name: 'lm + broom',
    first: { script: 'library(broom)\nfit <- lm(mpg ~ wt + hp, data = mtcars)\ntidy(fit)' },
    check: (r) => {
      const wt = records(r).find((row) => row['term'] === 'wt');
      expect(wt?.['estimate']).toBeCloseTo(-3.878, 3);
      expect(r.value).toMatchObject({ kind: 'json', class: ['tbl_df', 'tbl', 'data.frame'] });
    },
  },
  {
    name: 'forecast',
    first: { script: 'library(forecast)\nfit <- ets(AirPassengers)\nfc <- forecast(fit, h = 6)\nround(as.numeric(fc$mean))' },
    check: (r) => {
      const mean = json(r) as number[];
      expect(mean).toHaveLength(6);
      mean.forEach((m) => expect(m).toBeGreaterThan(300));
    },
  },
  {
    name: 'survival',
    // An agent generous with time for a model fit: the clamp says what was used, within the notes cap.
    first: { script: 'library(survival)\nfit <- survfit(Surv(time, status) ~ sex, data = lung)\nsummary(fit)$table[, "median"]', timeoutSeconds: 60 },
    check: (r) => {
      expect(json(r)).toEqual({ 'sex=1': 270, 'sex=2': 426 });
      expect(r.notes?.[0]).toBe(`timeoutSeconds 60 is above this deployment's maximum; ${TIMEOUT_MAX} s was used (GET /health?detail=full limits.scriptTimeoutSecondsMax)`);
      expect(r.notes!.length).toBeLessThanOrEqual(limits.maxNotes);
    },
  },
  {
    name: 'stringr without library',
    buggy: true,
    first: { script: 'emails <- c("Ann <ann@x.org>", "bob@y.com", "none")\nhas_at <- str_detect(emails, "@")\nsum(has_at)' },
    fix: (reply, body) => {
      const library = /library\((\w+)\)/.exec(reply.response?.errorDetails?.hints?.join('\n') ?? '')?.[0];
      expect(library).toBe('library(stringr)');
      return { ...body, script: `${library}\n${body.script}` };
    },
    check: (r) => expect(json(r)).toBe(2),
  },
  {
    name: 'lubridate',
    first: {
      script: 'library(lubridate)\nd <- ymd(c("2026-01-15", "2026-01-30", "2026-03-01"))\ntable(format(floor_date(d, "month"), "%Y-%m"))',
    },
    check: (r) => expect(json(r)).toEqual({ '2026-01': 2, '2026-03': 1 }),
  },
  {
    name: 'CSV in a variable',
    first: {
      script: 'sales <- read.csv(text = csv)\nsales$revenue <- sales$units * sales$price\naggregate(revenue ~ region, data = sales, FUN = sum)',
      variables: [{ name: 'csv', value: CSV_VARIABLE }],
    },
    check: (r) => expect(records(r)).toEqual([{ region: 'east', revenue: 16.5 }, { region: 'north', revenue: 78.5 }, { region: 'south', revenue: 48 }]),
  },
  {
    name: 'dataframe input',
    first: {
      script: 'library(dplyr)\nsales |>\n  group_by(region) |>\n  summarise(total = sum(units)) |>\n  arrange(desc(total))',
      dataframes: [{ name: 'sales', dataPointer: 'sales-2026' }],
    },
    check: (r) => expect(records(r)).toEqual([{ region: 'north', total: 22 }, { region: 'south', total: 16 }]),
  },
  {
    name: 'files to out/',
    first: {
      script: 'summary_table <- aggregate(Sepal.Length ~ Species, iris, mean)\nwrite.csv(summary_table, "out/sepal.csv", row.names = FALSE)\npng("out/sepal.png", width = 320, height = 240)\nboxplot(Sepal.Length ~ Species, iris)\ninvisible(dev.off())\nnrow(summary_table)',
    },
    check: (r) => {
      expect(r.files?.map((f) => [f.name, f.mimeType])).toEqual([['sepal.csv', 'text/csv'], ['sepal.png', 'image/png']]);
      const csv = r.files!.find((f) => f.name === 'sepal.csv')!;
      const bytes = Buffer.from(csv.data!, 'base64');
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(csv.sha256);
      expect(bytes.toString('utf8').split('\n')[0]).toBe('"Species","Sepal.Length"');
      expect(r.plots).toEqual([]);
      expect(json(r)).toBe(3);
    },
  },
  {
    name: 'result markers',
    buggy: true,
    // JSON written by hand, as agents do: unquoted keys.
    first: { script: 's <- summary(lm(mpg ~ wt, mtcars))\ncat("<<<JUBE_RESULT_START>>>{slope: ", s$coefficients[2, 1], ", r2: ", s$r.squared, "}<<<JUBE_RESULT_END>>>", sep = "")' },
    done: (r) => r.status === 'ok' && r.result !== undefined,
    fix: (reply, body) => {
      expect(reply.response?.resultWarning).toMatch(/not valid JSON/);
      const script = lines(body.script);
      script[1] = 'cat("<<<JUBE_RESULT_START>>>", jsonlite::toJSON(list(slope = s$coefficients[2, 1], r2 = s$r.squared), auto_unbox = TRUE, digits = NA), "<<<JUBE_RESULT_END>>>", sep = "")';
      return { ...body, script: script.join('\n') };
    },
    check: (r) => {
      expect((r.result as { slope: number }).slope).toBeCloseTo(-5.3445, 4);
      expect((r.result as { r2: number }).r2).toBeCloseTo(0.7528, 4);
    },
  },
  {
    name: 'syntax error',
    buggy: true,
    first: { script: 'fit <- lm(mpg ~ wt, data = mtcars\nround(summary(fit)$r.squared, 4)' },
    fix: (reply, body) => {
      const error = reply.validation.errors[0];
      expect(reply.response).toBeUndefined();
      expect(error).toMatchObject({ code: 'SYNTAX_ERROR', message: expect.stringContaining("missing ')'") });
      const script = lines(body.script);
      const line = script[error!.line - 1]!;
      script[error!.line - 1] = `${line.slice(0, error!.column - 1)})${line.slice(error!.column - 1)}`;
      return { ...body, script: script.join('\n') };
    },
    check: (r) => expect(json(r)).toBe(0.7528),
  },
  {
    name: 'package not installed',
    buggy: true,
    first: {
      script: 'install.packages("janitor")\nlibrary(janitor)\nsurvey <- read.csv(text = csv, check.names = FALSE)\nsurvey <- clean_names(survey)\nnames(survey)',
      variables: [{ name: 'csv', value: 'First Name,Age (years)\nann,31\n' }],
    },
    fix: (reply, body) => {
      // The lines the validator refused go; the package is not there, so the agent writes base R.
      const errors = reply.validation.errors;
      expect(errors.map((e) => [e.code, e.line, e.symbol])).toEqual([['CAPABILITY_NOT_AVAILABLE', 1, 'install.packages'], ['PACKAGE_NOT_ALLOWED', 2, 'janitor']]);
      expect(errors[1]!.message).toMatch(/^Package 'janitor' is not installed\. .*GET \/packages lists every installed package/);
      const refused = new Set(errors.map((e) => e.line));
      const kept = lines(body.script).filter((_, i) => !refused.has(i + 1));
      const script = kept.map((l) => l.replace('clean_names(survey)', 'setNames(survey, tolower(gsub("[^A-Za-z0-9]+", "_", trimws(gsub("[()]", "", names(survey))))))'));
      return { ...body, script: script.join('\n') };
    },
    check: (r) => expect(json(r)).toEqual(['first_name', 'age_years']),
  },
  {
    name: 'timeout',
    buggy: true,
    first: {
      script: 'set.seed(42)\ninside <- 0\nfor (i in 1:1e8) if (runif(1)^2 + runif(1)^2 <= 1) inside <- inside + 1\n4 * inside / 1e8',
      timeoutSeconds: 1,
    },
    fix: (reply, body) => {
      const r = reply.response!;
      // That it timed out, where it was (the loop), and that the limit can be raised.
      expect(r.timedOut).toBe(true);
      expect(r.error).toMatch(/exceeded its 1 s limit.*timeoutSeconds raises the limit up to \d+ s/);
      expect(r.errorDetails?.line).toBe(3);
      const script = lines(body.script);
      script.splice(r.errorDetails!.line! - 2, 3, 'n <- 1e6', 'mean(runif(n)^2 + runif(n)^2 <= 1) * 4');
      return { ...body, script: script.join('\n') };
    },
    check: (r) => expect(json(r) as number).toBeCloseTo(Math.PI, 1),
  },
  {
    name: 'warning flood',
    first: {
      script: 'raw <- rep(c("12", "n/a", "7.5", "-"), 250)\nvals <- numeric(0)\nfor (r in raw) vals <- c(vals, as.numeric(r))\nmean(vals, na.rm = TRUE)',
    },
    check: (r) => {
      expect(json(r)).toBe(9.75);
      expect(r.warnings).toEqual(['NAs introduced by coercion [500 times]']);
      expect(r.warningDetails).toMatchObject([{ line: 3, count: 500 }]);
    },
    maxBytes: 2 * 1024,
  },
  {
    name: 'large output',
    first: {
      script: 'set.seed(1)\norders <- data.frame(id = 1:5000, amount = round(runif(5000, 5, 500), 2), region = sample(c("north", "south", "east", "west"), 5000, TRUE))\norders',
    },
    check: (r) => {
      expect(r.truncated).toBe(true);
      // The head and the tail within the budget; the line that says what was left out between them.
      const omitted = `[... ${r.consoleOutputOmittedBytes} bytes of console output omitted ...]\n`;
      expect(r.consoleOutput).toContain(omitted);
      expect(Buffer.byteLength(r.consoleOutput.replace(omitted, ''))).toBeLessThanOrEqual(limits.budgetConsoleBytesDefault);
      expect(r.consoleOutputOmittedBytes).toBeGreaterThan(100_000);
      expect(r.consoleOutput).toMatch(/^\s+id amount region\n1\s+1/);
      expect(r.consoleOutput).toMatch(/5000 5000\s+[\d.]+\s+\w+\n$/);
      // Too large for JSON, the table comes back printed, within the value's budget.
      expect(r.value).toMatchObject({ kind: 'printed', class: ['data.frame'] });
      expect(Buffer.byteLength(r.value?.kind === 'printed' ? r.value.printed : '')).toBeLessThanOrEqual(limits.budgetValueBytesDefault);
      expect(r.notes?.join('\n')).toMatch(/outputBudget\.consoleBytes is \d+; raise it/);
    },
  },
  {
    name: 'caret, not installed',
    buggy: true,
    first: { script: 'library(caret)\nfit <- train(mpg ~ wt + hp, data = mtcars, method = "lm")\nround(coef(fit$finalModel), 3)' },
    fix: (reply, body) => {
      // Refused before it ran, with what to use instead: the base model the package would have wrapped.
      const error = reply.validation.errors[0];
      expect(reply.response).toBeUndefined();
      expect(error).toMatchObject({ code: 'PACKAGE_NOT_ALLOWED', symbol: 'caret', message: expect.stringContaining('stats::lm') });
      expect(reply.text).toContain('stats::lm');
      return { ...body, script: 'fit <- lm(mpg ~ wt + hp, data = mtcars)\nround(coef(fit), 3)' };
    },
    check: (r) => expect(json(r)).toEqual({ '(Intercept)': 37.227, wt: -3.878, hp: -0.032 }),
  },
  {
    name: 'lme4 -> nlme',
    buggy: true,
    first: { script: 'library(lme4)\nfit <- lmer(distance ~ age + (1 | Subject), data = nlme::Orthodont)\nround(fixef(fit), 3)' },
    fix: (reply, body) => {
      const error = reply.validation.errors[0];
      expect(error).toMatchObject({ code: 'PACKAGE_NOT_ALLOWED', symbol: 'lme4' });
      // The alternative names the package and the call's shape.
      const shape = /nlme::lme for linear mixed models: (lme\([^)]*\))/.exec(error!.message)?.[1];
      expect(shape).toBe('lme(y ~ x, random = ~ 1 | group, data = d)');
      return { ...body, script: 'library(nlme)\nfit <- lme(distance ~ age, random = ~ 1 | Subject, data = Orthodont)\nround(fixef(fit), 3)' };
    },
    check: (r) => expect(json(r)).toEqual({ '(Intercept)': 16.761, age: 0.66 }),
  },
  {
    name: 'TTR moving average',
    first: { script: 'library(TTR)\nprice <- c(10, 11, 12, 13, 12, 14)\nround(SMA(price, n = 3), 2)' },
    check: (r) => expect(json(r)).toEqual([null, null, 11, 12, 12.33, 13]),
  },
  {
    name: 'data.table :=',
    first: { script: 'library(data.table)\ndt <- data.table(x = 1:3)\ndt[, y := x * 2]\ndt[, sum(y)]' },
    check: (r) => {
      // `:=` prints nothing, as in R's console: only the last line's value is shown.
      expect(r.consoleOutput).toBe('[1] 12\n');
      expect(json(r)).toBe(12);
    },
  },
  {
    name: 'data.table join on=',
    buggy: true,
    first: { script: 'library(data.table)\na <- data.table(id = 1:3, v = c(10, 20, 30))\nb <- data.table(key_id = c(1L, 3L), w = c("p", "q"))\na[b, on = "id"][, sum(v)]' },
    fix: (reply, body) => {
      // Each table's columns, so the join's two names can be paired.
      const hints = reply.response?.errorDetails?.hints ?? [];
      expect(hints).toEqual(['`a` has the columns `id`, `v`', '`b` has the columns `key_id`, `w`']);
      expect(reply.response?.errorDetails?.line).toBe(4);
      return { ...body, script: body.script.replace('on = "id"', 'on = c(id = "key_id")') };
    },
    check: (r) => expect(json(r)).toBe(40),
  },
  {
    name: 'column not close to any',
    buggy: true,
    first: { script: 'library(dplyr)\nd <- data.frame(order_date = c("2026-01-01", "2026-01-02"), amount = c(5, 7))\nd |> summarise(total = sum(revenue))' },
    fix: (reply, body) => {
      // No name is close to `revenue`: the answer lists the data frame's columns instead.
      const hints = reply.response?.errorDetails?.hints?.join('\n') ?? '';
      const columns = /`d` has the columns (.*)/.exec(hints)?.[1];
      expect(columns).toBe('`order_date`, `amount`');
      return { ...body, script: body.script.replace('revenue', 'amount') };
    },
    check: (r) => expect(records(r)).toEqual([{ total: 12 }]),
  },
  {
    name: 'mclapply on 2 cores',
    buggy: true,
    // No fork in the sandbox: asking for cores is refused before it runs, with what works instead.
    first: { script: 'library(parallel)\nsquares <- mclapply(1:4, function(i) i^2, mc.cores = 2)\nunlist(squares)' },
    fix: (reply, body) => {
      const error = reply.validation.errors[0];
      expect(error).toMatchObject({ code: 'CAPABILITY_NOT_AVAILABLE', line: 2, symbol: 'mclapply' });
      expect(error!.message).toContain('parallel::mclapply() runs serially here (mc.cores = 1)');
      return { ...body, script: body.script.replace(', mc.cores = 2', '') };
    },
    check: (r) => expect(json(r)).toEqual([1, 4, 9, 16]),
  },
  {
    name: 'png outside out/',
    buggy: true,
    first: { script: 'png("scatter.png", width = 320, height = 240)\nplot(mtcars$wt, mtcars$mpg)\ninvisible(dev.off())\n"saved"' },
    done: (r) => r.status === 'ok' && (r.files ?? []).some((f) => f.name === 'scatter.png'),
    fix: (reply, body) => {
      // It ran, but the file is not returned: the note says where files for the caller go.
      const note = reply.response?.notes?.find((n) => n.includes('"scatter.png" was written in the working directory'));
      expect(note).toMatch(/write files for the caller in out\//);
      return { ...body, script: body.script.replace('png("scatter.png"', 'png("out/scatter.png"') };
    },
    check: (r) => expect(r.files?.map((f) => [f.name, f.mimeType])).toEqual([['scatter.png', 'image/png']]),
    maxBytes: 48 * 1024,
  },
  {
    name: 'null in a variable',
    // JSON null inside an array is R's NA of the array's type.
    first: { script: 'c(n = sum(is.na(scores)), mean = mean(scores, na.rm = TRUE))', variables: [{ name: 'scores', value: [4, null, 8] }] },
    check: (r) => expect(json(r)).toEqual({ n: 1, mean: 6 }),
  },
  {
    name: 'fit, then predict in a later call',
    // A REPL-style conversation: the later steps send only their own code.
    first: { script: 'cars2 <- transform(mtcars, heavy = wt > 3.5)\nfit <- glm(am ~ hp + heavy, data = cars2, family = binomial)\nround(coef(fit), 3)' },
    check: (r) => expect(Object.keys(json(r) as object)).toEqual(['(Intercept)', 'hp', 'heavyTRUE']),
    then: [
      {
        // A fitted model is not kept between calls (the answer names it): the step re-fits from the kept data.
        body: { script: 'fit <- glm(am ~ hp + heavy, data = cars2, family = binomial)\nround(predict(fit, data.frame(hp = 110, heavy = FALSE), type = "response"), 3)' },
        check: (r) => {
          expect(r.session).toMatchObject({ state: 'restored', call: 2 });
          expect(typeof json(r)).toBe('object');
        },
      },
      {
        body: { script: 'nrow(cars2)' },
        check: (r) => expect(json(r)).toBe(32),
      },
    ],
  },
];

const bytesOf = (value: unknown) => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value)));
const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).filter(Boolean).join('\n');

/** The /execute answer an r_execute result stands for: each plot's and file's bytes taken from the content item structuredContent points at. */
function executeResponseOf(result: CallToolResult): ExecuteResponse {
  const structured = McpExecuteResultSchema.parse(result.structuredContent);
  const item = (index: number | undefined) => (index === undefined ? undefined : result.content[index]);
  const plots = structured.plots?.map(({ content, ...plot }) => {
    const image = item(content);
    return { ...plot, data: image?.type === 'image' ? image.data : '' };
  });
  const files = structured.files?.map(({ content, ...file }) => {
    const embedded = item(content);
    if (embedded?.type !== 'resource') return file;
    const resource = embedded.resource as { text?: string; blob?: string };
    return { ...file, data: resource.blob ?? Buffer.from(resource.text ?? '', 'utf8').toString('base64') };
  });
  const { plots: _plots, files: _files, ...rest } = structured;
  return { ...rest, ...(plots ? { plots } : {}), ...(files ? { files } : {}) };
}

/** An MCP session of its own: a task's calls share its workspace, and no other task's. */
async function mcpSession(): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createJubeRMcpServer({ api, session: newSessionId(), health }).connect(serverSide);
  const client = new Client({ name: 'agent-suite', version: '0' });
  await client.connect(clientSide);
  return { client, close: () => client.close() };
}

/** One round trip: r_validate, then r_execute when the script is valid. */
async function attempt(client: Client, body: Body): Promise<Reply> {
  const validated = (await client.callTool({ name: 'r_validate', arguments: { script: body.script } })) as CallToolResult;
  const validation = ValidationResultSchema.parse(validated.structuredContent);
  const read = { text: textOf(validated), contentBytes: bytesOf(validated.content), structuredBytes: bytesOf(validated.structuredContent) };
  if (!validation.valid) return { validation, ...read };
  const executed = (await client.callTool({ name: 'r_execute', arguments: body })) as CallToolResult;
  const response = executeResponseOf(executed);
  const text = textOf(executed);
  // What a fix needs reaches the model's text: the failing line and every hint.
  if (response.status === 'error' && response.errorDetails) {
    for (const hint of response.errorDetails.hints ?? []) expect(text).toContain(hint);
    if (response.errorDetails.line !== undefined) expect(text).toContain(`At line ${response.errorDetails.line}`);
  }
  return {
    validation,
    response,
    text: `${read.text}\n${text}`,
    contentBytes: read.contentBytes + bytesOf(executed.content),
    structuredBytes: read.structuredBytes + bytesOf(executed.structuredContent),
  };
}

interface Outcome {
  readonly replies: Reply[];
  readonly ms: number;
  readonly firstTryOk: boolean;
  readonly ok: boolean;
  /** What stopped the task (a fix's assertion: the response lacked what it needed), raised in its own test. */
  readonly error?: unknown;
}

const succeeded = (task: Task, reply: Reply) =>
  reply.response !== undefined && (task.done ? task.done(reply.response) : reply.response.status === 'ok');

async function runTask(task: Task): Promise<Outcome> {
  const started = Date.now();
  const replies: Reply[] = [];
  const session = await mcpSession();
  try {
    const outcome = await tripsOf(session.client, task, replies).catch((error: unknown) => ({ replies, firstTryOk: false, ok: false, error }));
    return { ...outcome, ms: Date.now() - started };
  } finally {
    await session.close();
  }
}

async function tripsOf(client: Client, task: Task, replies: Reply[]): Promise<Omit<Outcome, 'ms'>> {
  let body = task.first;
  for (let trip = 1; trip <= 2; trip++) {
    const reply = await attempt(client, body);
    replies.push(reply);
    if (succeeded(task, reply)) {
      // The later steps, each once: the workspace is the session's, so none sends earlier code again.
      for (const step of task.then ?? []) {
        const next = await attempt(client, step.body);
        replies.push(next);
        expect(next.response?.status, JSON.stringify(next.response ?? next.validation).slice(0, 1000)).toBe('ok');
        step.check(next.response!);
      }
      return { replies, firstTryOk: trip === 1, ok: true };
    }
    if (trip === 2 || !task.fix) break;
    body = task.fix(reply, body);
  }
  return { replies, firstTryOk: false, ok: false };
}

const outcomes = new Map<string, Outcome>();

beforeAll(async () => {
  data = await mkdtemp(path.join(tmpdir(), 'jube-agent-suite-'));
  await mkdir(path.join(data, TENANT));
  await writeFile(path.join(data, TENANT, 'sales-2026.csv'), 'region,month,units\nnorth,1,10\nsouth,1,7\nnorth,2,12\nsouth,2,9\n');
  stack = await startStack({
    JUBE_R_WARM: 'on',
    JUBE_R_MAX_INFLIGHT_EXECUTE: '2',
    JUBE_R_DATA_DIR: data,
    JUBE_R_SCRIPT_TIMEOUT_SECONDS: String(TIMEOUT_MAX),
    JUBE_R_SCRIPT_TIMEOUT_SECONDS_MAX: String(TIMEOUT_MAX),
    // R's own time limit, which says where the script was, must fire before the backstop, even under load.
    JUBE_R_KILL_GRACE_SECONDS: '3',
  });
  health = HealthResponseSchema.parse((await request(`${stack.url}/health?detail=full`)).json);
  limits = health.limits;
  api = createJubeRClient({ baseUrl: stack.url, tenant: TENANT });
  // Two lanes, one per execution slot: what the stack serves at once.
  const queue = [...TASKS];
  const lane = async () => {
    for (let task = queue.shift(); task; task = queue.shift()) outcomes.set(task.name, await runTask(task));
  };
  await Promise.all([lane(), lane()]);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (data) await rm(data, { recursive: true, force: true });
});

const steps = (task: Task) => (task.then ?? []).length;
const sum = (replies: readonly Reply[], key: 'contentBytes' | 'structuredBytes') => replies.reduce((total, r) => total + r[key], 0);
const textBytes = (replies: readonly Reply[]) => replies.reduce((total, r) => total + Buffer.byteLength(r.text), 0);

describe('the agent suite', () => {
  it('has 30 tasks with distinct names', () => {
    expect(new Set(TASKS.map((t) => t.name)).size).toBe(30);
  });

  it('starts a model with tools/list and r_health in few bytes (printed for the record)', async () => {
    const session = await mcpSession();
    try {
      const list = bytesOf(await session.client.listTools());
      const healthResult = (await session.client.callTool({ name: 'r_health', arguments: {} })) as CallToolResult;
      const sizes = { toolsList: list, rHealthContent: bytesOf(healthResult.content), rHealthStructured: bytesOf(healthResult.structuredContent) };
      console.log(`agent suite, before the first script (bytes): ${JSON.stringify(sizes)}`);
      expect(sizes.toolsList).toBeLessThan(16 * 1024);
      expect(sizes.rHealthContent).toBeLessThan(4 * 1024);
    } finally {
      await session.close();
    }
  });

  it.each(TASKS.map((task) => [task.name, task] as const))('%s: done within 2 round trips, with what it asked for, in few bytes', (_name, task) => {
    const outcome = outcomes.get(task.name)!;
    if (outcome.error) throw outcome.error;
    const done = outcome.replies.at(-1 - steps(task))!;
    expect(outcome.ok, JSON.stringify(done.response ?? done.validation).slice(0, 2000)).toBe(true);
    expect(outcome.firstTryOk).toBe(!task.buggy);
    expect(outcome.replies.length - steps(task)).toBeLessThanOrEqual(2);
    task.check(done.response!);
    const [content, structured, text] = [sum(outcome.replies, 'contentBytes'), sum(outcome.replies, 'structuredBytes'), textBytes(outcome.replies)];
    if (task.name === 'large output') {
      // Cut to the default output budget, whatever the script printed: the text, and the structured copy of it.
      const budget = limits.budgetConsoleBytesDefault + limits.budgetValueBytesDefault + 8 * 1024;
      expect(content).toBeLessThan(budget);
      expect(structured).toBeLessThan(budget);
    } else {
      expect(text).toBeLessThan(TEXT_BYTES);
      expect(content).toBeLessThan(task.maxBytes ?? TEXT_BYTES);
      // structuredContent carries no image or file bytes (a reference to its content item instead).
      expect(structured).toBeLessThan(TEXT_BYTES);
    }
  });

  it('succeeds first time on every task written right, and on all within 2 round trips (printed per task)', () => {
    const rows = TASKS.map((task) => {
      const o = outcomes.get(task.name)!;
      return {
        task: task.name,
        firstTry: o.firstTryOk ? 'ok' : 'fail',
        trips: o.replies.length,
        content: sum(o.replies, 'contentBytes'),
        text: textBytes(o.replies),
        structured: sum(o.replies, 'structuredBytes'),
        ms: o.ms,
      };
    });
    const width = Math.max(...rows.map((r) => r.task.length));
    const total = (key: 'trips' | 'content' | 'structured') => rows.reduce((s, r) => s + r[key], 0);
    console.log(
      [
        `${'task'.padEnd(width)}  first-try  trips  content  (text)   structured     ms`,
        ...rows.map((r) => `${r.task.padEnd(width)}  ${r.firstTry.padEnd(9)}  ${String(r.trips).padStart(5)}  ${String(r.content).padStart(7)}  ${`(${r.text})`.padEnd(7)}  ${String(r.structured).padStart(10)}  ${String(r.ms).padStart(5)}`),
        `${rows.filter((r) => r.firstTry === 'ok').length}/${rows.length} first try, ${total('trips')} round trips, ${total('content')} bytes of content, ${total('structured')} of structuredContent`,
      ].join('\n'),
    );
    const buggy = TASKS.filter((t) => t.buggy).length;
    expect(buggy).toBe(13);
    expect(rows.filter((r) => r.firstTry === 'ok').length).toBeGreaterThanOrEqual(TASKS.length - buggy);
    expect([...outcomes.values()].every((o) => o.ok)).toBe(true);
    expect(total('trips')).toBeLessThanOrEqual(TASKS.length + buggy + TASKS.reduce((s, t) => s + steps(t), 0));
  });
});
