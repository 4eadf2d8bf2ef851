#!/usr/bin/env node
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { runCheck } from './check.js';
import { runHashPassword } from './hash-password.js';
import { runServe } from './serve.js';

const USAGE = `usage: junction <command> [options]

commands:
  serve           run the server   [--config F] [--port N] [--host H] [--data-dir D] [--services D]
  hash-password   read a password on stdin, print its hash for config.yaml
  check           validate the configuration, packages and workflows   [--config F]
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      strict: true,
      options: {
        config: { type: 'string', short: 'c' },
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        services: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`junction: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const v = parsed.values;
  if (v.help || command === undefined || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  let port: number | undefined;
  if (v.port !== undefined) {
    port = Number(v.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      process.stderr.write(`junction: --port must be an integer from 0 to 65535\n`);
      return 2;
    }
  }
  const flags = {
    ...(port !== undefined ? { port } : {}),
    ...(v.host !== undefined ? { host: v.host } : {}),
    ...(v['data-dir'] !== undefined ? { dataDir: v['data-dir'] } : {}),
    ...(v.services !== undefined ? { servicesDir: v.services } : {}),
  };
  switch (command) {
    case 'serve':
      return runServe(v.config, flags);
    case 'check':
      return runCheck(v.config, flags);
    case 'hash-password':
      return runHashPassword();
    default:
      process.stderr.write(`junction: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`junction: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
