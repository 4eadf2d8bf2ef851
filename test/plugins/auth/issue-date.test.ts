import { expect } from 'chai';
import { IssueDateFormatter } from '../../../plugins/auth/issue-date.js';

describe('plugins/auth: last_token_issued_date', () => {
  const at = Date.UTC(2026, 10, 21, 2, 5, 2);

  it('reads like the seed sample, in the configured time zone', () => {
    expect(new IssueDateFormatter('UTC').formatDate(at)).to.equal(
      'Saturday, November 21, 2026 2:05:02 AM UTC',
    );
    expect(new IssueDateFormatter('America/New_York').formatDate(at)).to.equal(
      'Friday, November 20, 2026 9:05:02 PM EST',
    );
    expect(new IssueDateFormatter('UTC').formatDate(at + 12 * 3600_000)).to.equal(
      'Saturday, November 21, 2026 2:05:02 PM UTC',
    );
  });

  it('renders each second afresh', () => {
    const f = new IssueDateFormatter('UTC');
    expect(f.formatDate(at)).to.contain('2:05:02');
    expect(f.formatDate(at + 999)).to.contain('2:05:02');
    expect(f.formatDate(at + 1000)).to.contain('2:05:03');
    expect(f.formatDate(at - 1)).to.contain('2:05:01');
  });
});
