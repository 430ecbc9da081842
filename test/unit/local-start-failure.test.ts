import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_LOOPBACK_LAUNCHER } from '../../lib/local/engines/engines';
import { startFailure } from '../../lib/local/process/start-failure';

const sysError = (code: string, syscall: string, message = `${syscall} ${code}`) => Object.assign(new Error(message), { code, syscall });
const ctx = { port: 8787, dataDir: '.data' };

/** Issue 15, point 3: any start error is one line saying what to do. */
describe('start failures', () => {
  it('says a busy port is in use and how to choose another', () => {
    expect(startFailure(sysError('EADDRINUSE', 'listen'), ctx)).toBe(
      'port 8787 is in use: stop the other service or set PORT to another port (PORT=0 picks a free one)',
    );
  });

  it('says a privileged port needs another PORT', () => {
    expect(startFailure(sysError('EACCES', 'listen'), { ...ctx, port: 80 })).toMatch(/^port 80 needs privileges: set PORT to 1024 or above/);
  });

  it('names the data folder that cannot be written', () => {
    expect(startFailure(sysError('EACCES', 'mkdir'), ctx)).toBe(
      `the data folder ${resolve('.data')} cannot be written (EACCES): set DATA_DIR to a writable folder, or DATA_DIR=:memory: to keep nothing`,
    );
  });

  it('keeps Java guidance and gives engines that exit or hang a next step', () => {
    expect(
      startFailure(new Error('Java 17+ is required for DynamoDB Local: install it (e.g. `apt-get install -y openjdk-17-jre-headless`) and retry.'), ctx),
    ).toMatch(/^Java 17\+ is required/);
    expect(startFailure(new Error('DynamoDB Local exited: Address already in use'), ctx)).toMatch(
      /^DynamoDB Local exited: Address already in use: check `java -version`/,
    );
    expect(startFailure(new Error('s3rver did not start within 20 s'), ctx)).toMatch(/^s3rver did not start within 20 s: the machine may be busy/);
  });

  // Issue 23, point 8: DynamoDB Local is not started on every interface; the one line says why and what to install.
  it('passes the missing Java compiler through as is: why, and the JDK to install', () => {
    expect(startFailure(new Error(NO_LOOPBACK_LAUNCHER), ctx)).toBe(NO_LOOPBACK_LAUNCHER);
    expect(NO_LOOPBACK_LAUNCHER).not.toContain('\n');
    expect(NO_LOOPBACK_LAUNCHER).toMatch(/every interface.*javac.*JDK 17\+.*openjdk-17-jdk-headless/);
  });

  it('reduces anything else to its first line', () => {
    const text = startFailure(new Error('something broke\n    at a (x.ts:1)\n    at b (y.ts:2)'), ctx);
    expect(text).toBe('could not start: something broke');
    expect(startFailure('a string', ctx)).toBe('could not start: a string');
  });
});
