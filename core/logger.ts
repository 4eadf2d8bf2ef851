import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * The pino logger. Secrets never reach a log line: authorization headers, passwords and tokens
 * are redacted wherever they appear in a logged object.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { app: 'junction' },
      redact: {
        paths: [
          'req.headers.authorization',
          'headers.authorization',
          'password',
          '*.password',
          'client_secret',
          '*.client_secret',
          'access_token',
          '*.access_token',
          'refresh_token',
          '*.refresh_token',
          'token',
          '*.token',
        ],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ sync: false }),
  );
}
