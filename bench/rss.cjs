// Preloaded by bench/memory.ts (node --require): prints the process's peak RSS and CPU time when it exits.
process.on('exit', () => {
  const u = process.resourceUsage();
  process.stderr.write(`\npeak-rss-kb ${u.maxRSS} cpu-us ${u.userCPUTime + u.systemCPUTime}\n`);
});
