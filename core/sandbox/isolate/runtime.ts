/**
 * The Junction runtime INSIDE a package's isolate. This function is never called on the host: its
 * source text (`isolateRuntimeSource`) is evaluated in each new isolate as a closure over the
 * worker's host-call reference, so it must not refer to anything outside its own body (no
 * imports, no Node globals). It keeps the host reference in its closure: service code never sees
 * it, only the `ctx` objects built here.
 *
 * A call's result goes back as text with a one-character tag: `1` + JSON (success), `0` + JSON
 * error (thrown by service code), `2` + message (no such function); an evaluation's as `1` + JSON
 * or `3` + JSON `{index, error}` (an expression failed).
 */
export function isolateRuntime(host: any, packageName: string): any {
  // Strict: a sloppy function of service code that this runtime calls (a getter read by
  // JSON.stringify, say) cannot reach these closures through `.caller`.
  'use strict';
  // Captured now, so service code that replaces JSON, Object.freeze or Function hurts only itself.
  const FunctionConstructor = Function;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const freeze = Object.freeze;
  const keys = Object.keys;
  const namespaces = new Map<string, any>();
  const compiledExpressions = new Map<string, any>();
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

  function describe(err: any): {
    name: string;
    message: string;
    code?: string;
    status?: number;
    stack?: string;
  } {
    try {
      if (err !== null && typeof err === 'object') {
        const out: { name: string; message: string; code?: string; status?: number; stack?: string } = {
          name: typeof err.name === 'string' ? err.name : 'Error',
          message: typeof err.message === 'string' ? err.message : String(err),
        };
        if (typeof err.code === 'string') out.code = err.code;
        if (typeof err.status === 'number') out.status = err.status;
        if (typeof err.stack === 'string') out.stack = err.stack;
        return out;
      }
      return { name: 'Error', message: String(err) };
    } catch {
      return { name: 'Error', message: 'a value that cannot be described was thrown' };
    }
  }

  /** A host error rebuilt as an exception service code can catch (`e.code`, `e.status`). */
  function hostError(wire: any): Error {
    const err: any = new Error(String(wire.message));
    if (typeof wire.name === 'string' && wire.name !== 'JunctionError') err.name = wire.name;
    if (typeof wire.code === 'string') err.code = wire.code;
    if (typeof wire.status === 'number') err.status = wire.status;
    return err;
  }

  async function hostCall(callId: number, op: string, payload: unknown): Promise<any> {
    const reply: string = await host.apply(undefined, [callId, op, stringify(payload)], {
      result: { promise: true, copy: true },
    });
    if (reply[0] === '1') return parse(reply.slice(1));
    throw hostError(parse(reply.slice(1)));
  }

  function logLine(args: unknown[]): string {
    return args
      .map((a) => {
        if (typeof a === 'string') return a;
        if (a instanceof Error) return `${a.name}: ${a.message}`;
        try {
          const text = stringify(a);
          return text === undefined ? String(a) : text;
        } catch {
          return String(a);
        }
      })
      .join(' ');
  }

  function toJson(value: unknown, what: string): string {
    const text = stringify(value === undefined ? null : value);
    if (text === undefined) throw new TypeError(`${what} is not JSON-serializable (${typeof value})`);
    return text;
  }

  function response(raw: any): any {
    const body: string = raw.body;
    return freeze({
      status: raw.status,
      statusText: raw.statusText,
      ok: raw.status >= 200 && raw.status < 300,
      url: raw.url,
      headers: freeze(raw.headers),
      body,
      text: async () => body,
      json: async () => parse(body),
    });
  }

  function makeCtx(callId: number, user: any): any {
    const log =
      (level: string) =>
      (...args: unknown[]) => {
        host.applyIgnored(undefined, [callId, 'log', stringify({ level, message: logLine(args) })]);
      };
    return freeze({
      package: packageName,
      user: freeze({ username: user.username, groups: freeze(user.groups.slice()) }),
      log: freeze({ info: log('info'), warn: log('warn'), error: log('error') }),
      invoke: (serviceName: unknown, input?: unknown) =>
        hostCall(callId, 'invoke', { name: String(serviceName), input: input === undefined ? null : input }),
      http: freeze({
        fetch: async (url: unknown, init?: unknown) =>
          response(await hostCall(callId, 'fetch', { url: String(url), init: init ?? {} })),
      }),
      flux: freeze({
        sendEvent: (args: unknown) => hostCall(callId, 'call', { name: 'flux.sendEvent', args: args ?? {} }),
      }),
    });
  }

  async function runCall(
    path: string,
    fnName: string,
    callId: number,
    input: unknown,
    user: any,
  ): Promise<string> {
    const ns = namespaces.get(path);
    const fn = ns === undefined ? undefined : ns[fnName];
    if (typeof fn !== 'function') {
      return `2${ns === undefined ? `no module ${path}` : `module ${path} exports no function ${fnName}`}`;
    }
    try {
      const output = await fn(input, makeCtx(callId, user));
      return `1${toJson(output, 'the return value')}`;
    } catch (err) {
      return `0${stringify(describe(err))}`;
    }
  }

  return {
    ping(): number {
      return 1;
    },
    register(path: string, namespace: any): void {
      namespaces.set(path, namespace);
    },
    exportsOf(path: string): string {
      const ns = namespaces.get(path);
      return stringify(keys(ns).filter((k) => typeof ns[k] === 'function'));
    },
    /**
     * Runs a batch of calls (`[[path, fn, callId, input, user], ...]`, input and user as JSON
     * values) in one entry into the isolate. Calls that settle within a few microtask turns (those
     * that wait on no host answer) are answered in the returned array; the others are `null` there
     * and answered one by one, when they end, through the host's `done` operation.
     */
    async runBatch(batchJson: string): Promise<string> {
      const calls: [string, string, number, unknown, any][] = parse(batchJson);
      const results: (string | null)[] = calls.map(() => null);
      let open = true;
      calls.forEach(([path, fnName, callId, input, user], index) => {
        void runCall(path, fnName, callId, input, user).then((result) => {
          if (open) results[index] = result;
          else host.applyIgnored(undefined, [callId, 'done', result]);
        });
      });
      for (let turn = 0; turn < 16; turn++) await undefined;
      open = false;
      return stringify(results);
    },
    async evaluate(expressionsJson: string, scopeJson: string): Promise<string> {
      const expressions: string[] = parse(expressionsJson);
      const scope = parse(scopeJson) ?? {};
      const names = keys(scope).filter((n) => identifier.test(n));
      const values = names.map((n) => scope[n]);
      const results: unknown[] = [];
      for (let index = 0; index < expressions.length; index++) {
        const expression = expressions[index] as string;
        try {
          const cacheKey = `${names.join(',')}\u0000${expression}`;
          let compiled = compiledExpressions.get(cacheKey);
          if (compiled === undefined) {
            // A fresh function per expression: the scope members are its parameters.
            compiled = new FunctionConstructor(...names, `"use strict";\nreturn (\n${expression}\n);`);
            if (compiledExpressions.size >= 1000) compiledExpressions.clear();
            compiledExpressions.set(cacheKey, compiled);
          }
          let value = compiled(...values);
          if (value !== null && typeof value === 'object' && typeof value.then === 'function')
            value = await value;
          results.push(parse(toJson(value, 'the result')));
        } catch (err) {
          return `3${stringify({ index, error: describe(err) })}`;
        }
      }
      return `1${stringify(results)}`;
    },
  };
}

/** The source evaluated in each isolate: `$0` is the host-call reference, `$1` the package name. */
export const isolateRuntimeSource = `return (${isolateRuntime.toString()})($0, $1);`;
