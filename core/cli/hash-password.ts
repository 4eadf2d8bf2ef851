import { hashPassword } from '../password.js';

/** `junction hash-password`: the password is read from stdin (one line), the hash printed. */
export async function runHashPassword(): Promise<number> {
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password.length === 0) {
    process.stderr.write('junction: no password given on stdin\n');
    return 1;
  }
  process.stdout.write(`${await hashPassword(password)}\n`);
  return 0;
}
