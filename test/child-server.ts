import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const cliMain = fileURLToPath(new URL('../core/cli/main.js', import.meta.url));

export interface ChildServer {
  process: ChildProcess;
  address: string;
  stdout: string[];
  stderr: string[];
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Writes `yaml` as config.yaml in `dir`. */
export function writeConfig(dir: string, yaml: string): string {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, yaml);
  return file;
}

/** Runs `junction <args>` as a child process and waits for its listening line. */
export async function startChildServer(args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, ['--no-node-snapshot', cliMain, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const address = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      stdout.push(line);
      const m = /^Junction listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) =>
      reject(new Error(`server exited (${code}) before listening: ${stderr.join('\n')}`)),
    );
  });
  return { process: child, address, stdout, stderr, exited };
}

/** Runs `junction <args>` to completion. */
export function runCli(
  args: string[],
  input?: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--no-node-snapshot', cliMain, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input ?? '');
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
}
