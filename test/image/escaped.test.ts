/**
 * The red-team tier in the image posture (podman, read-only root, non-root user, no bubblewrap,
 * --network none), through the image's real entrypoint (tini, Node, the runtime interface client,
 * the Runtime API emulator). The R layer is assumed broken: the runner's test-only switch
 * (JUBE_R_TEST_ESCAPED_RUNNER) evaluates scripts with the real functions in reach.
 *
 * - With the capsule (kernel layers off, as in Lambda, and on): no command runs, no socket opens,
 *   no secret appears, nothing persists, the handler answers the next call.
 * - Without the capsule (the layers below it, alone): forks, double forks and setsid survivors are
 *   killed and reaped after every run (JUBE_R_SWEEP=environment, tini as PID 1), files in /tmp,
 *   /dev/shm are wiped, many trivial runs after a fork-heavy one all succeed, and a script that
 *   kills the handler costs only its own call.
 * - Credentials: the runtime injects canaries as Lambda does; no process's environ or cmdline and
 *   no file in the writable places holds them, before and after runs, searched by an escaped
 *   script and from the host (every process of the container); the control starts the image
 *   without its entrypoint's stripping.
 * - An environment that cannot be cleaned before a run answers `environment-not-clean` and is
 *   retired; the next call is served by a new one.
 * (A new environment per call is a new isolation key, test/image/container-runtime.test.ts: an
 * exit only resets an environment in the same microVM.)
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema, type ExecuteResponse } from '../../layers/contract/execute.ts';
import { CANARY_CREDENTIALS, PODMAN, startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { ENVIRONMENT_NOT_CLEAN } from '../../functions/execute/environment/hygiene-response.ts';
import type { InvokeAnswer } from '../../functions/tools/local/runtime.ts';
import { buildImage, IMAGE } from './image-harness.ts';

const FUNCTION_TIMEOUT_MS = 60_000;
/** What Lambda hands the runtime (credentials); no script may ever print it. */
const SECRET = 'escaped-image-canary-secret';
let runtime: ContainerRuntime | undefined;

beforeAll(async () => {
  await buildImage();
});

afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

async function start(env: Record<string, string>): Promise<ContainerRuntime> {
  runtime = await startContainerRuntime({
    image: IMAGE,
    env: { AWS_ACCESS_KEY_ID: 'AKIAESCAPED', AWS_SECRET_ACCESS_KEY: SECRET, JUBE_R_TEST_ESCAPED_RUNNER: 'true', ...env },
  });
  return runtime;
}

const invoke = (rt: ContainerRuntime, script: string, timeoutSeconds = 20): Promise<InvokeAnswer> =>
  rt.invoke({ script, timeoutSeconds }, { requestId: randomUUID(), timeoutMs: FUNCTION_TIMEOUT_MS });

function answered(outcome: InvokeAnswer): ExecuteResponse {
  if (!outcome.ok) throw new Error(`function error ${outcome.errorType}: ${outcome.errorMessage}`);
  return ExecuteResponseSchema.parse(outcome.payload);
}

/** R's parent in the image: the Node handler (prlimit execs Rscript). */
const PARENT = 'as.integer(strsplit(readLines("/proc/self/stat"), " ")[[1]][4])';
/** Lists every process's command line R can see, one per line (capsule off only). */
const PROCESS_LIST =
  'for (p in list.files("/proc", pattern = "^[0-9]+$")) { c <- tryCatch(readBin(file.path("/proc", p, "cmdline"), "raw", 4096), error = function(e) raw(0)); c[c == as.raw(0)] <- as.raw(32); cat("proc", p, rawToChar(c), "\\n") }';

