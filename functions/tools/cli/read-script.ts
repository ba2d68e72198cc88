/** A script argument of the CLI: a file path, or `-` for standard input. */
import { readFile } from 'node:fs/promises';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

export function readScript(source: string): Promise<string> {
  return source === '-' ? readStdin() : readFile(source, 'utf8');
}
