process.on('exit', () => {
  process.stderr.write(`\nmaxRSS=${process.resourceUsage().maxRSS}\n`);
});
