import type { NativeTool } from '../adapters/native-calls.js';
import { llamaCppGrammarFields } from '../grammar/index.js';
import {
  charEstimate,
  escapeUserText,
  fromOpenAI,
  type OpenAIMessage,
  toolNameProblem,
  toTextProtocol,
} from '../messages/index.js';
import { type Dialect, PARSER_DEFAULTS } from '../protocol/index.js';
import { isJsonObject } from '../protocol/json-call.js';
import { nestsDeeperThan } from '../protocol/json-depth.js';
import { type JsonSchema, toolPromptFor } from '../tools/index.js';
import { SCHEMA_LIMITS, schemaSizeProblem } from '../tools/schema-limits.js';
import { schemaProblem } from '../tools/validate-arguments.js';

/** The parts of a Chat Completions request the proxy reads; the rest passes through. */
export interface ChatRequest {
  model?: string;
  messages: OpenAIMessage[];
  tools?: Array<{
    type: 'function';
    function: { name: string; description?: string; parameters?: JsonSchema };
  }>;
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: boolean;
  stream?: boolean;
  [field: string]: unknown;
}

/** Why a request body cannot be served: answered with 400 and this message. */
export class BadRequest extends Error {
  /**
   * The request field at fault, as OpenAI's errors name it in `param` (`messages[0].content`,
   * `tool_choice`): the path the message begins with, or null for the body as a whole.
   */
  get param(): string | null {
    const match =
      /^"?((?:messages|tools|tool_choice|stream_options|stream|model)(?:\[\d+\]|\.[\w$]+)*)/.exec(
        this.message,
      );
    return match === null ? null : match[1];
  }
}

/** Deepest nesting of a whole request body: room for the tools' schemas (64) and more. */
const MAX_BODY_DEPTH = 128;

/** Arguments the renderer and coercion would recurse through deeper than any call is read. */
function argumentsTooDeep(json: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return false;
  }
  return nestsDeeperThan(value, PARSER_DEFAULTS.maxDepth);
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** Why a message cannot be read, or null: every shape the proxy reads is checked here. */
function messageProblem(m: unknown, at: string): string | null {
  if (!isJsonObject(m) || typeof m.role !== 'string')
    return `${at} must be an object with a "role"`;
  if (!ROLES.has(m.role))
    return `${at}.role ${JSON.stringify(m.role)} is not one of ${[...ROLES].join(', ')}`;
  const content = m.content;
  const nullable = m.role === 'assistant';
  if (content === null || content === undefined) {
    if (!nullable) return `${at}.content is required for a ${m.role} message`;
  } else if (Array.isArray(content)) {
    for (const [j, part] of content.entries()) {
      const where = `${at}.content[${j}]`;
      if (!isJsonObject(part) || typeof part.type !== 'string')
        return `${where} must be an object with a "type"`;
      if (part.type === 'text' && typeof part.text !== 'string')
        return `${where}.text must be a string`;
      if (
        part.type === 'image_url' &&
        !(isJsonObject(part.image_url) && typeof part.image_url.url === 'string')
      )
        return `${where}.image_url.url must be a string`;
    }
  } else if (typeof content !== 'string') {
    return `${at}.content must be a string or an array of parts`;
  }
  if (m.role === 'assistant' && m.tool_calls !== undefined) {
    if (!Array.isArray(m.tool_calls)) return `${at}.tool_calls must be an array`;
    for (const [j, call] of m.tool_calls.entries()) {
      const where = `${at}.tool_calls[${j}]`;
      if (!isJsonObject(call) || typeof call.id !== 'string') return `${where}.id must be a string`;
      if (!isJsonObject(call.function) || typeof call.function.name !== 'string')
        return `${where}.function.name must be a string`;
      if (typeof call.function.arguments !== 'string')
        return `${where}.function.arguments must be a string (JSON)`;
      if (argumentsTooDeep(call.function.arguments))
        return `${where}.function.arguments nests deeper than ${PARSER_DEFAULTS.maxDepth} levels (as deep as the parser reads a call's arguments)`;
    }
  }
  if (m.role === 'tool' && typeof m.tool_call_id !== 'string')
    return `${at}.tool_call_id must be a string`;
  return null;
}

