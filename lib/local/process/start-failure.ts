/**
 * A failed `npm start` in one line that says what to do. The known causes (port in use or privileged, a
 * data folder that cannot be written or is in use, Java or its compiler missing, an engine that exits or never answers) get their
 * remedy; anything else its first line.
 */
import { resolve } from 'node:path';
import { DataDirInUse } from './data-lock';

interface StartContext {
  port: number;
  dataDir: string;
}

const codeOf = (err: unknown): string | undefined => (err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : undefined);
const firstLine = (text: string): string =>
  text
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim() ?? 'unknown error';

export function startFailure(err: unknown, ctx: StartContext): string {
  if (err instanceof DataDirInUse) return err.message;
  const code = codeOf(err);
  const syscall = err && typeof err === 'object' && 'syscall' in err ? String((err as { syscall: unknown }).syscall) : undefined;
  const message = firstLine(err instanceof Error ? err.message : String(err));
  if (syscall === 'listen' && code === 'EADDRINUSE')
    return `port ${ctx.port} is in use: stop the other service or set PORT to another port (PORT=0 picks a free one)`;
  if (syscall === 'listen' && code === 'EACCES') return `port ${ctx.port} needs privileges: set PORT to 1024 or above (PORT=0 picks a free one)`;
  if (code && ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOSPC'].includes(code) && ctx.dataDir !== ':memory:') {
    return `the data folder ${resolve(ctx.dataDir)} cannot be written (${code}): set DATA_DIR to a writable folder, or DATA_DIR=:memory: to keep nothing`;
  }
  if (message.includes('Java 17+') || message.includes('JDK 17+')) return message;
  if (/ exited: /.test(message))
    return `${message}: check \`java -version\` (17+) and that ${ctx.dataDir === ':memory:' ? 'the temporary folder' : resolve(ctx.dataDir)} is writable, or run on the in-memory fakes with no Java: npm start -- --memory`;
  if (/ did not start within /.test(message)) return `${message}: the machine may be busy; start again, or check \`java -version\` (17+)`;
  return `could not start: ${message}`;
}
