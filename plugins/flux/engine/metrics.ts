/** The engine's Prometheus metrics (on `app.metrics`, served at `/metrics`). */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class FluxMetrics {
  readonly started: Counter;
  readonly transitions: Counter;
  readonly ended: Counter<'status'>;
  readonly timerLateness: Histogram;
  readonly timersHeld: Gauge;
  readonly active: Gauge;

  constructor(registry: Registry, sizes: { timers: () => number; active: () => number }) {
    const registers = [registry];
    this.started = new Counter({
      name: 'junction_flux_contexts_started_total',
      help: 'Workflow contexts started',
      registers,
    });
    this.transitions = new Counter({
      name: 'junction_flux_transitions_total',
      help: 'State transitions taken by workflow contexts',
      registers,
    });
    this.ended = new Counter({
      name: 'junction_flux_contexts_ended_total',
      help: 'Workflow contexts that ended, by final status',
      labelNames: ['status'],
      registers,
    });
    this.timerLateness = new Histogram({
      name: 'junction_flux_timer_lateness_seconds',
      help: 'How late workflow timers fire after their deadline',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 300],
      registers,
    });
    this.timersHeld = new Gauge({
      name: 'junction_flux_timers_in_memory',
      help: 'Workflow deadlines held in the in-memory timing wheel (the near future only)',
      registers,
      collect() {
        this.set(sizes.timers());
      },
    });
    this.active = new Gauge({
      name: 'junction_flux_contexts_busy',
      help: 'Workflow contexts with a step in progress or queued',
      registers,
      collect() {
        this.set(sizes.active());
      },
    });
  }
}
