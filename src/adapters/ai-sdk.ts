import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3FunctionTool,
  LanguageModelV3Message,
  LanguageModelV3Middleware,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import { renderToolResult } from '../messages/index.js';
import { DEFAULT_DIALECT } from '../protocol/dialect-names.js';
import {
  type Dialect,
  type ParserOptions,
  renderCallIn,
  type ToolArguments,
} from '../protocol/index.js';
import { type JsonSchema, toolPromptFor } from '../tools/index.js';
import { createNativeCalls, type NativeEvent, type NativeTool } from './native-calls.js';

export interface TagcallMiddlewareOptions {
  /**
   * The call format: a family's dialect is taught in the prompt, earlier calls are written in
   * it and replies read in it; `auto` teaches the `<tool>` protocol and reads every dialect
   * (Hermes `<tool_call>` JSON, Qwen3-Coder, Anthropic XML, Cline-style tool tags, …).
   * Default `tagcall`.
   */
  dialect?: Dialect | 'auto';
  /** Split `[thinking]` and `<think>` out as reasoning (default); false drops them. */
  thinking?: boolean;
  /** Parser options; `prefilledThinking` defaults to `'never'` so text streams at once. */
  parser?: Omit<ParserOptions, 'onEvent'>;
}

function outputText(output: LanguageModelV3ToolResultOutput): { text: string; isError: boolean } {
  switch (output.type) {
    case 'text':
      return { text: output.value, isError: false };
    case 'json':
      return { text: JSON.stringify(output.value), isError: false };
    case 'error-text':
      return { text: output.value, isError: true };
    case 'error-json':
      return { text: JSON.stringify(output.value), isError: true };
    case 'execution-denied':
      return {
        text: `execution denied${output.reason ? `: ${output.reason}` : ''}`,
        isError: true,
      };
    case 'content':
      return {
        text: output.value.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n'),
        isError: false,
      };
  }
}

/**
 * The tools' part of the system message, remembered by what it is made of: a server renders
 * the same tools for every request, and rendering them (each tool's example call included)
 * cost more than reading a whole reply. Bounded: a program that makes tools up per request
 * does not grow it forever.
 */
const sections = new Map<string, string>();
function toolSection(
  offered: readonly LanguageModelV3FunctionTool[],
  dialect: Dialect | 'auto',
  choice: LanguageModelV3CallOptions['toolChoice'],
): string {
  const require =
    choice?.type === 'required'
      ? ('any-tool' as const)
      : choice?.type === 'tool'
        ? { toolName: choice.toolName }
        : undefined;
  const tools = offered.map((t) => ({
    serverName: 'local',
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as JsonSchema,
  }));
  const key = JSON.stringify([tools, dialect, require]);
  let section = sections.get(key);
  if (section === undefined) {
    if (sections.size >= 64) sections.clear();
    section = toolPromptFor(tools, { dialect, require });
    sections.set(key, section);
  }
  return section;
}

/**
 * The prompt for a model without native tools: the tools described in the system message,
 * earlier calls written as `<tool>` blocks in the assistant's text (or as `dialect` writes
 * them), results as `Tool: name\n…` user messages, reasoning as `[…]`.
 */