/**
 * The request body, checked: every shape the proxy reads is what Chat Completions says, so a
 * client's mistake is a 400 that names the field (never a 500 from deep inside).
 */
export function readChatRequest(text: string): ChatRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new BadRequest(`the request body is not JSON: ${(error as Error).message}`);
  }
  if (!isJsonObject(body)) throw new BadRequest('the request body must be a JSON object');
  if (body.model !== undefined && typeof body.model !== 'string')
    throw new BadRequest('"model" must be a string');
  if (body.stream !== undefined && typeof body.stream !== 'boolean')
    throw new BadRequest('"stream" must be true or false');
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    throw new BadRequest('"messages" must be a non-empty array');
  for (const [i, m] of body.messages.entries()) {
    const problem = messageProblem(m, `messages[${i}]`);
    if (problem !== null) throw new BadRequest(problem);
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw new BadRequest('"tools" must be an array');
    // The work a request's schemas cost is bounded in all its tools together.
    let nodes = 0;
    for (const [i, t] of body.tools.entries()) {
      if (
        !isJsonObject(t) ||
        t.type !== 'function' ||
        !isJsonObject(t.function) ||
        typeof t.function.name !== 'string'
      )
        throw new BadRequest(`tools[${i}] must be {"type": "function", "function": {"name", ...}}`);
      const nameProblem = toolNameProblem(t.function.name);
      if (nameProblem !== null) throw new BadRequest(`tools[${i}].function.name ${nameProblem}`);
      const parameters = t.function.parameters;
      if (parameters !== undefined && !isJsonObject(parameters))
        throw new BadRequest(`tools[${i}].function.parameters must be a JSON Schema object`);
      // Read by the prompt, the grammar and validation: a schema that is no JSON Schema (an
      // `enum` that is no array) is the client's mistake, not the proxy's.
      if (parameters === undefined) continue;
      const size = schemaSizeProblem(parameters as JsonSchema, SCHEMA_LIMITS.maxNodes - nodes);
      nodes += size.nodes;
      if (nodes > SCHEMA_LIMITS.maxNodes)
        throw new BadRequest(
          `"tools" hold more than ${SCHEMA_LIMITS.maxNodes} schema values (the parameters of all tools together); send fewer or smaller schemas`,
        );
      const problem = schemaProblem(parameters as JsonSchema, size);
      if (problem !== null) throw new BadRequest(`tools[${i}].function.parameters${problem}`);
    }
  }
  const request = body as ChatRequest;
  const choice = request.tool_choice;
  if (choice !== undefined && typeof choice !== 'string' && !isJsonObject(choice))
    throw new BadRequest(
      '"tool_choice" must be "none", "auto", "required" or {"type": "function", ...}',
    );
  if (typeof choice === 'string' && !['none', 'auto', 'required'].includes(choice))
    throw new BadRequest(`"tool_choice" ${JSON.stringify(choice)} is not none, auto or required`);
  if (isJsonObject(choice)) {
    const name = isJsonObject(choice.function) ? choice.function.name : undefined;
    if (!request.tools?.some((t) => t.function.name === name))
      throw new BadRequest(`tool_choice names "${String(name)}", which is not in "tools"`);
  }
  if (request.stream_options !== undefined && !isJsonObject(request.stream_options))
    throw new BadRequest('"stream_options" must be an object');
  // Fields passed through to the upstream are written out again by JSON.stringify, which
  // recurses (a field 20,000 levels deep overflowed the stack). Checked last: the fields read
  // above have limits of their own, named in their messages.
  if (nestsDeeperThan(body, MAX_BODY_DEPTH))
    throw new BadRequest(`the request body nests deeper than ${MAX_BODY_DEPTH} levels`);
  return request;
}

export interface UpstreamPlan {
  /** The body to send upstream: text protocol, no `tools`, always streamed. */
  body: Record<string, unknown>;
  /** The tools the reply's calls are read against (empty when the request had none). */
  tools: NativeTool[];
}

/** A user message with its `Tool: ` lines escaped, so the model cannot take them for a result. */
function escapedUser(m: Extract<OpenAIMessage, { role: 'user' }>): OpenAIMessage {
  return {
    ...m,
    content:
      typeof m.content === 'string'
        ? escapeUserText(m.content)
        : m.content.map((p) => (p.type === 'text' ? { ...p, text: escapeUserText(p.text) } : p)),
  };
}

