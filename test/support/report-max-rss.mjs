// Preloaded (`--import`) into a child: at exit, its peak resident memory goes to stderr as the
// last line, `max-rss KB`, for a test that compares what a command holds at n and 2n.
process.on('exit', () => {
  process.stderr.write(`max-rss ${process.resourceUsage().maxRSS}\n`);
});
