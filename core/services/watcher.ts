/**
 * Hot deploy: watches `servicesDir` and asks for a reload of the package folder a change touched,
 * once that folder has been quiet for `debounceMs` (copying a folder in fires many events; the
 * deploy waits for the last). Node 20's recursive `fs.watch` works on Linux (inotify per folder,
 * folders created or moved in later included), macOS and Windows. When the watcher fails (e.g.
 * the folder was removed and re-created), it is re-opened and everything is rescanned.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../clock.js';

export interface PackageWatcherOptions {
  dir: string;
  debounceMs: number;
  clock: Clock;
  logger: Logger;
  /** A package folder (a direct child of `dir`) changed, was added or was removed. */
  onChange(folder: string): void;
  /** Something changed that cannot be pinned to one folder: look at all of them. */
  onRescan(): void;
}

export class PackageWatcher {
  private watcher: FSWatcher | undefined;
  private readonly timers = new Map<string, TimerHandle>();
  private closed = false;
  private static readonly RESCAN = '\0rescan';

  constructor(private readonly options: PackageWatcherOptions) {}

  start(): void {
    this.closed = false;
    this.open();
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    for (const t of this.timers.values()) this.options.clock.clearTimeout(t);
    this.timers.clear();
  }

  private open(): void {
    try {
      this.watcher = watch(this.options.dir, { recursive: true }, (_event, filename) => {
        const folder = filename ? String(filename).split(/[\\/]/)[0] : undefined;
        this.schedule(folder || PackageWatcher.RESCAN);
      });
      this.watcher.on('error', (err) => this.reopen(err));
    } catch (err) {
      this.reopen(err);
    }
  }

  private reopen(err: unknown): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.closed) return;
    this.options.logger.warn({ err, dir: this.options.dir }, 'package watcher failed; retrying');
    const timer = this.options.clock.setTimeout(
      () => {
        if (this.closed) return;
        this.open();
        this.options.onRescan();
      },
      Math.max(this.options.debounceMs, 1000),
    );
    this.timers.set('\0reopen', timer);
  }

  private schedule(folder: string): void {
    if (this.closed || (folder !== PackageWatcher.RESCAN && folder.startsWith('.'))) return;
    const previous = this.timers.get(folder);
    if (previous) this.options.clock.clearTimeout(previous);
    this.timers.set(
      folder,
      this.options.clock.setTimeout(() => {
        this.timers.delete(folder);
        if (this.closed) return;
        if (folder === PackageWatcher.RESCAN) this.options.onRescan();
        else this.options.onChange(folder);
      }, this.options.debounceMs),
    );
  }
}
