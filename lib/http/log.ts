// Logging: pino JSON lines on stderr and the debug-level access log.
import pino, { type Logger } from 'pino';
import type { Hook } from './hooks';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** JSON lines on stderr, so stdout carries only the `listening on` line scripts wait for. */
export const createLogger = (level: LogLevel): Logger => pino({ level }, pino.destination({ dest: 2, sync: true }));

/** One line per request at debug level. */
export function accessLog(logger: Logger): Hook {
  return {
    onResponse(req, status) {
      if (!logger.isLevelEnabled('debug')) return;
      logger.debug({ reqId: req.id, method: req.method, path: req.path, route: req.route, status, ms: req.elapsedSeconds() * 1e3 }, 'request');
    },
  };
}