export function promptForTextProtocol(
  params: LanguageModelV3CallOptions,
  dialect: Dialect | 'auto' = DEFAULT_DIALECT,
): LanguageModelV3Prompt {
  const written = dialect === 'auto' ? DEFAULT_DIALECT : dialect;
  const functions = (params.tools ?? []).filter(
    (t): t is LanguageModelV3FunctionTool => t.type === 'function',
  );
  const choice = params.toolChoice;
  const offered =
    choice?.type === 'tool' ? functions.filter((t) => t.name === choice.toolName) : functions;
  const prompt: LanguageModelV3Message[] = [];
  for (const message of params.prompt) {
    if (message.role === 'assistant') {
      const pieces: string[] = [];
      const others: typeof message.content = [];
      for (const part of message.content) {
        if (part.type === 'text') pieces.push(part.text);
        else if (part.type === 'reasoning') pieces.push(`[${part.text}]`);
        else if (part.type === 'tool-call')
          pieces.push(
            renderCallIn(written, {
              toolName: part.toolName,
              arguments: part.input as ToolArguments,
            }),
          );
        else if (part.type === 'file') others.push(part);
      }
      const text = pieces.filter((p) => p !== '').join('\n\n');
      prompt.push({ ...message, content: [{ type: 'text', text }, ...others] });
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const { text, isError } = outputText(part.output);
        const content = renderToolResult(part.toolName, text, isError);
        prompt.push({ role: 'user', content: [{ type: 'text', text: content }] });
      }
    } else prompt.push(message);
  }
  if (offered.length === 0 || choice?.type === 'none') return prompt;
  const section = toolSection(offered, dialect, choice);
  const first = prompt[0];
  if (first?.role === 'system')
    return [{ ...first, content: `${first.content}\n\n${section}` }, ...prompt.slice(1)];
  return [{ role: 'system', content: section }, ...prompt];
}

/**
 * The tools a call offers: none with `toolChoice` none, the one it names, or all. A call the
 * model writes of any other tool stays its text (the AI SDK would refuse it anyway).
 */
const toolsOf = (params: LanguageModelV3CallOptions): NativeTool[] => {
  const choice = params.toolChoice;
  if (choice?.type === 'none') return [];
  return (params.tools ?? [])
    .filter((t): t is LanguageModelV3FunctionTool => t.type === 'function')
    .filter((t) => choice?.type !== 'tool' || t.name === choice.toolName)
    .map((t) => ({ name: t.name, inputSchema: t.inputSchema as JsonSchema }));
};

const withCalls = (
  reason: LanguageModelV3FinishReason,
  calls: number,
): LanguageModelV3FinishReason => (calls > 0 ? { unified: 'tool-calls', raw: reason.raw } : reason);

/**
 * AI SDK middleware (`wrapLanguageModel({model, middleware: tagcallMiddleware()})`) that gives
 * tool calling to a model without it: the call's tools go into the prompt, and the model's
 * text comes back as text, reasoning and tool calls, streamed as the parser reads them.
 */
