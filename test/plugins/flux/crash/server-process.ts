/**
 * A real Junction server in a child process (`junction serve`), for crash tests: started on a
 * config file, read its address from stdout, SIGKILLed, started again on the same data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/plugins/flux/crash/ → dist/core/cli/main.js
const CLI = fileURLToPath(new URL('../../../../core/cli/main.js', import.meta.url));
const LISTENING = /Junction listening on (http:\/\/\S+)/;

export interface ServerFolders {
  dataDir: string;
  servicesDir: string;
  /** Where config.yaml is written. */
  dir: string;
}

/** Writes a config.yaml for a LevelDB server on port 0 with only the flux plugin. */
export function writeConfig(folders: ServerFolders): string {
  const file = join(folders.dir, 'config.yaml');
  writeFileSync(
    file,
    [
      'server:',
      '  host: 127.0.0.1',
      '  port: 0',
      '  logLevel: error',
      `dataDir: ${JSON.stringify(folders.dataDir)}`,
      `servicesDir: ${JSON.stringify(folders.servicesDir)}`,
      'hotDeploy:',
      '  enabled: false',
      'sandbox:',
      '  threads: 1',
      'plugins:',
      '  - name: flux',
      '',
    ].join('\n'),
  );
  return file;
}

export class ServerProcess {
  private constructor(
    readonly child: ChildProcess,
    readonly address: string,
    private readonly output: () => string,
  ) {}

  /** Starts `junction serve --config <file>` and resolves once it prints its address. */
  static start(configFile: string, timeoutMs = 15_000): Promise<ServerProcess> {
    const child = spawn(process.execPath, ['--no-node-snapshot', CLI, 'serve', '--config', configFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const output = () => out;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the server did not start within ${timeoutMs} ms:\n${out}`));
      }, timeoutMs);
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        const match = LISTENING.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(new ServerProcess(child, match[1]!, output));
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the server exited (${code ?? signal}) before listening:\n${out}`));
      });
    });
  }

  get log(): string {
    return this.output();
  }

  /** SIGKILL: no shutdown, no flush. Resolves once the process is gone. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; json: Record<string, any> }> {
    const res = await fetch(this.address + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  }
}
