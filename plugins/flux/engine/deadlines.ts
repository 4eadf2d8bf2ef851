/**
 * Deadlines of a waiting state's time transitions: `after` from now, the next `cron` match in the
 * configured zone, `at` from its evaluated expression. The earliest one is the context's nextRun.
 */
import { CronExpressionParser } from 'cron-parser';
import { addDuration } from '../definitions/duration.js';
import type { StateSpec } from '../definitions/types.js';

/** An error of a step that is the engine's own finding (its `type` is kept on the context). */
export class StepError extends Error {
  constructor(
    message: string,
    readonly type: string,
  ) {
    super(message);
  }
}

/**
 * The earliest deadline among `state`'s time transitions (`atValues`: the values of its `at`
 * expressions, in order); `nextTransition` is -1 when none is armed.
 */
export function earliestDeadline(
  state: StateSpec,
  now: number,
  atValues: unknown[],
  timezone: string,
): { nextRun: number; nextTransition: number } {
  let nextRun = 0;
  let nextTransition = -1;
  let a = 0;
  state.transitions.forEach((t, index) => {
    let at: number | undefined;
    if (t.kind === 'after') at = addDuration(now, t.duration);
    else if (t.kind === 'cron') at = nextCron(t.cron, now, timezone);
    else if (t.kind === 'at') at = toEpoch(atValues[a++], t.expression);
    if (at !== undefined && (nextTransition < 0 || at < nextRun)) {
      nextRun = at;
      nextTransition = index;
    }
  });
  return { nextRun, nextTransition };
}

export function nextCron(cron: string, now: number, timezone: string): number {
  return CronExpressionParser.parse(cron, { currentDate: new Date(now), tz: timezone })
    .next()
    .getTime();
}

/**
 * An `at` expression's value: epoch ms, a date string, or a Date. null and undefined arm no deadline (an
 * optional timeout); anything else is an error of the state.
 */
function toEpoch(value: unknown, expression: string): number | undefined {
  if (value === null || value === undefined) return undefined;
  const ms =
    typeof value === 'number'
      ? value
      : typeof value === 'string'
        ? Date.parse(value)
        : value instanceof Date
          ? value.getTime()
          : NaN;
  if (!Number.isFinite(ms)) {
    throw new StepError(
      `\`at\` expression "${expression}" gave ${JSON.stringify(value)}, not a date`,
      'FluxTimeError',
    );
  }
  return ms;
}
