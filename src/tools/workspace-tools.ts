import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { defineTool, type ToolDefinition, type ToolOutput } from './define-tool.js';

/** Resolves `path` inside `workspace`, or returns null when it would escape it. */
export function insideWorkspace(workspace: string, path: string): string | null {
  const root = resolve(workspace);
  const target = resolve(root, path);
  const rel = relative(root, target);
  return rel.startsWith('..') || isAbsolute(rel) ? null : target;
}

const refuse = (path: string): ToolOutput => ({
  text: `${JSON.stringify(path)} is outside the workspace; use a path relative to it`,
  isError: true,
});

/** The tool that ends a run: its `result` is the answer. */
export const taskCompletionTool = defineTool({
  name: 'task_completion',
  description:
    'Call this when the task is done, with the final answer or a summary of what was done.',
  inputSchema: { type: 'object', properties: { result: { type: 'string' } }, required: ['result'] },
  handler: (args) => String(args.result),
});

/**
 * File tools confined to a workspace directory: `read_file`, `write_to_file`, `list_files`,
 * `search_files`, and `task_completion`. A path that escapes the workspace is refused.
 */
export function workspaceTools(workspace: string): ToolDefinition[] {
  const path = { type: 'string', description: 'relative to the workspace' };
  return [
    defineTool({
      name: 'read_file',
      description: 'Reads a text file.',
      inputSchema: { type: 'object', properties: { path }, required: ['path'] },
      async handler(args) {
        const file = insideWorkspace(workspace, String(args.path));
        return file === null ? refuse(String(args.path)) : await readFile(file, 'utf8');
      },
    }),
    defineTool({
      name: 'write_to_file',
      description: 'Writes a text file, creating folders as needed. Put the content in CDATA.',
      inputSchema: {
        type: 'object',
        properties: { path, content: { type: 'string' } },
        required: ['path', 'content'],
      },
      async handler(args) {
        const file = insideWorkspace(workspace, String(args.path));
        if (file === null) return refuse(String(args.path));
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, String(args.content));
        return `wrote ${Buffer.byteLength(String(args.content))} bytes to ${args.path}`;
      },
    }),
    defineTool({
      name: 'list_files',
      description: 'Lists files under a folder of the workspace (recursively when asked).',
      inputSchema: { type: 'object', properties: { path, recursive: { type: 'boolean' } } },
      async handler(args) {
        const folder = insideWorkspace(workspace, String(args.path ?? '.'));
        if (folder === null) return refuse(String(args.path));
        const entries = await readdir(folder, {
          recursive: args.recursive === true,
          withFileTypes: true,
        });
        const names = entries.map((e) => {
          const full = join(e.parentPath ?? folder, e.name);
          return `${relative(resolve(workspace), full)}${e.isDirectory() ? '/' : ''}`;
        });
        return names.sort().join('\n') || '(empty)';
      },
    }),
    defineTool({
      name: 'search_files',
      description:
        'Searches files under a folder for a regular expression; prints path:line: text.',
      inputSchema: {
        type: 'object',
        properties: { path, regex: { type: 'string' } },
        required: ['regex'],
      },
      async handler(args) {
        const folder = insideWorkspace(workspace, String(args.path ?? '.'));
        if (folder === null) return refuse(String(args.path));
        let pattern: RegExp;
        try {
          pattern = new RegExp(String(args.regex));
        } catch (error) {
          return { text: `invalid regex: ${(error as Error).message}`, isError: true };
        }
        const hits: string[] = [];
        for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
          if (!entry.isFile()) continue;
          const file = join(entry.parentPath ?? folder, entry.name);
          if ((await stat(file)).size > 1_000_000) continue;
          const lines = (await readFile(file, 'utf8')).split('\n');
          lines.forEach((line, i) => {
            if (pattern.test(line))
              hits.push(`${relative(resolve(workspace), file)}:${i + 1}: ${line}`);
          });
          if (hits.length >= 200) break;
        }
        return hits.join('\n') || 'no matches';
      },
    }),
    taskCompletionTool,
  ];
}
