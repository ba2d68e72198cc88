/**
 * The tools' descriptions, written for the model that calls them. The limits in them come from the
 * deployment's GET /health, never from here: a deployment that changes a limit changes what the
 * model reads. Without an answer from /health they say so and point at r_health.
 */
import type { HealthResponse } from '../../../layers/contract/api.ts';

export interface ToolDescriptions {
  readonly r_health: string;
  readonly r_packages: string;
  readonly r_validate: string;
  readonly r_execute: string;
  readonly r_help: string;
  readonly r_session_end: string;
}

function limitsText(health: HealthResponse | undefined): string {
  if (!health) return 'The limits could not be read from the service at startup: call r_health for them.';
  const l = health.limits;
  return [
    `Limits of this deployment (R ${health.rVersion}):`,
    `timeoutSeconds defaults to ${l.scriptTimeoutSecondsDefault} and is clamped to at most ${l.scriptTimeoutSecondsMax};`,
    `a script of at most ${l.maxScriptBytes} bytes;`,
    `console output kept up to ${l.maxConsoleOutputBytes} bytes (the middle is cut beyond), the value up to ${l.maxValueBytes} bytes;`,
    `at most ${l.maxPlots} plots (default ${l.plotWidthDefault}x${l.plotHeightDefault} px at ${l.plotDpiDefault} dpi; plots.width/height ${l.minPlotPixels}-${l.maxPlotPixels}, dpi ${l.minPlotDpi}-${l.maxPlotDpi});`,
    `at most ${l.maxFiles} files from out/ (${l.maxFilesBytes} bytes in all);`,
    `at most ${l.maxVariables} variables (arrays of at most ${l.maxVariableArrayLength}), ${l.maxDataframes} dataframes.`,
  ].join(' ');
}

export function toolDescriptions(health: HealthResponse | undefined): ToolDescriptions {
  return {
    r_health:
      "The R service's status: R version, every limit (timeouts, output, plot and file caps), the script rules (forbidden functions and why, blocked packages) and the defense layers below R. Call it to learn what a script may do before writing one.",
    r_packages:
      'The R packages installed in the sandbox, with versions. Only these (and base R) can be loaded with library(); nothing can be installed.',
    r_validate:
      'Checks an R script without running it, in milliseconds: syntax, forbidden functions (no system calls, network, files outside the working directory, environments or eval tricks), packages not installed. Call it before r_execute. Each finding has a code, a line and column and what to change; a script r_validate calls invalid is rejected by r_execute without running.',
    r_execute: [
      'Runs an R script in a sandboxed, fresh R process and returns what it printed, its last value, the plots it drew (as PNG images), the files it wrote to out/ (e.g. write.csv(df, "out/table.csv")), warnings and messages.',
      'Call r_validate first: a rejected script was never run, and each finding says what to change.',
      'A script error comes back as an error with its message, the line and the call first; fix the code and run again.',
      'Calls keep a workspace: the objects a call leaves (data frames, vectors, lists, functions), the packages it attached, its options and random state are there at the next call, so do not repeat earlier steps. The answer\'s session line says what the workspace holds and what it could not keep (a fitted model, an environment: make those again). r_session_end empties it.',
      'Pass data as variables (name/value), context (named JSON, bound as .context) or dataframes (stored data pointers), not inlined in the script.',
      'For a machine-readable answer, make the last expression the value to return, or print JSON between <<<JUBE_RESULT_START>>> and <<<JUBE_RESULT_END>>> (it comes back as result).',
      limitsText(health),
    ].join(' '),
    r_session_end:
      'Empties the R workspace r_execute calls share: its objects, attached packages and options are deleted, and the next r_execute starts from nothing. Use it to start an unrelated analysis.',
    r_help:
      "An installed R function's help page as plain text (usage and arguments first), from the sandbox's own library, without running R. Name the topic (a function) and, best, its package; an unknown topic gets the nearest installed topics.",
  };
}