const ATTACKS = [
  'try(cat(system("echo RAN-$((6*7))", intern = TRUE), "\\n"))',
  'q <- quote(I(s("echo RAN-$((6*7))", TRUE, 0L, FALSE))); q[[1]] <- as.name(paste0(".Inter", "nal")); q[[2]][[1]] <- as.name(paste0("sys", "tem")); try(cat(eval(q), "\\n"))',
  'try(cat(readLines(pipe("echo RAN-$((6*7))")), "\\n"))',
  'try(parallel::mcparallel(Sys.sleep(1234)))',
  'try({ con <- socketConnection("127.0.0.1", 9001, timeout = 2); writeLines("GET /2018-06-01/runtime/invocation/next HTTP/1.0\\r\\n", con); cat("RUNTIME-API", readLines(con), "\\n") })',
  `try(cat(readLines(sprintf("/proc/%d/environ", ${PARENT}), warn = FALSE), "\\n"))`,
  'try(cat(readLines("/proc/1/environ", warn = FALSE), "\\n"))',
  `try(tools::pskill(${PARENT}, 9L))`,
  'try(tools::pskill(1L, 9L))',
  'try(writeLines("persist", "/tmp/jube-r-persist"))',
  'try(writeLines("persist", "/dev/shm/jube-r-persist"))',
  'try(cat(readLines("/app/handler.mjs", n = 1), "\\n"))',
  'cat("attacks done\\n")',
];

describe.each([
  { posture: 'capsule alone (the Lambda posture)', kernel: 'off' },
  { posture: 'capsule with the kernel layers podman allows', kernel: 'auto' },
])('image, escaped script, $posture', ({ kernel }) => {
  it('runs no command, reaches neither the Runtime API nor a secret, and the next call is answered clean', async () => {
    const rt = await start({ JUBE_R_CAPSULE_KERNEL: kernel });
    // Act
    const attacked = answered(await invoke(rt, ATTACKS.join('\n')));
    const next = answered(await invoke(rt, 'cat(file.exists("/tmp/jube-r-persist"), file.exists("/dev/shm/jube-r-persist"), "\\n"); cat(1 + 1, "\\n")'));
    // Assess
    expect(attacked.consoleOutput).toContain('attacks done');
    expect(attacked.consoleOutput).not.toContain('RAN-42');
    expect(attacked.consoleOutput).not.toContain('RUNTIME-API');
    expect(attacked.consoleOutput).not.toContain(SECRET);
    expect(attacked.consoleOutput).not.toContain('AKIAESCAPED');
    expect(attacked.consoleOutput).not.toMatch(/handler|import /);
    expect(next).toMatchObject({ status: 'ok', consoleOutput: 'FALSE FALSE \n2 \n' });
    expect(rt.environmentsStarted()).toBe(1);
    const logs = await rt.logs();
    expect(logs).toMatch(new RegExp(`"sandboxLayers":\\[[^\\]]*"capsule-preload"`));
    expect(logs.match(/capsule-(landlock|seccomp)/g) !== null).toBe(kernel === 'auto');
  });
});

