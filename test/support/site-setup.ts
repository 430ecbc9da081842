/**
 * Global setup of the Java-free projects: the website's build (build/site), made once before any worker
 * starts, since synthesizing the stack (lib/site-build.ts) and every local runtime (lib/local/gateways/site-host.ts)
 * read it and two workers must not build it at once.
 */
import { ensureSiteBuild } from '../../scripts/site-build.mjs';

export default function setup(): void {
  ensureSiteBuild({ quiet: true });
}
