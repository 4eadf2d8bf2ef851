import { expect } from 'chai';
import { parseManifest } from '../../../core/services/manifest.js';

const label = 'orders/package.yaml';

describe('core/services/manifest', () => {
  it('applies the alias defaults of CONTRACT §3', () => {
    const { manifest, errors } = parseManifest(
      'name: orders\nversion: 1.2.0\naliases:\n  - url: /orders/{id}\n    service: approval.Checks.lookup\n',
      label,
    );
    expect(errors).to.deep.equal([]);
    expect(manifest!.aliases).to.deep.equal([
      {
        url: '/orders/{id}',
        service: 'approval.Checks.lookup',
        secured: false,
        logToTracker: false,
      },
    ]);
  });

  it('keeps every alias field given', () => {
    const text = [
      'name: orders',
      'version: "2"',
      'aliases:',
      '  - url: /orders/{id}/lines/{line}',
      '    service: other/approval.Checks.lookup',
      '    method: PUT',
      '    parameters: [id, verbose]',
      '    secured: true',
      '    users: [alice]',
      '    groups: [sales]',
      '    runAs: bob',
      '    logToTracker: true',
      '    documentType: OrderLookup',
    ].join('\n');
    const { manifest, errors } = parseManifest(text, label);
    expect(errors).to.deep.equal([]);
    expect(manifest!.aliases[0]).to.deep.equal({
      url: '/orders/{id}/lines/{line}',
      service: 'other/approval.Checks.lookup',
      method: 'PUT',
      parameters: ['id', 'verbose'],
      secured: true,
      users: ['alice'],
      groups: ['sales'],
      runAs: 'bob',
      logToTracker: true,
      documentType: 'OrderLookup',
    });
  });

  it('reports a YAML syntax error with its position', () => {
    const { manifest, errors } = parseManifest('name: [orders\nversion: 1', label);
    expect(manifest).to.equal(undefined);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.match(/^orders\/package\.yaml: YAML syntax error at line \d+, column \d+/);
  });

  it('names the file and the key of every unknown key', () => {
    const { errors } = parseManifest(
      'name: orders\nversion: "1"\ncolour: red\naliases:\n  - url: /x\n    service: A.b\n    verb: GET\n',
      label,
    );
    expect(errors).to.have.members([
      'orders/package.yaml: colour: unknown key',
      'orders/package.yaml: aliases[0].verb: unknown key',
    ]);
  });

  it('rejects malformed values, each with its key', () => {
    const text = [
      'name: 9lives',
      'version: 1.5',
      'aliases:',
      '  - url: orders',
      '    service: lookup',
      '    method: get',
      '    secured: "yes"',
      '  - url: /a/{id}/{id}',
      '    service: A.b',
    ].join('\n');
    const { errors } = parseManifest(text, label);
    expect(errors.join('\n')).to.include('orders/package.yaml: name: must start with a letter');
    expect(errors.join('\n')).to.include('orders/package.yaml: version: must be a string (quote it');
    expect(errors.join('\n')).to.include('aliases[0].url: must start with /');
    expect(errors.join('\n')).to.include('aliases[0].service: must be <className>.<methodName>');
    expect(errors.join('\n')).to.include('aliases[0].method: must be one of GET, HEAD, POST');
    expect(errors.join('\n')).to.include('aliases[0].secured: must be a boolean');
    const dup = parseManifest(
      'name: a\nversion: "1"\naliases:\n  - url: /a/{id}/{id}\n    service: A.b\n',
      label,
    );
    expect(dup.errors).to.deep.equal(['orders/package.yaml: aliases[0].url: variable {id} appears twice']);
  });

  it('rejects two aliases of the package answering the same requests', () => {
    const text = [
      'name: a',
      'version: "1"',
      'aliases:',
      '  - { url: "/a/{id}", service: A.b, method: GET }',
      '  - { url: "/a/{x}", service: A.c, method: POST }',
      '  - { url: "/a/{y}", service: A.d, method: GET }',
      '  - { url: "/b", service: A.d }',
      '  - { url: "/b", service: A.e, method: PUT }',
    ].join('\n');
    expect(parseManifest(text, label).errors).to.deep.equal([
      'orders/package.yaml: aliases[2]: GET /a/{y} answers the same requests as aliases[0]',
      'orders/package.yaml: aliases[4]: PUT /b answers the same requests as aliases[3]',
    ]);
  });

  it('requires name and version and a mapping at the top', () => {
    expect(parseManifest('version: "1"', label).errors).to.deep.equal([
      'orders/package.yaml: name: missing required key',
    ]);
    expect(parseManifest('- a', label).errors).to.deep.equal([
      'orders/package.yaml: the top level must be a mapping of keys',
    ]);
    expect(parseManifest('', label).errors).to.have.length(1);
  });
});
