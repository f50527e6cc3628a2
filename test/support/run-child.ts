import { spawn } from 'node:child_process';

/** A child process's exit code and output, without blocking this process (its servers answer). */
export function runChild(command: string, args: string[], cwd: string) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
    });
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
