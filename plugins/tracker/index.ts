import { Counter, Gauge } from 'prom-client';
import type { JunctionApp, JunctionPlugin } from '../../core/index.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../auth/types.js';
import { DEFAULT_RECORDER_OPTIONS, BatchingRecorder } from './recorder.js';
import { DEFAULT_SWEEP_INTERVAL_MS, RetentionSweeper } from './retention.js';
import { trackerRoutes } from './routes.js';
import { TrackerStore } from './store.js';
import { TRACKER_RECORDER } from './types.js';

/** Plugin options (config.yaml `plugins: [{name: tracker, options: {...}}]`); all optional. */
export interface TrackerOptions {
  /** How long a tracker document may wait before its batch is written; default 50. */
  flushIntervalMs?: number;
  /** How often the retention sweep runs; default one hour. */
  sweepIntervalMs?: number;
}

const TRACKER_OPTIONS = ['flushIntervalMs', 'sweepIntervalMs'];

/** The parts of a running tracker (tests and embedders). */
export interface TrackerRuntime {
  store: TrackerStore;
  recorder: BatchingRecorder;
  retention: RetentionSweeper;
}

export type TrackerPlugin = JunctionPlugin<TrackerOptions> & { readonly runtime: TrackerRuntime | undefined };

/**
 * The built-in `tracker` plugin (docs/tracker.md): stores a document for every tracked alias call
 * (`TRACKER_RECORDER`), serves them to administrators under `/tracker-api`, and deletes them
 * after `tracker.retentionDays`.
 */
export function createTrackerPlugin(): TrackerPlugin {
  let runtime: TrackerRuntime | undefined;
  let app: JunctionApp | undefined;
  let verifier: BearerVerifier | undefined;

  const resolveVerifier = (): BearerVerifier | undefined => {
    if (!verifier && app?.container.isRegistered(AUTH_VERIFIER, true)) {
      verifier = app.container.resolve<BearerVerifier>(AUTH_VERIFIER);
    }
    return verifier;
  };

  return {
    name: 'tracker',
    get runtime() {
      return runtime;
    },
    register(junction, options) {
      app = junction;
      verifier = undefined;
      const logger = junction.logger.child({ plugin: 'tracker' });
      for (const key of Object.keys(options)) {
        if (!TRACKER_OPTIONS.includes(key)) {
          throw new Error(`tracker option "${key}" is unknown (options: ${TRACKER_OPTIONS.join(', ')})`);
        }
      }
      const flushIntervalMs = positive(
        options.flushIntervalMs,
        'flushIntervalMs',
        DEFAULT_RECORDER_OPTIONS.flushIntervalMs,
      );
      const sweepIntervalMs = positive(options.sweepIntervalMs, 'sweepIntervalMs', DEFAULT_SWEEP_INTERVAL_MS);
      const store = new TrackerStore(junction.storage.store('tracker'));
      const recorder = new BatchingRecorder(store, junction.clock, logger, {
        ...DEFAULT_RECORDER_OPTIONS,
        flushIntervalMs,
      });
      const retention = new RetentionSweeper(
        store,
        junction.clock,
        logger,
        junction.config.tracker.retentionDays,
        sweepIntervalMs,
      );
      runtime = { store, recorder, retention };
      registerMetrics(junction, recorder, retention);
      junction.container.register(TRACKER_RECORDER, { useValue: recorder });
      for (const route of trackerRoutes({ store, recorder, verifier: resolveVerifier }))
        junction.route(route);
    },
    start() {
      resolveVerifier();
      runtime!.retention.start();
    },
    async stop() {
      // Stopped after the HTTP server has finished its requests: every tracked call is queued.
      await runtime!.retention.stop();
      await runtime!.recorder.close();
    },
  };
}

/** Tracker figures on `/metrics`, read from the recorder and the sweeper when scraped. */
function registerMetrics(app: JunctionApp, recorder: BatchingRecorder, retention: RetentionSweeper): void {
  const counter = (name: string, help: string, read: () => number) => {
    let reported = 0;
    new Counter({
      name,
      help,
      registers: [app.metrics],
      collect() {
        const now = read();
        this.inc(now - reported);
        reported = now;
      },
    });
  };
  counter('junction_tracker_documents_written_total', 'Tracker documents written', () => recorder.written);
  counter(
    'junction_tracker_documents_dropped_total',
    'Tracker documents dropped because storage kept failing',
    () => recorder.dropped,
  );
  counter(
    'junction_tracker_documents_expired_total',
    'Tracker documents deleted by retention',
    () => retention.deleted,
  );
  new Gauge({
    name: 'junction_tracker_queue_length',
    help: 'Tracker documents waiting to be written',
    registers: [app.metrics],
    collect() {
      this.set(recorder.queued);
    },
  });
}

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new Error(`tracker option "${name}" must be a positive integer (milliseconds)`);
  }
  return value;
}

const plugin: TrackerPlugin = createTrackerPlugin();

export default plugin;