export function tagcallMiddleware(
  options: TagcallMiddlewareOptions = {},
): LanguageModelV3Middleware {
  // transformParams takes the tools out of the call; wrapGenerate and wrapStream receive the
  // transformed params and still need the schemas (to coerce arguments): kept here by call.
  const toolsByCall = new WeakMap<LanguageModelV3CallOptions, NativeTool[]>();
  const nativeOptions = (params: LanguageModelV3CallOptions) => {
    const tools = toolsByCall.get(params) ?? toolsOf(params);
    return {
      tools,
      onlyListed: true,
      reasoning: options.thinking ?? true,
      parser: {
        prefilledThinking: 'never' as const,
        dialect: options.dialect ?? DEFAULT_DIALECT,
        toolNames: tools.map((t) => t.name),
        ...options.parser,
      },
    };
  };
  return {
    specificationVersion: 'v3',

    transformParams: async ({ params }) => {
      const transformed = {
        ...params,
        prompt: promptForTextProtocol(params, options.dialect),
        tools: undefined,
        toolChoice: undefined,
      };
      toolsByCall.set(transformed, toolsOf(params));
      return transformed;
    },

    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      const content: LanguageModelV3Content[] = [];
      const native = createNativeCalls(nativeOptions(params), (event) => {
        const last = content.at(-1);
        if (event.type === 'text') {
          if (last?.type === 'text') last.text += event.text;
          else content.push({ type: 'text', text: event.text });
        } else if (event.type === 'reasoning-start') content.push({ type: 'reasoning', text: '' });
        else if (event.type === 'reasoning' && last?.type === 'reasoning') last.text += event.text;
        else if (event.type === 'call-end')
          content.push({
            type: 'tool-call',
            toolCallId: event.id,
            toolName: event.name,
            input: event.argumentsJson,
          });
      });
      for (const part of result.content) {
        if (part.type === 'text') native.feed(part.text);
        else content.push(part);
      }
      native.end({ cutShort: result.finishReason.unified === 'length' });
      return { ...result, content, finishReason: withCalls(result.finishReason, native.calls) };
    },

    wrapStream: async ({ doStream, params }) => {
      const { stream, ...rest } = await doStream();
      let segment: { type: 'text' | 'reasoning'; id: string } | null = null;
      let segments = 0;
      let out!: ReadableStreamDefaultController<LanguageModelV3StreamPart>;
      let told = 0;
      const tell = (part: LanguageModelV3StreamPart) => {
        told++;
        out.enqueue(part);
      };
      const close = () => {
        if (segment !== null) tell({ type: `${segment.type}-end`, id: segment.id });
        segment = null;
      };
      const open = (type: 'text' | 'reasoning') => {
        if (segment?.type === type) return segment.id;
        close();
        segment = { type, id: `${type}-${segments++}` };
        tell({ type: `${type}-start`, id: segment.id });
        return segment.id;
      };
      const onNative = (event: NativeEvent) => {
        switch (event.type) {
          case 'text':
            tell({ type: 'text-delta', id: open('text'), delta: event.text });
            break;
          case 'reasoning-start':
            close();
            open('reasoning');
            break;
          case 'reasoning':
            tell({ type: 'reasoning-delta', id: open('reasoning'), delta: event.text });
            break;
          case 'reasoning-end':
            close();
            break;
          case 'call-start':
            close();
            tell({ type: 'tool-input-start', id: event.id, toolName: event.name });
            break;
          case 'call-delta':
            tell({ type: 'tool-input-delta', id: event.id, delta: event.json });
            break;
          case 'call-end':
            tell({ type: 'tool-input-delta', id: event.id, delta: event.json });
            tell({ type: 'tool-input-end', id: event.id });
            tell({
              type: 'tool-call',
              toolCallId: event.id,
              toolName: event.name,
              input: event.argumentsJson,
            });
            break;
          case 'call-failed':
            tell({ type: 'tool-input-delta', id: event.id, delta: event.json });
            tell({ type: 'tool-input-end', id: event.id });
            break;
        }
      };
      const native = createNativeCalls(nativeOptions(params), onNative);
      let ended = false;
      /** `cutShort`: the model stopped at its token limit (see NativeCalls.end). */
      const end = (cutShort = false) => {
        if (ended) return;
        ended = true;
        native.end({ cutShort });
        close();
      };
      // One pull stream over the model's, not pipeThrough: a TransformStream is three web
      // streams and a pipe per reply (~60 µs of set-up on Node 20, more than parsing a reply).
      const source = stream.getReader();
      const take = (part: LanguageModelV3StreamPart) => {
        switch (part.type) {
          case 'text-start':
          case 'text-end':
            return;
          case 'text-delta':
            native.feed(part.delta);
            return;
          case 'finish':
            end(part.finishReason.unified === 'length');
            tell({ ...part, finishReason: withCalls(part.finishReason, native.calls) });
            return;
          default:
            tell(part);
        }
      };
      const transformed = new ReadableStream<LanguageModelV3StreamPart>({
        start(controller) {
          out = controller;
        },
        async pull(controller) {
          // Read until something is told (a pull must enqueue or close to be called again).
          const before = told;
          for (;;) {
            const { done, value } = await source.read();
            if (done) {
              end();
              controller.close();
              return;
            }
            take(value);
            if (told !== before) return;
          }
        },
        cancel: (reason) => source.cancel(reason),
      });
      return { stream: transformed, ...rest };
    },
  };
}