describe('image, escaped script without the capsule: the hygiene below it', () => {
  it('kills and reaps forks, double forks and setsid survivors, wipes /tmp and /dev/shm, and keeps serving', async () => {
    const rt = await start({ JUBE_R_CAPSULE: 'off', JUBE_R_RLIMIT_NPROC: '64' });
    // Act: a fork-heavy run that leaves everything it can behind.
    const heavy = answered(
      await invoke(
        rt,
        [
          'for (i in 1:20) system("sleep 1234 &")',
          'system("sh -c \'(sleep 1234 &) &\'")',
          'system("setsid env -i sh -c \'sleep 1234\' &")',
          'for (i in 1:10) parallel::mcparallel(Sys.sleep(1234))',
          'writeLines("persist", "/tmp/jube-r-persist"); writeLines("persist", "/dev/shm/jube-r-persist")',
          // The control: without the capsule the shell does run, so what follows tests the hygiene.
          'cat(system("echo SHELL-$((6*7))", intern = TRUE), "\\n")',
          'Sys.sleep(0.5); cat("left behind\\n")',
        ].join('\n'),
      ),
    );
    const trivial: ExecuteResponse[] = [];
    for (let i = 0; i < 25; i += 1) trivial.push(answered(await invoke(rt, 'cat(1)', 10)));
    const after = answered(await invoke(rt, `cat(file.exists("/tmp/jube-r-persist"), file.exists("/dev/shm/jube-r-persist"), "\\n")\n${PROCESS_LIST}`));
    // Assess
    expect(heavy.consoleOutput).toContain('SHELL-42');
    expect(heavy.consoleOutput).toContain('left behind');
    expect(trivial.every((r) => r.status === 'ok' && r.consoleOutput === '1')).toBe(true);
    expect(after.consoleOutput.split('\n')[0]).toBe('FALSE FALSE ');
    const processes = after.consoleOutput.split('\n').filter((l) => l.startsWith('proc '));
    // tini, node, and this run's own R: nothing else, and no zombie holds a slot.
    expect(processes.filter((l) => l.includes('sleep'))).toEqual([]);
    expect(processes.length).toBeLessThanOrEqual(3);
    expect(rt.environmentsStarted()).toBe(1);
  });

  it('a script that kills the handler costs only its own call; the next call is served by a new container (Lambda: the same environment, reset)', async () => {
    const rt = await start({ JUBE_R_CAPSULE: 'off' });
    const first = answered(await invoke(rt, 'cat("warm\\n")'));
    // Act
    const killed = await invoke(rt, `tools::pskill(${PARENT}, 9L)\nSys.sleep(5)`);
    const next = answered(await invoke(rt, 'cat("still served\\n")'));
    // Assess
    expect(first.consoleOutput).toBe('warm\n');
    expect(killed).toMatchObject({ ok: false, errorType: 'Runtime.ExitError' });
    expect(next).toMatchObject({ status: 'ok', consoleOutput: 'still served\n' });
    expect(rt.environmentsStarted()).toBe(2);
  });
});

/** A runtime in the production posture (no test switch). */
async function runtimeWith(env: Record<string, string>): Promise<ContainerRuntime> {
  runtime = await startContainerRuntime({ image: IMAGE, env });
  return runtime;
}

/** An escaped script (no R layer, no capsule) that reads every process's environ and cmdline and every writable file. */
const CANARY_SEARCH = [
  'needles <- c(paste0("jube-r-canar", "y"), paste0("ASIAJUBERCANAR", "Y"))',
  'holds <- function(b) !is.null(b) && any(vapply(needles, function(n) length(grepRaw(n, b, fixed = TRUE)) > 0, TRUE))',
  'grab <- function(f) tryCatch(suppressWarnings(readBin(f, "raw", 1e7)), error = function(e) NULL)',
  'hits <- character(); readable <- 0',
  'for (p in list.files("/proc", pattern = "^[0-9]+$")) for (f in c("environ", "cmdline")) {',
  '  b <- grab(file.path("/proc", p, f)); if (f == "environ" && !is.null(b)) readable <- readable + 1',
  '  if (holds(b)) hits <- c(hits, paste0(p, "/", f))',
  '}',
  'for (f in list.files(c("/tmp", "/dev/shm", "/var/tmp"), recursive = TRUE, full.names = TRUE, all.files = TRUE)) if (holds(grab(f))) hits <- c(hits, f)',
  'cat("readable", readable, "\\n"); cat("hits", if (length(hits)) hits else "none", "\\n")',
].join('\n');

