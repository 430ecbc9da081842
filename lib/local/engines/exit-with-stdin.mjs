// Imported first (`node --import`) by an engine child of the local runtime (s3rver): the runtime holds the
// other end of this process's standard input, so when the runtime is gone, however it ended (SIGKILL
// included), stdin closes and this process exits instead of serving on as an orphan (issue 25).
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
