import { expect } from 'chai';
import { fromWireError, JunctionError, toWireError } from '../../../core/errors.js';
import { ServiceNotFoundError } from '../../../core/services/errors.js';
import { answerForServiceError } from '../../../plugins/alias/service-errors.js';

/** An error as a service throws it, after crossing the isolate and thread boundaries. */
function thrown(props: { message: string; status?: number; code?: string }): Error {
  const err = Object.assign(new Error(props.message), props);
  err.stack = 'Error: secret\n    at internal (file.js:1:1)';
  return fromWireError(toWireError(err));
}

describe('plugins/alias service errors', () => {
  it('answers a numeric status with the service message and code', () => {
    const answer = answerForServiceError(
      thrown({ message: 'no such order', status: 404, code: 'ORDER_MISSING' }),
      'a.B.c',
    );
    expect(answer).to.be.instanceOf(JunctionError);
    expect(answer.statusCode).to.equal(404);
    expect(answer.toJSON()).to.deep.equal({ message: 'no such order', code: 'ORDER_MISSING' });
  });

  it('gives a status without a code JCT_ALIAS_SERVICE_ERROR', () => {
    const answer = answerForServiceError(thrown({ message: 'bad qty', status: 422 }), 'a.B.c');
    expect(answer.statusCode).to.equal(422);
    expect(answer.toJSON()).to.deep.equal({ message: 'bad qty', code: 'JCT_ALIAS_SERVICE_ERROR' });
  });

  it('answers any other throw 500 with the message and never the stack', () => {
    const answer = answerForServiceError(thrown({ message: 'boom' }), 'a.B.c');
    expect(answer.statusCode).to.equal(500);
    expect(answer.toJSON()).to.deep.equal({
      message: 'The service a.B.c failed: boom',
      code: 'JCT_ALIAS_SERVICE_FAILED',
    });
    expect(JSON.stringify(answer.toJSON())).not.to.contain('file.js');
  });

  it('ignores a status outside 400..599 and a code that is not a plain name', () => {
    expect(answerForServiceError(thrown({ message: 'x', status: 200 }), 's').statusCode).to.equal(500);
    expect(answerForServiceError(thrown({ message: 'x', status: 99.5 }), 's').statusCode).to.equal(500);
    expect(
      answerForServiceError(thrown({ message: 'x', status: 400, code: 'has spaces <b>' }), 's').code,
    ).to.equal('JCT_ALIAS_SERVICE_ERROR');
  });

  it('keeps Junction errors (time-out, unknown service) as they are', () => {
    const err = new ServiceNotFoundError('service x not found');
    expect(answerForServiceError(err, 'x')).to.equal(err);
  });

  it('copes with a thrown value that is not an Error', () => {
    expect(answerForServiceError('just a string', 's').toJSON()).to.deep.equal({
      message: 'The service s failed',
      code: 'JCT_ALIAS_SERVICE_FAILED',
    });
  });
});
