import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { definedErrorCodes, fromWireError, NotFoundError, toWireError } from '../../core/errors.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every code defined anywhere in the sources (`defineError('JCT_…'`). */
function codesInSources(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const file of [...sourceFiles(join(root, 'core')), ...sourceFiles(join(root, 'plugins'))]) {
    for (const m of readFileSync(file, 'utf8').matchAll(/defineError\(\s*'(JCT_[A-Z0-9_]+)'/g)) {
      codes.set(m[1]!, file.slice(root.length));
    }
  }
  return codes;
}

describe('core/errors', () => {
  const documented = new Set(
    [...readFileSync(join(root, 'docs/errors.md'), 'utf8').matchAll(/^\|\s*`(JCT_[A-Z0-9_]+)`\s*\|/gm)].map(
      (m) => m[1]!,
    ),
  );

  it('documents every error code in docs/errors.md', () => {
    const undocumented = [...codesInSources()]
      .filter(([code]) => !documented.has(code))
      .map(([c, f]) => `${c} (${f})`);
    expect(undocumented, 'codes missing from docs/errors.md').to.deep.equal([]);
    for (const code of definedErrorCodes()) expect(documented, code).to.include(code);
  });

  it('documents no code that does not exist', () => {
    const defined = codesInSources();
    expect([...documented].filter((c) => !defined.has(c))).to.deep.equal([]);
  });

  it('rebuilds errors that crossed a boundary by code', () => {
    const wire = toWireError(new NotFoundError('no such thing'));
    expect(wire).to.deep.equal({ name: 'JunctionError', code: 'JCT_NOT_FOUND', message: 'no such thing' });
    const back = fromWireError(wire);
    expect(back).to.be.instanceOf(NotFoundError);
    expect((back as InstanceType<typeof NotFoundError>).statusCode).to.equal(404);
    const plain = Object.assign(new Error('teapot'), { status: 418 });
    const rebuilt = fromWireError(toWireError(plain)) as Error & { status?: number };
    expect(rebuilt.message).to.equal('teapot');
    expect(rebuilt.status).to.equal(418);
  });
});
