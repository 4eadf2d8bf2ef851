/**
 * The schema of config.yaml (CONTRACT §2). Defaults live here and nowhere else; docs/configuration.md
 * describes every key. Unknown keys are errors: `additionalProperties: false` everywhere.
 */

export interface PluginEntry {
  name?: string;
  path?: string;
  options?: Record<string, unknown>;
}

export interface UserEntry {
  username: string;
  password: string;
  groups: string[];
}

export interface JunctionConfig {
  server: {
    host: string;
    port: number;
    bodyLimit: number;
    timezone: string;
    logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
    /** How long a graceful shutdown waits for requests in flight before closing them. */
    shutdownTimeoutMs: number;
  };
  /** Absolute after loading. */
  dataDir: string;
  /** Absolute after loading. */
  servicesDir: string;
  /** Watching servicesDir to deploy changes while running (docs/packages.md). */
  hotDeploy: {
    enabled: boolean;
    /** How long a package folder must be quiet before a change deploys. */
    debounceMs: number;
  };
  sandbox: {
    threads: number;
    memoryLimitMb: number;
    timeoutMs: number;
    /** How deep `ctx.invoke` may nest. */
    maxInvokeDepth: number;
    /** Per `ctx.http.fetch` call. */
    httpTimeoutMs: number;
    /** Largest response body `ctx.http.fetch` reads. */
    httpMaxBytes: number;
  };
  plugins: PluginEntry[];
  oauth: {
    'client-id': string;
    'client-secret': string;
    'legacy-clients': boolean;
    'access-token-ttl': number;
    'refresh-token-ttl': number;
    /** Failed password grants allowed per user and per client address within `lockout-window`. */
    'max-failed-logins': number;
    /** Seconds. */
    'lockout-window': number;
  };
  users: UserEntry[];
  flux: {
    'require-auth': boolean;
  };
  tracker: {
    retentionDays: number;
  };
}

const str = { type: 'string', minLength: 1 } as const;
const int = (minimum: number, maximum?: number, dflt?: number) =>
  ({
    type: 'integer',
    minimum,
    ...(maximum === undefined ? {} : { maximum }),
    ...(dflt === undefined ? {} : { default: dflt }),
  }) as const;

export const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    server: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        host: { ...str, default: '127.0.0.1' },
        port: int(0, 65535, 8080),
        bodyLimit: int(1, undefined, 1048576),
        timezone: { ...str, default: 'UTC' },
        logLevel: {
          enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
          default: 'info',
        },
        shutdownTimeoutMs: int(0, undefined, 10000),
      },
    },
    dataDir: { ...str, default: './data' },
    servicesDir: { ...str, default: './services' },
    hotDeploy: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        enabled: { type: 'boolean', default: true },
        debounceMs: int(0, 60000, 200),
      },
    },
    sandbox: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        threads: int(1, 256),
        memoryLimitMb: int(8, 8192, 64),
        timeoutMs: int(1, undefined, 5000),
        maxInvokeDepth: int(1, 64, 8),
        httpTimeoutMs: int(1, undefined, 10000),
        httpMaxBytes: int(1, undefined, 5 * 1024 * 1024),
      },
    },
    plugins: {
      type: 'array',
      default: [{ name: 'auth' }, { name: 'alias' }, { name: 'flux' }, { name: 'tracker' }],
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: str,
          path: str,
          options: { type: 'object' },
        },
      },
    },
    oauth: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        'client-id': { ...str, default: 'junction' },
        'client-secret': { ...str, default: 'junction' },
        'legacy-clients': { type: 'boolean', default: true },
        'access-token-ttl': int(1, undefined, 3600),
        'refresh-token-ttl': int(1, undefined, 43200),
        'max-failed-logins': int(1, undefined, 5),
        'lockout-window': int(1, undefined, 900),
      },
    },
    users: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['username', 'password'],
        properties: {
          username: str,
          password: str,
          groups: { type: 'array', items: str, default: [] },
        },
      },
    },
    flux: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        'require-auth': { type: 'boolean', default: false },
      },
    },
    tracker: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        retentionDays: int(1, undefined, 30),
      },
    },
  },
} as const;
