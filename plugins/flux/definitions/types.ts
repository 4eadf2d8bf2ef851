/**
 * A workflow definition compiled for the engine: the `*.flux.yaml` text validated and turned into
 * states with typed transitions. The raw document (what `GET /flux-api/definition` shows) is
 * kept beside it in `view`.
 */
import type { FluxDefinitionView } from '../engine/types.js';
import type { Duration } from './duration.js';

export interface InputSpec {
  expression: string;
  /** false: `expression` is taken as a literal string. */
  evaluate: boolean;
  /** Path of the field set in the action's input, e.g. `[order, id]`. */
  to: string[];
}

export interface ActionSpec {
  type: 'invokeCode' | 'invokeService' | 'none';
  /** `class.method` (or `pkg/class.method`) for invokeCode and invokeService. */
  service?: string;
  inputs: InputSpec[];
}

export type TransitionSpec =
  | { kind: 'immediate'; to: string; condition?: string }
  /** `event` may be `$else` (any other event) or `$exception` (the action threw). */
  | { kind: 'event'; to: string; event: string; condition?: string }
  | { kind: 'after'; to: string; duration: Duration; text: string }
  | { kind: 'at'; to: string; expression: string }
  | { kind: 'cron'; to: string; cron: string };

export type TimeTransition = Extract<TransitionSpec, { kind: 'after' | 'at' | 'cron' }>;

export interface StateSpec {
  name: string;
  /** Position in `states` (the `stateIndex` of history entries). */
  index: number;
  action?: ActionSpec;
  transitions: TransitionSpec[];
}

export interface FluxDefinition {
  packageName: string;
  fluxName: string;
  /** Identifies this version of the definition (a hash of its content). */
  version: string;
  /** Path of the file in its package, e.g. `flux/approval/OrderApproval.flux.yaml`. */
  file: string;
  triggers: string[];
  access?: { groups?: string[]; users?: string[] };
  states: StateSpec[];
  byName: Map<string, StateSpec>;
  view: FluxDefinitionView;
}

/** Special event names of transitions; events sent by clients may not start with `$`. */
export const ELSE_EVENT = '$else';
export const EXCEPTION_EVENT = '$exception';
