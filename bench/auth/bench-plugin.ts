import type { JunctionPlugin } from '../../core/plugins/types.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../../plugins/auth/types.js';

const ok = { type: 'object', properties: { ok: { type: 'boolean' } } } as const;

/** Two no-op routes that differ only in the bearer check, to price the check. */
export const benchPlugin: JunctionPlugin = {
  name: 'auth-bench',
  dependsOn: ['auth'],
  register(app) {
    const verifier = app.container.resolve<BearerVerifier>(AUTH_VERIFIER);
    app.route({
      method: 'GET',
      url: '/bench/open',
      schema: { response: { 200: ok } },
      handler: async () => ({ ok: true }),
    });
    app.route({
      method: 'GET',
      url: '/bench/protected',
      schema: { response: { 200: ok } },
      handler: async (request) => {
        await verifier.require(request.headers.authorization, { groups: ['bench'] });
        return { ok: true };
      },
    });
  },
};
