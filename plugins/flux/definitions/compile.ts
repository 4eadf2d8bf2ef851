/**
 * Validation of a workflow document and its compilation into a FluxDefinition. Every problem is
 * collected (not only the first) and named by file and state, so one failed deploy shows them all.
 */
import { createHash } from 'node:crypto';
import { CronExpressionParser } from 'cron-parser';
import type { FluxDefinitionView } from '../engine/types.js';
import { isZero, parseDuration } from './duration.js';
import {
  ELSE_EVENT,
  EXCEPTION_EVENT,
  type ActionSpec,
  type FluxDefinition,
  type InputSpec,
  type StateSpec,
  type TransitionSpec,
} from './types.js';

const TOP_KEYS = new Set(['comment', 'triggers', 'access', 'states']);
const STATE_KEYS = new Set([
  'name',
  'displayName',
  'x',
  'y',
  'comment',
  'action',
  'input',
  'output',
  'transitions',
]);
const ACTION_KEYS = new Set([
  'type',
  'className',
  'methodName',
  'service',
  'parameters',
  'inputs',
  'comment',
]);
const TRANSITION_KEYS = new Set(['to', 'event', 'condition', 'after', 'at', 'cron', 'comment']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/** `flux/approval/OrderApproval.flux.yaml` → `approval.OrderApproval`. */
export function fluxNameOf(file: string): string {
  return file
    .replace(/^flux\//, '')
    .replace(/\.flux\.yaml$/, '')
    .split('/')
    .join('.');
}

export interface CompileResult {
  definition?: FluxDefinition;
  errors: string[];
}

/**
 * Compiles the parsed YAML `doc` of `file`. `services` are the package's own services
 * (`class.method`): an unqualified service name an action calls must be one of them.
 */
export function compileDefinition(
  packageName: string,
  file: string,
  doc: unknown,
  services?: readonly string[],
): CompileResult {
  const errors: string[] = [];
  const fail = (where: string, message: string) => errors.push(`${file}: ${where}${message}`);
  if (!isObj(doc)) {
    fail('', 'the document must be a mapping with `states`');
    return { errors };
  }
  for (const key of Object.keys(doc)) if (!TOP_KEYS.has(key)) fail('', `unknown key "${key}"`);
  if (doc.comment !== undefined && typeof doc.comment !== 'string') fail('', '`comment` must be a string');
  const triggers = doc.triggers ?? [];
  if (!isStrings(triggers) || triggers.some((t) => !nonEmpty(t) || t.startsWith('$'))) {
    fail('', '`triggers` must be a list of event names (not starting with $)');
  }
  let access: FluxDefinition['access'];
  if (doc.access !== undefined) {
    const a = doc.access;
    if (!isObj(a) || Object.keys(a).some((k) => k !== 'groups' && k !== 'users')) {
      fail('', '`access` must be a mapping with `groups` and/or `users`');
    } else if (
      (a.groups !== undefined && !isStrings(a.groups)) ||
      (a.users !== undefined && !isStrings(a.users))
    ) {
      fail('', '`access.groups` and `access.users` must be lists of names');
    } else {
      access = {
        ...(a.groups ? { groups: a.groups as string[] } : {}),
        ...(a.users ? { users: a.users as string[] } : {}),
      };
    }
  }
  const rawStates = doc.states;
  if (!Array.isArray(rawStates) || rawStates.length === 0) {
    fail('', '`states` must be a non-empty list');
    return { errors };
  }
  const names = new Set<string>();
  rawStates.forEach((s, i) => {
    const name = isObj(s) ? s.name : undefined;
    if (!nonEmpty(name) || name.startsWith('$')) {
      fail(`state #${i + 1}: `, '`name` must be a non-empty string not starting with $');
    } else if (names.has(name)) {
      fail(`state "${name}": `, 'duplicate state name');
    } else {
      names.add(name);
    }
  });
  const states: StateSpec[] = [];
  rawStates.forEach((s, index) => {
    if (!isObj(s) || !nonEmpty(s.name)) return;
    const where = `state "${s.name}": `;
    const state = compileState(s, index, names, services ?? null, (m) => fail(where, m));
    if (state) states.push(state);
  });
  if (errors.length > 0) return { errors };
  const view = doc as unknown as FluxDefinitionView;
  const normalized: FluxDefinitionView = {
    ...(typeof view.comment === 'string' ? { comment: view.comment } : {}),
    triggers: triggers as string[],
    ...(access ? { access } : {}),
    states: rawStates as Record<string, unknown>[],
  };
  const version = createHash('sha256')
    .update(JSON.stringify([packageName, file, normalized]))
    .digest('hex')
    .slice(0, 16);
  return {
    errors,
    definition: {
      packageName,
      fluxName: fluxNameOf(file),
      version,
      file,
      triggers: triggers as string[],
      ...(access ? { access } : {}),
      states,
      byName: new Map(states.map((st) => [st.name, st])),
      view: normalized,
    },
  };
}

function compileState(
  s: Obj,
  index: number,
  names: Set<string>,
  services: readonly string[] | null,
  fail: (message: string) => void,
): StateSpec | undefined {
  for (const key of Object.keys(s)) if (!STATE_KEYS.has(key)) fail(`unknown key "${key}"`);
  for (const k of ['x', 'y'] as const) {
    if (s[k] !== undefined && !Number.isInteger(s[k])) fail(`\`${k}\` must be an integer`);
  }
  for (const k of ['displayName', 'comment'] as const) {
    if (s[k] !== undefined && typeof s[k] !== 'string') fail(`\`${k}\` must be a string`);
  }
  for (const k of ['input', 'output'] as const) {
    if (s[k] !== undefined && !Array.isArray(s[k])) fail(`\`${k}\` must be a list`);
  }
  const action = s.action === undefined ? undefined : compileAction(s.action, services, fail);
  const transitions: TransitionSpec[] = [];
  const raw = s.transitions ?? [];
  if (!Array.isArray(raw)) {
    fail('`transitions` must be a list');
  } else {
    raw.forEach((t, i) => {
      const compiled = compileTransition(t, names, (m) => fail(`transition #${i + 1}: ${m}`));
      if (compiled) transitions.push(compiled);
    });
  }
  return { name: s.name as string, index, ...(action ? { action } : {}), transitions };
}

function compileAction(
  a: unknown,
  services: readonly string[] | null,
  fail: (message: string) => void,
): ActionSpec | undefined {
  if (!isObj(a)) {
    fail('`action` must be a mapping');
    return undefined;
  }
  for (const key of Object.keys(a)) if (!ACTION_KEYS.has(key)) fail(`action: unknown key "${key}"`);
  let service: string | undefined;
  if (a.type === 'invokeCode') {
    if (!nonEmpty(a.className)) fail('action: invokeCode needs `className`');
    if (!nonEmpty(a.methodName)) fail('action: invokeCode needs `methodName`');
    if (nonEmpty(a.className) && nonEmpty(a.methodName)) service = `${a.className}.${a.methodName}`;
  } else if (a.type === 'invokeService') {
    if (!nonEmpty(a.service)) fail('action: invokeService needs `service`');
    else service = a.service;
  } else if (a.type !== 'none') {
    fail('action: `type` must be invokeCode, invokeService or none');
    return undefined;
  }
  if (service !== undefined && services !== null && !service.includes('/') && !services.includes(service)) {
    fail(`action: service "${service}" is not in this package`);
  }
  if (a.parameters !== undefined && !isStrings(a.parameters))
    fail('action: `parameters` must be a list of names');
  const inputs: InputSpec[] = [];
  if (a.inputs !== undefined && !Array.isArray(a.inputs)) fail('action: `inputs` must be a list');
  (Array.isArray(a.inputs) ? a.inputs : []).forEach((input, i) => {
    const f = (m: string) => fail(`action: input #${i + 1}: ${m}`);
    if (!isObj(input)) return f('must be a mapping');
    if (input.type !== 'set') return f('`type` must be set');
    if (typeof input.expression !== 'string') return f('needs `expression`');
    if (input.evaluate !== undefined && typeof input.evaluate !== 'boolean')
      return f('`evaluate` must be a boolean');
    const to = typeof input.to === 'string' ? [input.to] : input.to;
    if (!isStrings(to) || to.length === 0 || to.some((p) => p.length === 0))
      return f('needs `to` (a field path)');
    inputs.push({ expression: input.expression, evaluate: input.evaluate !== false, to });
    return undefined;
  });
  return { type: a.type, ...(service ? { service } : {}), inputs };
}

function compileTransition(
  t: unknown,
  names: Set<string>,
  fail: (message: string) => void,
): TransitionSpec | undefined {
  if (!isObj(t)) {
    fail('must be a mapping');
    return undefined;
  }
  for (const key of Object.keys(t)) if (!TRANSITION_KEYS.has(key)) fail(`unknown key "${key}"`);
  const to = t.to;
  if (!nonEmpty(to)) fail('needs `to`');
  else if (!names.has(to)) fail(`\`to\` names unknown state "${to}"`);
  const kinds = (['event', 'after', 'at', 'cron'] as const).filter((k) => t[k] !== undefined);
  if (kinds.length > 1) fail(`has both ${kinds.join(' and ')}`);
  if (t.condition !== undefined && !nonEmpty(t.condition)) fail('`condition` must be an expression');
  const condition = nonEmpty(t.condition) ? { condition: t.condition } : {};
  const kind = kinds[0];
  if (kind !== undefined && kind !== 'event' && t.condition !== undefined) {
    fail('a time transition takes no `condition`');
  }
  if (!nonEmpty(to) || !names.has(to)) return undefined;
  switch (kind) {
    case undefined:
      return { kind: 'immediate', to, ...condition };
    case 'event':
      if (!nonEmpty(t.event)) return void fail('`event` must be an event name');
      if (t.event.startsWith('$') && t.event !== ELSE_EVENT && t.event !== EXCEPTION_EVENT) {
        return void fail(`unknown special event "${t.event}" (only $else and $exception)`);
      }
      if (t.event.startsWith('$') && t.condition !== undefined) {
        return void fail(`a ${t.event} transition takes no \`condition\``);
      }
      return { kind: 'event', to, event: t.event, ...condition };
    case 'after': {
      const text = String(t.after);
      const duration = typeof t.after === 'string' ? parseDuration(t.after) : undefined;
      if (!duration || isZero(duration)) return void fail(`\`after\` "${text}" is not an ISO-8601 duration`);
      return { kind: 'after', to, duration, text };
    }
    case 'at':
      if (!nonEmpty(t.at)) return void fail('`at` must be an expression');
      return { kind: 'at', to, expression: t.at };
    case 'cron':
      if (!nonEmpty(t.cron)) return void fail('`cron` must be a cron expression');
      try {
        CronExpressionParser.parse(t.cron);
      } catch (err) {
        return void fail(`\`cron\` "${t.cron}" is invalid: ${(err as Error).message}`);
      }
      return { kind: 'cron', to, cron: t.cron };
    default:
      return undefined;
  }
}
