/** The input an action receives: built by its `inputs`, or a copy of the context's vars. */
import type { ActionSpec } from '../definitions/types.js';

/** `values`: the results of the `evaluate: true` inputs' expressions, in order. */
export function actionInput(
  action: ActionSpec,
  vars: Record<string, unknown>,
  values: unknown[],
): Record<string, unknown> {
  if (action.inputs.length === 0) return { ...vars };
  const input: Record<string, unknown> = {};
  let v = 0;
  for (const spec of action.inputs) setPath(input, spec.to, spec.evaluate ? values[v++] : spec.expression);
  return input;
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const child = node[key];
    if (child === null || typeof child !== 'object' || Array.isArray(child)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}
