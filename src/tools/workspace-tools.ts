import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { RE2JS } from 're2js';
import { defineTool, type ToolDefinition, type ToolOutput } from './define-tool.js';
import {
  readWorkspaceFile,
  WorkspaceError,
  workspaceFolder,
  writeWorkspaceFile,
} from './workspace-files.js';

export interface WorkspaceToolsOptions {
  /** `read_file` refuses larger files. Default 1 MiB. */
  maxReadBytes?: number;
  /** `search_files` skips larger files. Default 1 MB. */
  maxSearchFileBytes?: number;
  /** `search_files` stops after this many matching lines. Default 200. */
  maxSearchHits?: number;
}

export const WORKSPACE_DEFAULTS = {
  maxReadBytes: 1024 * 1024,
  maxSearchFileBytes: 1_000_000,
  maxSearchHits: 200,
};

/** A refusal the model reads as a tool error; anything else is a real failure. */
async function refusing(work: () => Promise<ToolOutput>): Promise<ToolOutput> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WorkspaceError) return { text: error.message, isError: true };
    throw error;
  }
}

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
 * `search_files`, and `task_completion`. Paths are checked by their real location (links
 * resolved) and files opened so that a link swapped in cannot lead outside (see
 * `workspace-files.ts`); reads are capped; `search_files` runs its regular expression in
 * linear time (RE2), so no pattern can stall the process.
 */
export function workspaceTools(
  workspace: string,
  options: WorkspaceToolsOptions = {},
): ToolDefinition[] {
  const limits = { ...WORKSPACE_DEFAULTS, ...options };
  const path = { type: 'string', description: 'relative to the workspace' };
  const shown = (root: string, file: string) => relative(root, file);
  return [
    defineTool({
      name: 'read_file',
      description: 'Reads a text file.',
      inputSchema: { type: 'object', properties: { path }, required: ['path'] },
      handler: (args, { signal }) =>
        refusing(() =>
          readWorkspaceFile(workspace, String(args.path), limits.maxReadBytes, signal),
        ),
    }),
    defineTool({
      name: 'write_to_file',
      description: 'Writes a text file, creating folders as needed. Put the content in CDATA.',
      inputSchema: {
        type: 'object',
        properties: { path, content: { type: 'string' } },
        required: ['path', 'content'],
      },
      handler: (args, { signal }) =>
        refusing(async () => {
          await writeWorkspaceFile(workspace, String(args.path), String(args.content), signal);
          return `wrote ${Buffer.byteLength(String(args.content))} bytes to ${args.path}`;
        }),
    }),
    defineTool({
      name: 'list_files',
      description: 'Lists files under a folder of the workspace (recursively when asked).',
      inputSchema: { type: 'object', properties: { path, recursive: { type: 'boolean' } } },
      handler: (args, { signal }) =>
        refusing(async () => {
          const { root, real } = await workspaceFolder(workspace, String(args.path ?? '.'), signal);
          // Recursion does not enter linked folders: a link is listed, never followed.
          const entries = await readdir(real, {
            recursive: args.recursive === true,
            withFileTypes: true,
          });
          signal.throwIfAborted();
          const names = entries.map((e) => {
            const full = join(e.parentPath ?? real, e.name);
            return `${shown(root, full)}${e.isDirectory() ? '/' : ''}`;
          });
          return names.sort().join('\n') || '(empty)';
        }),
    }),
    defineTool({
      name: 'search_files',
      description:
        'Searches files under a folder for a regular expression (RE2 syntax: no lookaround or backreferences); prints path:line: text.',
      inputSchema: {
        type: 'object',
        properties: { path, regex: { type: 'string' } },
        required: ['regex'],
      },
      handler: (args, context) =>
        refusing(async () => {
          const { root, real } = await workspaceFolder(
            workspace,
            String(args.path ?? '.'),
            context.signal,
          );
          let pattern: RE2JS;
          try {
            pattern = RE2JS.compile(RE2JS.translateRegExp(String(args.regex)));
          } catch (error) {
            return {
              text: `invalid regex (RE2 syntax: no lookaround or backreferences): ${(error as Error).message}`,
              isError: true,
            };
          }
          const hits: string[] = [];
          for (const entry of await readdir(real, { recursive: true, withFileTypes: true })) {
            if (context.signal.aborted || hits.length >= limits.maxSearchHits) break;
            // Links are not followed (isFile is false for them): nothing outside is searched.
            if (!entry.isFile()) continue;
            const file = shown(root, join(entry.parentPath ?? real, entry.name));
            let text: string;
            try {
              text = await readWorkspaceFile(root, file, limits.maxSearchFileBytes, context.signal);
            } catch (error) {
              if (error instanceof WorkspaceError) continue;
              throw error;
            }
            const lines = text.split('\n');
            for (let i = 0; i < lines.length && hits.length < limits.maxSearchHits; i++)
              if (pattern.test(lines[i])) hits.push(`${file}:${i + 1}: ${lines[i]}`);
          }
          return hits.join('\n') || 'no matches';
        }),
    }),
    taskCompletionTool,
  ];
}
