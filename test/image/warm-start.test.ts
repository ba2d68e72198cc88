/**
 * The warm start in the image, through its real entrypoint and the Runtime API emulator's
 * Extensions API: the handler's internal extension registers during init, a warm runner takes each
 * call, and the next runner starts after the response has left: the caller has its answer before
 * the extension asks for the next event, and the Invoke phase's post-response part (the runner's
 * start, billed in Lambda) is not in the response time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { startContainerRuntime, type ContainerRuntime } from '../../functions/tools/local/container-runtime.ts';
import { buildImage, IMAGE } from './image-harness.ts';

let runtime: ContainerRuntime | undefined;

beforeAll(async () => {
  await buildImage();
  runtime = await startContainerRuntime({ image: IMAGE });
});

afterAll(async () => {
  await runtime?.close();
});

describe('the warm start in the image', () => {
  it('starts the next runner after the response, off the caller\'s path, and the next call takes it', async () => {
    const rt = runtime!;
    const calls: { requestId: string; answeredAt: number }[] = [];
    for (let i = 0; i < 3; i += 1) {
      const requestId = randomUUID();
      const outcome = await rt.invoke({ script: 'x <- 1 + 1\nx', timeoutSeconds: 30 }, { requestId, timeoutMs: 60_000 });
      calls.push({ requestId, answeredAt: Date.now() });
      if (!outcome.ok) throw new Error(`${outcome.errorType}: ${outcome.errorMessage}\n${await rt.logs()}`);
      expect(ExecuteResponseSchema.parse(outcome.payload).status).toBe('ok');
    }
    // The extension's post-response work ends when the next invocation may go out: wait for the last.
    await rt.invoke({ script: '1', timeoutSeconds: 30 }, { requestId: randomUUID(), timeoutMs: 60_000 });

    expect(rt.extensions()).toEqual(['jube-r-warm-start']);
    const logs = await rt.logs();
    expect((logs.match(/"start":"warm"/g) ?? []).length).toBeGreaterThanOrEqual(3);
    for (const { requestId, answeredAt } of calls) {
      const phase = rt.invokePhase(requestId)!;
      const responseMs = phase.respondedAt! - phase.deliveredAt;
      const postResponseMs = phase.extensionsDoneAt! - phase.respondedAt!;
      // The caller had the answer before the extension was done starting the next runner...
      expect(answeredAt).toBeLessThanOrEqual(phase.extensionsDoneAt!);
      // ... which took an R start-up (and the warm packages' load), none of it in the response time.
      expect(postResponseMs).toBeGreaterThan(100);
      console.log(`warm call: response ${responseMs} ms, post-response runner start ${postResponseMs} ms`);
    }
  });
});
