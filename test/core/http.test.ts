import { expect } from 'chai';
import type { Junction } from '../../core/app.js';
import type { JunctionPlugin } from '../../core/plugins/types.js';
import { testApp } from '../helpers.js';

const echoPlugin: JunctionPlugin = {
  name: 'echo',
  register(app) {
    app.route({
      method: 'POST',
      url: '/echo',
      schema: {
        body: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, count: { type: 'integer' } },
        },
      },
      handler: async (request) => request.body,
    });
    app.route({
      method: 'GET',
      url: '/boom',
      handler: async () => {
        throw new Error('secret internal detail');
      },
    });
  },
};

describe('core/http', () => {
  let app: Junction;
  beforeEach(async () => {
    app = await testApp({ plugins: [{ plugin: echoPlugin }] });
  });
  afterEach(() => app.stop());

  it('answers /health with the storage state', async () => {
    const res = await app.inject('/health');
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ status: 'ok', storage: 'open' });
  });

  it('answers XML when Accept prefers it', async () => {
    const res = await app.inject({ url: '/health', headers: { accept: 'application/xml' } });
    expect(res.headers['content-type']).to.match(/^application\/xml/);
    expect(res.body).to.contain('<response><status>ok</status><storage>open</storage></response>');
    const json = await app.inject({
      url: '/health',
      headers: { accept: 'application/xml;q=0.5, application/json' },
    });
    expect(json.headers['content-type']).to.match(/^application\/json/);
  });

  it('answers errors in XML too', async () => {
    const res = await app.inject({ url: '/nope', headers: { accept: 'text/xml' } });
    expect(res.statusCode).to.equal(404);
    expect(res.body).to.contain('<error><message>');
    expect(res.body).to.contain('<code>JCT_NOT_FOUND</code>');
  });

  it('answers a malformed URL in the error model', async () => {
    const res = await app.inject('/echo/%E0%A4%A');
    expect(res.statusCode).to.equal(400);
    expect(res.json().code).to.equal('JCT_VALIDATION');
    expect(Object.keys(res.json())).to.deep.equal(['message', 'code']);
  });

  it('rejects malformed JSON with 400 JCT_BAD_JSON', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).to.equal(400);
    expect(res.json()).to.deep.equal({ message: 'The request body is not valid JSON', code: 'JCT_BAD_JSON' });
  });

  it('names the invalid field in a 400', async () => {
    const missing = await app.inject({ method: 'POST', url: '/echo', payload: { count: 1 } });
    expect(missing.statusCode).to.equal(400);
    expect(missing.json().code).to.equal('JCT_VALIDATION');
    expect(missing.json().message).to.contain('"name"');
    const wrong = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'a', count: 'many' } });
    expect(wrong.statusCode).to.equal(400);
    expect(wrong.json().message).to.contain('"count"');
  });

  it('rejects an oversized body with 413', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      payload: { name: 'x'.repeat(2 * 1024 * 1024) },
    });
    expect(res.statusCode).to.equal(413);
    expect(res.json()).to.deep.equal({
      message: 'The request body is too large',
      code: 'JCT_BODY_TOO_LARGE',
    });
  });

  it('rejects an unsupported content type with 415', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/x-unknown' },
      payload: 'data',
    });
    expect(res.statusCode).to.equal(415);
    expect(res.json().code).to.equal('JCT_UNSUPPORTED_MEDIA_TYPE');
  });

  it('never sends a stack trace or an internal message', async () => {
    const res = await app.inject('/boom');
    expect(res.statusCode).to.equal(500);
    expect(res.json()).to.deep.equal({ message: 'Internal server error', code: 'JCT_INTERNAL' });
    expect(res.body).not.to.contain('secret');
    expect(res.body).not.to.contain(' at ');
  });

  it('serves Prometheus metrics and the OpenAPI document', async () => {
    await app.inject('/health');
    const metrics = await app.inject('/metrics');
    expect(metrics.headers['content-type']).to.match(/^text\/plain/);
    expect(metrics.body).to.contain('junction_http_request_duration_seconds');
    const openapi = await app.inject('/openapi.json');
    const doc = openapi.json();
    expect(doc.openapi).to.match(/^3\./);
    expect(doc.paths).to.have.property('/echo');
    expect(doc.paths['/echo'].post.requestBody).to.exist;
  });
});
