/** Reads at most `limit` bytes of a request body; what lies beyond is never buffered. */
import type { IncomingMessage } from 'node:http';

export interface ReadBody {
  readonly body: Buffer;
  /** More bytes than `limit` were sent; `body` holds only the first `limit`. */
  readonly overflow: boolean;
}

export function readBody(request: IncomingMessage, limit: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (overflow: boolean) => {
      if (done) return;
      done = true;
      request.off('data', onData);
      resolve({ body: Buffer.concat(chunks, Math.min(size, limit)).subarray(0, limit), overflow });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        // Stop reading: the caller answers (413) and closes the connection.
        request.pause();
        finish(true);
      }
    };
    request.on('data', onData);
    request.once('end', () => finish(false));
    request.once('error', (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
  });
}
