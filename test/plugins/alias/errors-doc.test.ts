import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { definedErrorCodes } from '../../../core/errors.js';
import '../../../plugins/alias/errors.js';
import '../../../plugins/tracker/errors.js';

describe('plugins/alias and plugins/tracker: error codes', () => {
  it('are all listed in docs/errors.md, in their own sections', () => {
    const doc = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
    const section = (title: string) => doc.slice(doc.indexOf(`## ${title}`)).split('\n## ')[0]!;
    for (const [prefix, title] of [
      ['JCT_ALIAS_', 'Alias'],
      ['JCT_TRACKER_', 'Tracker'],
    ] as const) {
      const codes = definedErrorCodes().filter((c) => c.startsWith(prefix));
      expect(codes).not.to.be.empty;
      for (const code of codes) expect(section(title), code).to.contain(`\`${code}\``);
    }
  });
});
