import { stat } from 'node:fs/promises';

/** Why `path` cannot be run as a rank's program (the line `dapl run` prints), or undefined if it is a file. */
export async function programFileProblem(path: string): Promise<string | undefined> {
  try {
    const stats = await stat(path);
    if (stats.isFile()) return undefined;
    if (stats.isDirectory()) return `dapl run: ${path} is a directory, not a program file\n`;
  } catch {
    // Missing or unreadable: not found, as below.
  }
  return `dapl run: program file not found: ${path}\n`;
}
