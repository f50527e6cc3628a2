import {
  createNativeCalls,
  type NativeCalls,
  type NativeCallsOptions,
  type NativeEvent,
} from '../adapters/native-calls.js';
import { createTriggerSearch } from '../grammar/trigger-search.js';
import type { GrammarTrigger } from '../grammar/triggers.js';
import { isJsonObject } from '../protocol/json-call.js';

/**
 * `tagcall serve --grammar llama.cpp` asks llama-server for a completion, not a chat
 * completion: its `/v1/chat/completions` sets `grammar_lazy`, `grammar_triggers` and
 * `preserved_tokens` from its chat template's own tool handling (none for a request without
 * `tools`) and drops the body's, so a lazy grammar would apply from the first token and every
 * `auto` reply would be a call. Its `/v1/completions` copies every field of the body to the
 * sampler (`oaicompat_completion_params_parse`), so the prompt is rendered first by the
 * server's own chat template (`POST /apply-template` at the server's root, the same rendering
 * `/v1/chat/completions` does) and sent with the grammar fields. docs/grammars.md, "Behind a
 * real llama-server".
 */

/** The chat request's fields that are no sampling parameters of a completion. */
const CHAT_ONLY = new Set(['messages', 'chat_template_kwargs', 'reasoning_effort', 'tools']);
/** The grammar fields: the template must not see them (they are the completion's). */
const GRAMMAR_FIELDS = new Set(['grammar', 'grammar_lazy', 'grammar_triggers', 'preserved_tokens']);

/** The server's root for a base URL that ends in `/v1` (`/apply-template` is served there). */
export function upstreamRoot(upstream: string): string {
  return upstream.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** The body of `POST /apply-template`: the messages and what the template reads besides. */
export function templateRequest(chat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(chat))
    if (!GRAMMAR_FIELDS.has(key) && key !== 'stream' && key !== 'stream_options') out[key] = value;
  return out;
}

/** The prompt `/apply-template` answered, or an error naming what came back instead. */
export function promptOf(reply: string): string {
  let value: unknown;
  try {
    value = JSON.parse(reply);
  } catch {
    throw new Error('the upstream answered /apply-template with no JSON');
  }
  if (!isJsonObject(value) || typeof value.prompt !== 'string')
    throw new Error('the upstream answered /apply-template without a "prompt" string');
  return value.prompt;
}

/** The `/v1/completions` body: the rendered prompt, the grammar fields, the sampling parameters. */
export function completionRequest(
  chat: Record<string, unknown>,
  prompt: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(chat)) if (!CHAT_ONLY.has(key)) out[key] = value;
  // Chat Completions' newer name for the limit; the server reads `max_tokens`.
  if (out.max_tokens === undefined && chat.max_completion_tokens !== undefined)
    out.max_tokens = chat.max_completion_tokens;
  delete out.max_completion_tokens;
  out.prompt = prompt;
  return out;
}

/** The longest token text that may stand after a trigger's match in one piece of the stream. */
const TOKEN_SLACK = 64;

/** The triggers of a lazy grammar the upstream body carries (none without one). */
export function grammarTriggersOf(body: Record<string, unknown>): GrammarTrigger[] {
  return body.grammar_lazy === true && Array.isArray(body.grammar_triggers)
    ? (body.grammar_triggers as GrammarTrigger[])
    : [];
}

/**
 * Reads a reply sampled under a lazy grammar. The calls are what the grammar wrote: the reply
 * from the trigger on, read by a parser of its own. The text before the trigger fired is the
 * model's free text: read on its own for thinking, never for calls (a call-like construct in
 * it, whole or broken, was not constrained and stays text as written), and ended where the
 * trigger fired, so whatever it left unfinished (a fence, a thinking block, a broken call)
 * never swallows the grammar's call. A reply whose trigger never fired is all free text.
 * Without triggers (a calls-only grammar) it is one parser.
 */
export function createLazyReply(
  options: NativeCallsOptions,
  emit: (event: NativeEvent) => void,
  triggers: readonly GrammarTrigger[],
): NativeCalls {
  if (triggers.length === 0) return createNativeCalls(options, emit);
  const search = createTriggerSearch(triggers);
  // A trigger's opening begins at most its match's length (within its source's) before the
  // end of the token that made it match, and a token is seldom longer than 64 characters:
  // the free text's last that many characters wait, so the split falls in them.
  const held = Math.max(...triggers.map((t) => t.value.length)) + TOKEN_SLACK;
  // No tool is listed while the text is free: a call read there comes back as its text.
  let current = createNativeCalls({ ...options, tools: [], onlyListed: true }, emit);
  let fed = 0;
  let pending = '';
  let split = false;
  return {
    feed(text: string) {
      if (split) {
        current.feed(text);
        return;
      }
      pending += text;
      const at = search.push(text);
      if (at === -1) {
        const ready = pending.length - held;
        if (ready > 0) {
          current.feed(pending.slice(0, ready));
          fed += ready;
          pending = pending.slice(ready);
        }
        return;
      }
      split = true;
      const cut = Math.min(Math.max(0, at - fed), pending.length);
      if (cut > 0) current.feed(pending.slice(0, cut));
      current.end();
      current = createNativeCalls(options, emit);
      current.feed(pending.slice(cut));
      pending = '';
    },
    end(endOptions) {
      if (pending !== '') current.feed(pending);
      pending = '';
      current.end(endOptions);
    },
    get calls() {
      return current.calls;
    },
  };
}
