/**
 * What a person reads on the CLI's stderr: its `order-loader: …` lines, without the JSON log
 * records that also go to stderr when it is not a terminal (each of which must be a JSON object,
 * so a forged line cannot hide among them).
 */
export function humanLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      if (!line.startsWith('{')) return true;
      const record = JSON.parse(line) as unknown;
      return typeof record !== 'object' || record === null;
    });
}
