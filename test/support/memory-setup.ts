/**
 * The `memory` project's global setup: only the website's build, which every runtime serves. No engine is
 * started: its files run the local runtime on the in-memory fakes (LOCAL_BACKEND=memory, test/support/local.ts).
 */
import { ensureSiteBuild } from '../../scripts/site-build.mjs';

export default function setup(): void {
  ensureSiteBuild({ quiet: true });
}
