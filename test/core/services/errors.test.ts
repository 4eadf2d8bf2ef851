import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as errors from '../../../core/services/errors.js';

describe('core/services errors', () => {
  it('lists every registry error code in docs/errors.md, section "Services and sandbox"', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'errors.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Services and sandbox'));
    const codes = Object.values(errors).map((cls) => cls.code);
    expect(codes).to.have.members([
      'JCT_SERVICE_NOT_FOUND',
      'JCT_PACKAGE_NOT_FOUND',
      'JCT_HOST_FUNCTION_UNAVAILABLE',
    ]);
    for (const cls of Object.values(errors)) {
      expect(section, cls.code).to.match(new RegExp(`\\| \`${cls.code}\`\\s*\\| ${cls.statusCode}\\s`));
    }
  });
});
