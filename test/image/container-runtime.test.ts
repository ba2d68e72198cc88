/**
 * The container runtime behaves like one Lambda execution environment: when its runtime dies
 * mid-invocation the caller gets a function error at once (not a hang), and the next
 * invocation is served by a fresh container.
 */
import { randomUUID } from 'node:crypto';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PODMAN, startContainerRuntime, type ContainerRuntime } from '../../functions/local/container-runtime.ts';
import { ExecuteResponseSchema } from '../../layers/contract/execute.ts';
import { buildImage, IMAGE } from './image-harness.ts';

let runtime: ContainerRuntime | undefined;

beforeAll(async () => {
  await buildImage();
  runtime = await startContainerRuntime({ image: IMAGE });
});

afterAll(async () => {
  await runtime?.close();
});

describe('container runtime', () => {
  it('fails a running invocation when the container dies, then replaces the container', async () => {
    // Prepare
    const rt = runtime!;
    const first = rt.containerId();
    const running = rt.invoke({ script: 'repeat { x <- 1 }', timeoutSeconds: 30 }, { requestId: randomUUID(), timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    // Act
    await execa(PODMAN[0], [...PODMAN.slice(1), 'kill', first]);
    const outcome = await running;
    const next = await rt.invoke({ script: 'cat("alive")', timeoutSeconds: 10 }, { requestId: randomUUID(), timeoutMs: 60_000 });

    // Assess
    expect(outcome).toMatchObject({ ok: false, errorType: 'Runtime.ExitError' });
    expect(rt.containerId()).not.toBe(first);
    expect(next.ok).toBe(true);
    expect(ExecuteResponseSchema.parse(next.ok ? next.payload : undefined).consoleOutput).toContain('alive');
  });

  it('removes its container on close', async () => {
    // Prepare
    const own = await startContainerRuntime({ image: IMAGE });
    const id = own.containerId();

    // Act
    await own.close();
    const exists = await execa(PODMAN[0], [...PODMAN.slice(1), 'container', 'exists', id], { reject: false });

    // Assess
    expect(exists.exitCode).toBe(1);
  });
});