/** Every process of the container, read from the host (root there reads what no process inside can). */
async function hostSearch(rt: ContainerRuntime): Promise<{ processes: number; hits: string[] }> {
  const { stdout } = await execa(PODMAN[0], [...PODMAN.slice(1), 'top', rt.containerId(), 'hpid']);
  const pids = stdout.split('\n').slice(1).map((l) => l.trim()).filter((l) => /^\d+$/.test(l));
  const hits: string[] = [];
  for (const pid of pids) {
    for (const file of ['environ', 'cmdline']) {
      const bytes = await readFile(`/proc/${pid}/${file}`).catch(() => Buffer.alloc(0));
      if (Object.values(CANARY_CREDENTIALS).some((v) => bytes.includes(v))) hits.push(`${pid}/${file}`);
    }
  }
  // The writable places, from inside, by a process started with an empty environment.
  const files = await execa(
    PODMAN[0],
    [...PODMAN.slice(1), 'exec', rt.containerId(), '/usr/bin/env', '-i', '/bin/sh', '-c', 'grep -rlE "jube-r-canar[y]|ASIAJUBERCANAR[Y]" /tmp /dev/shm /var/tmp /dev/mqueue 2>/dev/null; true'],
    { reject: false },
  );
  return { processes: pids.length, hits: [...hits, ...files.stdout.split('\n').filter(Boolean)] };
}

describe('image, canary credentials injected as Lambda injects them', () => {
  const search = async (rt: ContainerRuntime) => {
    const found = answered(await invoke(rt, CANARY_SEARCH)).consoleOutput;
    return { readable: Number(/readable (\d+)/.exec(found)?.[1]), hits: /hits (.*) \n/.exec(found)?.[1] };
  };

  it('no process and no writable file holds them, before and after runs, seen from inside and from the host', async () => {
    const rt = await start({ JUBE_R_CAPSULE: 'off' });
    // Act
    const before = await hostSearch(rt);
    const first = await search(rt);
    const second = await search(rt);
    const after = await hostSearch(rt);
    // Assess: the script's own environ is readable from inside (the search works); tini and Node,
    // execute-only and so non-dumpable, are not.
    expect(first.readable).toBeGreaterThanOrEqual(1);
    expect([first.hits, second.hits]).toEqual(['none', 'none']);
    expect(before.processes).toBeGreaterThanOrEqual(2);
    expect([before.hits, after.hits]).toEqual([[], []]);
  });

  it("control: started without the entrypoint's stripping, PID 1 exposes them to the script and the host sees them", async () => {
    runtime = await startContainerRuntime({
      image: IMAGE,
      // tini itself is non-dumpable (execute-only), so the control's PID 1 is a shell that stays
      // (`; exit`: no exec of the last command), holding the environment it was started with.
      entrypoint: ['/bin/sh', '-c', '/usr/bin/tini -- /usr/local/bin/node /app/node_modules/aws-lambda-ric/index.mjs; exit $?'],
      env: { JUBE_R_TEST_ESCAPED_RUNNER: 'true', JUBE_R_CAPSULE: 'off' },
    });
    const found = await search(runtime);
    const host = await hostSearch(runtime);
    expect(found.hits).toBe('1/environ');
    expect(host.hits.length).toBeGreaterThanOrEqual(2);
  });
});

describe('image, an environment that cannot be cleaned', () => {
  it('answers environment-not-clean without running the script, retires, and the next call is served clean', async () => {
    const rt = await runtimeWith({});
    const first = answered(await invoke(rt, 'cat("warm\\n")'));
    // Prepare: a file the function's user cannot remove (root's, in the sticky /tmp), as a fault would leave.
    await execa(PODMAN[0], [...PODMAN.slice(1), 'exec', '--user', 'root', rt.containerId(), '/bin/sh', '-c', 'echo x > /tmp/jube-r-stuck']);
    // Act
    const refused = answered(await invoke(rt, 'cat("must not run\\n")'));
    const next = answered(await invoke(rt, 'cat(file.exists("/tmp/jube-r-stuck"), "\\n")'));
    // Assess
    expect(first.consoleOutput).toBe('warm\n');
    expect(refused).toMatchObject({ status: 'error', errorType: 'interpreter', consoleOutput: '' });
    expect(refused.error).toMatch(new RegExp(`^${ENVIRONMENT_NOT_CLEAN}: .*\\(before-run\\): /tmp/jube-r-stuck could not be removed`));
    expect(next).toMatchObject({ status: 'ok', consoleOutput: 'FALSE \n' });
    expect(rt.environmentsStarted()).toBe(2);
  });
});
