import { expect } from 'chai';
import { ServiceError } from '../../../core/sandbox/errors.js';
import { ServiceNotFoundError } from '../../../core/services/errors.js';
import { answerForServiceError } from '../../../plugins/alias/service-errors.js';

describe('plugins/alias service errors', () => {
  it('answers a service error (as the sandbox rebuilds it) with its status, message and code', () => {
    const err = new ServiceError('no such order', { status: 404, code: 'ORDER_MISSING' });
    const answer = answerForServiceError(err, 'a.B.c');
    expect(answer.statusCode).to.equal(404);
    expect(answer.toJSON()).to.deep.equal({ message: 'no such order', code: 'ORDER_MISSING' });
  });

  it('keeps Junction errors (time-out, unknown service) as they are', () => {
    const err = new ServiceNotFoundError('service x not found');
    expect(answerForServiceError(err, 'x')).to.equal(err);
  });

  it('maps an error that did not come through the sandbox the same way, without its stack', () => {
    const withStatus = Object.assign(new Error('bad qty'), { status: 422, code: 'QTY' });
    withStatus.stack = 'Error: bad qty\n    at secret (file.js:1:1)';
    const a = answerForServiceError(withStatus, 'a.B.c');
    expect(a.statusCode).to.equal(422);
    expect(a.toJSON()).to.deep.equal({ message: 'The service a.B.c failed: bad qty', code: 'QTY' });
    const plain = answerForServiceError(new Error('boom'), 'a.B.c');
    expect(plain.statusCode).to.equal(500);
    expect(plain.toJSON()).to.deep.equal({
      message: 'The service a.B.c failed: boom',
      code: 'JCT_ALIAS_SERVICE_FAILED',
    });
  });

  it('ignores a status outside 400..599 and a code that is not a plain name', () => {
    expect(answerForServiceError(Object.assign(new Error('x'), { status: 200 }), 's').statusCode).to.equal(
      500,
    );
    expect(answerForServiceError(Object.assign(new Error('x'), { status: 99.5 }), 's').statusCode).to.equal(
      500,
    );
    const badCode = answerForServiceError(Object.assign(new Error('x'), { status: 400, code: 'a <b>' }), 's');
    expect(badCode.code).to.equal('JCT_ALIAS_SERVICE_FAILED');
    expect(badCode.statusCode).to.equal(400);
  });

  it('copes with a thrown value that is not an Error', () => {
    expect(answerForServiceError('just a string', 's').toJSON()).to.deep.equal({
      message: 'The service s failed',
      code: 'JCT_ALIAS_SERVICE_FAILED',
    });
  });
});
