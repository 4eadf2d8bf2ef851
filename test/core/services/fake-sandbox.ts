/**
 * A scriptable Sandbox for the registry's own logic (resolution, versions, hooks, watcher). It
 * lists `export [async] function name` declarations instead of compiling; what a call answers is
 * up to the test. Behaviour of real code (syntax errors, imports, isolation) is tested through the
 * real sandbox in sandbox-integration.test.ts.
 */
import type {
  ModuleExports,
  PackageCode,
  Sandbox,
  SandboxCall,
  SandboxEvaluation,
  SandboxHost,
} from '../../../core/sandbox/types.js';

export type FakeHandler = (call: SandboxCall, host: SandboxHost) => Promise<unknown> | unknown;

export class FakeSandbox implements Sandbox {
  host!: SandboxHost;
  readonly calls: SandboxCall[] = [];
  readonly forgotten: string[] = [];
  readonly inspected: string[] = [];
  closed = false;
  /** `<module>#<fn>` → what the call does; unset: answers `{key, fn, input}`. */
  readonly handlers = new Map<string, FakeHandler>();

  bind(host: SandboxHost): this {
    this.host = host;
    return this;
  }

  async inspect(code: PackageCode): Promise<ModuleExports[]> {
    this.inspected.push(code.key);
    return code.modules.map((m) => {
      if (m.source.includes('FAKE_SYNTAX_ERROR')) throw new Error(`${m.path}: SyntaxError: Unexpected token`);
      const functions = [...m.source.matchAll(/export\s+(?:async\s+)?function\s+([A-Za-z_$][\w$]*)/g)].map(
        (x) => x[1]!,
      );
      return { path: m.path, functions };
    });
  }

  async call(call: SandboxCall): Promise<unknown> {
    if (this.closed) throw new Error('closed');
    if (!this.host.code(call.key)) throw new Error(`version ${call.key} is not known to the host`);
    this.calls.push(call);
    const handler = this.handlers.get(`${call.module}#${call.fn}`);
    if (handler) return handler(call, this.host);
    return { key: call.key, fn: call.fn, input: call.input };
  }

  async evaluate(evaluation: SandboxEvaluation): Promise<unknown[]> {
    return evaluation.expressions.map((e) => ({
      key: evaluation.key,
      expression: e,
      scope: evaluation.scope,
    }));
  }

  forget(key: string): void {
    this.forgotten.push(key);
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