export interface PlanOptions {
  /** `model` names to rewrite on the way up. */
  modelMap?: ReadonlyMap<string, string>;
  /**
   * The call format the model is taught and its earlier calls are written in (the one its
   * replies are read in). Default and `auto`: the `<tool>` protocol.
   */
  dialect?: Dialect | 'auto';
  /**
   * Add llama.cpp grammar fields so the upstream can only write valid calls, in the format of
   * `dialect` (the `<tool>` protocol for `auto`).
   */
  grammar?: 'llama.cpp';
  /** Tokens the upstream's context holds: a larger tool prompt is a `BadRequest`. */
  budget?: number;
}

/**
 * The request for a model without native tools: the tools described in the system message
 * (with a line for `tool_choice` `required` or a named function), earlier calls and results
 * in the text protocol. `tool_choice: "none"` leaves the tools out of the prompt.
 */
export function planUpstream(request: ChatRequest, options: PlanOptions = {}): UpstreamPlan {
  // Fields the upstream must not see: it has no tools, and the proxy always streams from it.
  const {
    tools: declared,
    tool_choice: choice,
    parallel_tool_calls: parallel,
    stream_options: streamOptions,
    ...rest
  } = request;
  const model =
    request.model === undefined
      ? undefined
      : (options.modelMap?.get(request.model) ?? request.model);
  const all: NativeTool[] = (declared ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description,
    inputSchema: t.function.parameters ?? { type: 'object', properties: {} },
  }));
  // Assistant turns (calls as `<tool>` blocks, reasoning as `[…]`) and tool results (`Tool:
  // name` user messages) by the library's own conversion; system and user messages as they
  // came, images kept. Both conversions give one message per message here (an OpenAI tool
  // message holds one result), so they line up by index.
  const dialect =
    options.dialect === undefined || options.dialect === 'auto' ? 'tagcall' : options.dialect;
  const rendered = toTextProtocol(fromOpenAI(request.messages), { dialect });
  const messages = request.messages.map((m, i) =>
    m.role === 'assistant' || m.role === 'tool'
      ? rendered[i]
      : m.role === 'user'
        ? escapedUser(m)
        : m,
  );
  // Always streamed from upstream, always with usage: a client that does not stream gets it
  // in its answer; one that streams gets it only when its stream_options ask (proxy.ts).
  const body: Record<string, unknown> = {
    ...rest,
    model,
    messages,
    stream: true,
    stream_options: {
      ...(request.stream === true && isJsonObject(streamOptions) && streamOptions),
      include_usage: true,
    },
  };
  // With "none" no tool is offered: a call the model writes anyway stays its text.
  if (all.length === 0 || choice === 'none') return { body, tools: [] };

  const named = typeof choice === 'object' ? choice.function.name : undefined;
  const offered = named === undefined ? all : all.filter((t) => t.name === named);
  const listed = offered.map((t) => ({ ...t, serverName: 'local' }));
  const section = toolPromptFor(listed, {
    dialect,
    require:
      choice === 'required' ? 'any-tool' : named === undefined ? undefined : { toolName: named },
    parallelCalls: parallel !== false,
  });
  const promptTokens = charEstimate.count(section);
  if (options.budget !== undefined && promptTokens > options.budget)
    throw new BadRequest(
      `"tools": the tool prompt is ${promptTokens} tokens, more than the budget of ${options.budget} tokens (tagcall serve --budget), so the model could not read the conversation: send fewer tools or shorter descriptions, or give the model server a larger context`,
    );
  const first = messages[0];
  body.messages =
    first?.role === 'system' || first?.role === 'developer'
      ? [{ ...first, content: `${rendered[0].content}\n\n${section}` }, ...messages.slice(1)]
      : [{ role: 'system', content: section }, ...messages];
  if (options.grammar === 'llama.cpp')
    Object.assign(
      body,
      llamaCppGrammarFields(listed, {
        toolChoice: choice === 'required' || named !== undefined ? 'required' : 'auto',
        maxCalls: parallel === false ? 1 : undefined,
        dialect,
      }),
    );
  return { body, tools: offered };
}
