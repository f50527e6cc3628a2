import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isJsonObject } from '../protocol/json-call.js';
import {
  type ListedTool,
  type McpServerConfig,
  readToolList,
  type ToolDefinition,
} from '../tools/index.js';
import { CliError } from './command.js';

/** A JSON file's value, or a `CliError` that names the file and says what is wrong with it. */
async function readJsonFile(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      code === 'ENOENT'
        ? `${what} ${file} does not exist`
        : code === 'EISDIR'
          ? `${what} ${file} is a folder; give a JSON file`
          : `${what} ${file} cannot be read: ${(error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${what} ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** `--mcp` file: `{"mcpServers": {...}}` (the common shape) or the map itself, each checked. */
export async function readMcpConfig(file: string): Promise<Record<string, McpServerConfig>> {
  const value = await readJsonFile(file, '--mcp');
  const servers = isJsonObject(value) && isJsonObject(value.mcpServers) ? value.mcpServers : value;
  if (!isJsonObject(servers))
    throw new CliError(
      `--mcp ${file}: expected {"mcpServers": {"name": {"command", "args"} | {"url"}}}`,
    );
  for (const [name, server] of Object.entries(servers)) {
    const ok =
      isJsonObject(server) &&
      (typeof server.command === 'string' || typeof server.url === 'string') &&
      (server.args === undefined ||
        (Array.isArray(server.args) && server.args.every((a) => typeof a === 'string')));
    if (!ok)
      throw new CliError(
        `--mcp ${file}: server ${JSON.stringify(name)} needs "command" (with "args" a list of strings) or "url"`,
      );
  }
  return servers as Record<string, McpServerConfig>;
}

/** A file named as JSON: `--tools` reads it as a tool list, anything else as a JS module. */
const isJsonFile = (file: string) => file.toLowerCase().endsWith('.json');

/**
 * `--tools` for `grammar`: a JSON tool list in any common shape (see `readToolList`), or the
 * JS module `run --tools` takes (its definitions' names and schemas), so that one file serves
 * both.
 */
export async function readToolsFile(file: string): Promise<ListedTool[]> {
  if (!isJsonFile(file))
    return (await loadToolsModule(file)).map((t) => ({
      serverName: 'local',
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
  const value = await readJsonFile(file, '--tools');
  try {
    return readToolList(value);
  } catch (error) {
    throw new CliError(`--tools ${file}: ${(error as Error).message}`);
  }
}

/**
 * `--tools` module for `run`: a `tools` export or a default export, an array of definitions.
 * A JSON tool list is refused in words: it describes tools, and nothing would run their calls.
 */
export async function loadToolsModule(file: string): Promise<ToolDefinition[]> {
  if (isJsonFile(file))
    throw new CliError(
      `--tools ${file}: a JSON tool list has no code to run the tools; tagcall run takes a JS module exporting defineTool(...) definitions with handlers (a JSON list is for tagcall grammar --tools and for serve's requests)`,
    );
  let module: { default?: unknown; tools?: unknown };
  try {
    module = (await import(pathToFileURL(resolve(file)).href)) as typeof module;
  } catch (error) {
    throw new CliError(`--tools ${file} cannot be loaded: ${(error as Error).message}`);
  }
  const tools = module.tools ?? module.default;
  const valid =
    Array.isArray(tools) &&
    tools.every(
      (t) => isJsonObject(t) && typeof t.name === 'string' && typeof t.handler === 'function',
    );
  if (!valid)
    throw new CliError(
      `--tools ${file} must export \`tools\` or a default export: an array of defineTool(...) definitions`,
    );
  return tools as ToolDefinition[];
}

/** `--workspace`: a folder that exists. */
export async function checkWorkspace(dir: string): Promise<string> {
  const info = await stat(dir).catch(() => null);
  if (info === null) throw new CliError(`--workspace ${dir} does not exist`);
  if (!info.isDirectory()) throw new CliError(`--workspace ${dir} is not a folder`);
  return dir;
}
