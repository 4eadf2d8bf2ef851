import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { definedErrorCodes } from '../../../core/errors.js';
import '../../../plugins/auth/errors.js';

describe('plugins/auth: error codes', () => {
  it('are all listed in docs/errors.md', () => {
    const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
    const codes = definedErrorCodes().filter((c) => c.startsWith('JCT_AUTH_'));
    expect(codes).not.to.be.empty;
    for (const code of codes) expect(doc, code).to.contain(`\`${code}\``);
  });
});
