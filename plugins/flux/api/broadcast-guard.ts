import { ForbiddenError, UnauthorizedError } from '../../../core/errors.js';
import type { ServiceRegistry, UserRef } from '../../../core/services/types.js';
import type { FluxDefinitionView } from '../engine/types.js';
import type { FluxAccess } from './access.js';
import type { WorkflowLookup } from './index.js';

const ELSE_EVENT = '$else';

/**
 * A broadcast event (no `contextId`) reaches contexts and starts triggered workflows the caller
 * never names. The engine delivers it to every match, so the API refuses a broadcast that could
 * reach a live workflow whose `access` the caller does not satisfy: one that lists the event in
 * `triggers`, or has a state with a transition on it (or on `$else`). 401 for an anonymous caller,
 * 403 otherwise; sending to one context by `contextId` is judged by that context alone.
 */
export class BroadcastGuard {
  constructor(
    private readonly workflow: WorkflowLookup,
    private readonly services: ServiceRegistry,
    private readonly access: FluxAccess,
  ) {}

  async check(event: string, user: UserRef | undefined): Promise<void> {
    for (const pkg of this.services.packages()) {
      if (pkg.status !== 'deployed') continue;
      for (const fluxName of pkg.workflows) {
        const live = this.workflow(pkg.name, fluxName);
        if (!live?.access || this.access.allows(user, live.access)) continue;
        if (!listensTo(live.definition, event)) continue;
        refuse(event, `${pkg.name}/${fluxName}`, user);
      }
    }
  }
}

function refuse(event: string, workflow: string, user: UserRef | undefined): never {
  const why = `event ${event} may reach workflow ${workflow}, which needs a user allowed by its access rule`;
  if (!user) {
    throw new UnauthorizedError(`${why}: send a bearer token`, {
      headers: { 'WWW-Authenticate': 'Bearer realm="junction"' },
    });
  }
  throw new ForbiddenError(`${why}; user ${user.username} is not`);
}

function listensTo(definition: FluxDefinitionView, event: string): boolean {
  if (definition.triggers.includes(event)) return true;
  return definition.states.some((state) => {
    const transitions = (state as { transitions?: { event?: unknown }[] }).transitions ?? [];
    return transitions.some((t) => t.event === event || t.event === ELSE_EVENT);
  });
}
