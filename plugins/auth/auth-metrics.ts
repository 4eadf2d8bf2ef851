import { Counter, Gauge, type Registry } from 'prom-client';

export type GrantOutcome = 'issued' | 'refused' | 'locked' | 'reuse';

/** What an operator watches of auth on `/metrics`. */
export class AuthMetrics {
  private readonly grants: Counter<'grant_type' | 'outcome'>;

  constructor(registry: Registry, tokensInMemory: () => number) {
    this.grants = new Counter({
      name: 'junction_auth_grants_total',
      help: 'Token endpoint grants by grant type and outcome (issued, refused, locked, reuse)',
      labelNames: ['grant_type', 'outcome'],
      registers: [registry],
    });
    new Gauge({
      name: 'junction_auth_tokens',
      help: 'Tokens held in memory (live, plus retired refresh tokens kept for reuse detection)',
      registers: [registry],
      collect() {
        this.set(tokensInMemory());
      },
    });
  }

  grant(grantType: 'password' | 'refresh_token', outcome: GrantOutcome): void {
    this.grants.inc({ grant_type: grantType, outcome });
  }
}
