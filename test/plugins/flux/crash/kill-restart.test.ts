import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../helpers.js';
import { ServerProcess, writeConfig } from './server-process.js';

const ORDER = `
comment: Three steps moved by events
states:
  - name: created
    transitions:
      - { event: step, to: middle }
  - name: middle
    transitions:
      - { event: finish, to: done }
  - name: done
`;

const TIMER = `
comment: Moves on by itself one second after it started
states:
  - name: wait
    transitions:
      - { after: PT1S, to: fired }
  - name: fired
`;

const STATES = ['created', 'middle', 'done'];
const WORKERS = 24;
const LOAD_MS = 1200;
const TIMERS = 10;

function writePackage(servicesDir: string): void {
  const dir = join(servicesDir, 'crash');
  mkdirSync(join(dir, 'flux', 'crash'), { recursive: true });
  writeFileSync(join(dir, 'package.yaml'), 'name: crash\nversion: 1.0.0\n');
  writeFileSync(join(dir, 'flux', 'crash', 'Order.flux.yaml'), ORDER);
  writeFileSync(join(dir, 'flux', 'crash', 'Timer.flux.yaml'), TIMER);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A real server on LevelDB, loaded with concurrent executes and events, is SIGKILLed mid-load and
 * started again on the same data: everything it acknowledged must be there, and timers that fell
 * due while it was down must fire promptly after the restart (CONTRACT §4).
 */
describe('plugins/flux: kill -9 under load', function () {
  this.timeout(40_000);
  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.kill();
    server = undefined;
  });

  it('keeps every acknowledged context and event, and fires overdue timers after restart', async () => {
    const root = tempDir('junction-crash-');
    const folders = { dir: root, dataDir: join(root, 'data'), servicesDir: join(root, 'services') };
    mkdirSync(folders.servicesDir);
    writePackage(folders.servicesDir);
    const config = writeConfig(folders);
    server = await ServerProcess.start(config);
    const first = server;

    // The furthest state each context was acknowledged in (index into STATES).
    const acked = new Map<number, number>();
    const timers: number[] = [];
    let lastTimerAck = 0;
    let killed = false;

    const worker = async (w: number) => {
      for (let n = 0; !killed; n++) {
        // Half the contexts are moved by contextId, half by a tag broadcast (the engine's other path).
        const tag = `w${w}-${n}`;
        const byTag = n % 2 === 1;
        try {
          const started = await first.request('POST', '/flux-api/crash/execute', {
            fluxName: 'crash.Order',
            tags: [tag],
          });
          if (started.status !== 200)
            throw new Error(`execute: ${started.status} ${JSON.stringify(started.json)}`);
          const id = started.json.contextId as number;
          acked.set(id, 0);
          for (const [event, next] of [
            ['step', 1],
            ['finish', 2],
          ] as const) {
            const res = byTag
              ? await first.request('POST', '/flux-api/event', { event, tags: [tag] })
              : await first.request('POST', `/flux-api/event?contextId=${id}`, { event });
            if (res.status !== 200) throw new Error(`event: ${res.status} ${JSON.stringify(res.json)}`);
            expect(res.json.transitions).to.deep.equal([{ contextId: id, state: STATES[next] }]);
            acked.set(id, next);
          }
        } catch (err) {
          if (killed) return; // a request cut by the kill: not acknowledged, not counted
          throw err;
        }
      }
    };

    const load = Array.from({ length: WORKERS }, (_, w) => worker(w));
    await sleep(LOAD_MS / 2);
    // Timers started mid-load; their one-second deadline passes while the server is down.
    await Promise.all(
      Array.from({ length: TIMERS }, async () => {
        const res = await first.request('POST', '/flux-api/crash/execute', { fluxName: 'crash.Timer' });
        expect(res.status).to.equal(200);
        timers.push(res.json.contextId as number);
        lastTimerAck = Date.now();
      }),
    );
    await sleep(LOAD_MS / 2);
    killed = true;
    await first.kill();
    await Promise.all(load);

    expect(acked.size, 'contexts acknowledged before the kill').to.be.above(20);
    const waitForDeadline = lastTimerAck + 1100 - Date.now();
    if (waitForDeadline > 0) await sleep(waitForDeadline);

    server = await ServerProcess.start(config);
    const restartedAt = Date.now();

    const missing: number[] = [];
    const behind: string[] = [];
    for (const [id, index] of acked) {
      const res = await server.request('GET', `/flux-api/context?contextId=${id}`);
      if (res.status !== 200) {
        missing.push(id);
        continue;
      }
      const now = STATES.indexOf(res.json.currentState as string);
      if (now < index) behind.push(`${id}: acknowledged ${STATES[index]}, found ${res.json.currentState}`);
    }
    expect(missing, 'acknowledged contexts missing after restart').to.deep.equal([]);
    expect(behind, 'contexts behind their acknowledged state').to.deep.equal([]);

    // Overdue timers fire at start-up: allow a little for the first steps to run.
    let pending = timers;
    while (pending.length > 0 && Date.now() - restartedAt < 5000) {
      const states = await Promise.all(
        pending.map(async (id) => (await server!.request('GET', `/flux-api/context?contextId=${id}`)).json),
      );
      pending = pending.filter((_id, i) => states[i]!.currentState !== 'fired');
      if (pending.length > 0) await sleep(50);
    }
    expect(pending, 'overdue timers still waiting 5 s after restart').to.deep.equal([]);
    const fired = (await server.request('GET', `/flux-api/context?contextId=${timers[0]}`)).json;
    expect(fired).to.include({ currentState: 'fired', status: 'DONE' });
  });
});
