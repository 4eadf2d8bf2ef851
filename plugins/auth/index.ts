import type { TimerHandle } from '../../core/clock.js';
import { ConfigError } from '../../core/errors.js';
import { MAX_ACCESS_TOKEN_TTL, MAX_REFRESH_TOKEN_TTL } from '../../core/config/load.js';
import type { JunctionApp, JunctionPlugin } from '../../core/plugins/types.js';
import { AuthMetrics } from './auth-metrics.js';
import { ClientAuthenticator } from './client-authenticator.js';
import { IssueDateFormatter } from './issue-date.js';
import { LoginThrottle } from './login-throttle.js';
import { registerOAuthRoutes } from './oauth-routes.js';
import { TokenService } from './token-service.js';
import { TokenStore } from './token-store.js';
import { AUTH_VERIFIER } from './types.js';
import { UserDirectory } from './user-directory.js';
import { TokenVerifier } from './verifier.js';

export { AUTH_VERIFIER, type AccessRule, type BearerVerifier } from './types.js';

/** How often expired tokens and old login failures are dropped from memory and disk. */
const SWEEP_INTERVAL_MS = 60_000;

export interface AuthPluginHooks {
  /** Where the first administrator's password is shown (default: standard output). */
  announce?: (text: string) => void;
}

/**
 * The built-in `auth` plugin: the OAuth 2.0 token, revocation and introspection endpoints, the
 * users, and the bearer verifier other plugins resolve under `AUTH_VERIFIER`. Its settings are
 * the `oauth` and `users` keys of config.yaml; it takes no plugin options. See docs/auth.md.
 *
 * A factory, because a plugin object carries the state of the one app it was registered with
 * (start/stop take no arguments): tests build one per app.
 */
export function createAuthPlugin(hooks: AuthPluginHooks = {}): JunctionPlugin {
  let app: JunctionApp | undefined;
  let tokens: TokenStore | undefined;
  let throttle: LoginThrottle | undefined;
  let sweepTimer: TimerHandle | undefined;

  const sweep = (): void => {
    sweepTimer = app!.clock.setTimeout(sweep, SWEEP_INTERVAL_MS);
    throttle!.prune();
    const ops = tokens!.sweep();
    // Not durable: an expired token that reappears after a crash is still expired.
    if (ops.length > 0) {
      tokens!.store.batch(ops, { durable: false }).catch((err: unknown) => {
        app!.logger.error({ err }, 'auth: deleting expired tokens failed');
      });
    }
  };

  return {
    name: 'auth',
    async register(junction, options) {
      const unknown = Object.keys(options ?? {});
      if (unknown.length > 0) {
        throw new ConfigError(
          `the auth plugin takes no options (got ${unknown.join(', ')}); it is configured by the oauth and users keys`,
        );
      }
      app = junction;
      const { config, clock, logger } = junction;
      const root = junction.storage.store('auth');
      tokens = new TokenStore(root.store('tokens'), clock);
      await tokens.load();
      const users = new UserDirectory(
        root.store('admin'),
        root.store('users'),
        logger,
        hooks.announce ?? ((text) => process.stdout.write(text)),
      );
      await users.load(config.users, junction.mode !== 'check');
      throttle = new LoginThrottle(clock, {
        maxFailures: config.oauth['max-failed-logins'],
        windowMs: config.oauth['lockout-window'] * 1000,
      });
      const service = new TokenService(
        tokens,
        users,
        throttle,
        clock,
        {
          // Capped again here: an embedder may build a config without core/config/load.ts.
          accessTtlMs: Math.min(config.oauth['access-token-ttl'], MAX_ACCESS_TOKEN_TTL) * 1000,
          refreshTtlMs: Math.min(config.oauth['refresh-token-ttl'], MAX_REFRESH_TOKEN_TTL) * 1000,
        },
        new IssueDateFormatter(config.server.timezone),
        logger,
        new AuthMetrics(junction.metrics, () => tokens!.size),
      );
      const clients = new ClientAuthenticator({
        clientId: config.oauth['client-id'],
        clientSecret: config.oauth['client-secret'],
        legacyClients: config.oauth['legacy-clients'],
      });
      junction.container.register(AUTH_VERIFIER, { useValue: new TokenVerifier(tokens, users) });
      registerOAuthRoutes(junction, clients, service);
      logger.info({ tokens: tokens.size }, 'auth: tokens loaded');
    },
    start() {
      sweepTimer = app!.clock.setTimeout(sweep, SWEEP_INTERVAL_MS);
    },
    stop() {
      if (sweepTimer) app!.clock.clearTimeout(sweepTimer);
      sweepTimer = undefined;
    },
  };
}

const plugin: JunctionPlugin = createAuthPlugin();
export default plugin;
