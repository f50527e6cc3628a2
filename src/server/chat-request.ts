import type { NativeTool } from '../adapters/index.js';
import { llamaCppGrammarFields } from '../grammar/index.js';
import { fromOpenAI, type OpenAIMessage, toTextProtocol } from '../messages/index.js';
import { type JsonSchema, toolPromptFor } from '../tools/index.js';

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
export class BadRequest extends Error {}

export function readChatRequest(text: string): ChatRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new BadRequest(`the request body is not JSON: ${(error as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new BadRequest('the request body must be a JSON object');
  const request = body as ChatRequest;
  if (!Array.isArray(request.messages) || request.messages.length === 0)
    throw new BadRequest('"messages" must be a non-empty array');
  for (const [i, m] of request.messages.entries())
    if (m === null || typeof m !== 'object' || typeof m.role !== 'string')
      throw new BadRequest(`messages[${i}] must be an object with a "role"`);
  if (request.tools !== undefined) {
    if (!Array.isArray(request.tools)) throw new BadRequest('"tools" must be an array');
    for (const [i, t] of request.tools.entries())
      if (t?.type !== 'function' || typeof t.function?.name !== 'string')
        throw new BadRequest(`tools[${i}] must be {"type": "function", "function": {"name", ...}}`);
  }
  const choice = request.tool_choice;
  if (typeof choice === 'object' && choice !== null) {
    const name = choice.function?.name;
    if (!request.tools?.some((t) => t.function.name === name))
      throw new BadRequest(`tool_choice names "${name}", which is not in "tools"`);
  }
  return request;
}

export interface UpstreamPlan {
  /** The body to send upstream: text protocol, no `tools`, always streamed. */
  body: Record<string, unknown>;
  /** The tools the reply's calls are read against (empty when the request had none). */
  tools: NativeTool[];
}

export interface PlanOptions {
  /** `model` names to rewrite on the way up. */
  modelMap?: ReadonlyMap<string, string>;
  /** Add llama.cpp grammar fields so the upstream can only write valid calls. */
  grammar?: 'llama.cpp';
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
  const rendered = toTextProtocol(fromOpenAI(request.messages));
  const messages = request.messages.map((m, i) =>
    m.role === 'assistant' || m.role === 'tool' ? rendered[i] : m,
  );
  // Always streamed from upstream; a streaming client's stream_options (usage) go along.
  const body: Record<string, unknown> = {
    ...rest,
    model,
    messages,
    stream: true,
    ...(request.stream === true &&
      streamOptions !== undefined && { stream_options: streamOptions }),
  };
  if (all.length === 0 || choice === 'none') return { body, tools: all };

  const named = typeof choice === 'object' ? choice.function.name : undefined;
  const offered = named === undefined ? all : all.filter((t) => t.name === named);
  const listed = offered.map((t) => ({ ...t, serverName: 'local' }));
  const section = toolPromptFor(listed, {
    require:
      choice === 'required' ? 'any-tool' : named === undefined ? undefined : { toolName: named },
  });
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
      }),
    );
  return { body, tools: all };
}
