// Preloaded by bench/memory.ts (node --require): prints the process's peak RSS when it exits.
process.on('exit', () => process.stderr.write(`\npeak-rss-kb ${process.resourceUsage().maxRSS}\n`));
