/**
 * `tagcall serve --grammar llama.cpp` in front of a real llama-server (#47): the server built
 * from the llama.cpp source node-llama-cpp bundles (test/support/build-llama-server.sh, once
 * per machine), started on the tiny random-weight model with each family's tokens in its
 * vocabulary, and the `openai` client behind the proxy. Per family: under `auto` replies come
 * back as text answers and as calls (the lazy grammar leaves the model free until its
 * trigger), under `required` and a named `tool_choice` always as calls; every call passes its
 * schema and is what the parser reads from the raw text the server wrote (recorded between
 * the proxy and the server). Where llama-server is not built, the test says so and skips.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { startProxy } from '../src/server/index.js';
import { coerceArguments } from '../src/tools/coerce.js';
import { validateArguments } from '../src/tools/validate-arguments.js';
import {
  DIALECTS,
  type Dialect,
  type JsonSchema,
  llamaCppGrammarFields,
  parse,
  type ToolLike,
} from './support/all.js';
import { replyVocabulary } from './support/dialect-vocabulary.js';
import { type Trigger, triggerStart } from './support/grammar-sampler.js';
import { llamaServerBinary, startLlamaServer } from './support/llama-server.js';
import { SCHEMA_SETS } from './support/sampler-schemas.js';
import { type TinyVocabulary, writeTinyGguf } from './support/tiny-gguf.js';

/** Requests a family: `auto` ones (seeds 0…), `required` ones, one naming a tool. */
const AUTO = 12;
const REQUIRED = 2;
/** Under `auto`; under a calls-only grammar a random model can write long strings: more room. */
const MAX_TOKENS = 300;
const MAX_TOKENS_REQUIRED = 1200;
/** `</s>`, the tiny model's end of reply (tiny-gguf.ts), and the biases the `auto` requests give it in turn. */
const END_TOKEN = 2;
/**
 * The random weights' seed. With 27 (the sampler tests'), the model never wrote gpt-oss's or
 * xLAM's trigger in 12 requests: whether a random model reaches a trigger is its weights'.
 */
const MODEL_SEED = 28;
const END_BIASES = [0, 0, 3, 6];

const TOOLS = SCHEMA_SETS.scalars;
const LISTED: ToolLike[] = TOOLS.map((t) => ({ serverName: 'local', ...t }));
const SCHEMAS = new Map(TOOLS.map((t) => [t.name, t.inputSchema]));

const binary = await llamaServerBinary();
if ('missing' in binary) console.warn(`llama-server-e2e skipped: ${binary.missing}`);

interface Recorded {
  body: { grammar_lazy?: boolean; grammar_triggers?: Trigger[] };
  text: string;
  /** The server's: `length` when the reply was cut at `max_tokens`. */
  finish: string | null;
}

/**
 * Passes requests on to the server as they are and records each completion's request and the
 * text it streamed back (what the model wrote, special tokens included where preserved).
 */
async function recorder(origin: string) {
  const completions: Recorded[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    (async () => {
      let raw = '';
      for await (const part of request) raw += part;
      const send = () =>
        fetch(`${origin}${request.url}`, {
          method: request.method,
          headers: { 'content-type': 'application/json' },
          body: request.method === 'GET' ? undefined : raw,
        });
      // A kept-alive socket the server closed meanwhile fails the first try: one more.
      const upstream = await send().catch(send);
      const reply = await upstream.text();
      if (request.url === '/v1/completions' && upstream.ok) {
        let text = '';
        let finish: string | null = null;
        for (const line of reply.split('\n')) {
          if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
          const chunk = JSON.parse(line.slice(6)) as {
            choices?: Array<{ text?: string; finish_reason?: string | null }>;
          };
          text += chunk.choices?.[0]?.text ?? '';
          finish = chunk.choices?.[0]?.finish_reason ?? finish;
        }
        completions.push({ body: JSON.parse(raw), text, finish });
      }
      response.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      response.end(reply);
    })().catch((error: Error) => response.writeHead(502).end(error.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    completions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Call {
  name: string;
  arguments: unknown;
}

/**
 * The calls the parser reads in a reply, by the rule serve follows (docs/grammars.md): under a
 * lazy grammar, those in the text from the trigger on (what the grammar wrote); none when the
 * trigger never fired.
 */
function expectedCalls(dialect: Dialect, recorded: Recorded): Call[] {
  const { text, body } = recorded;
  let start = body.grammar_lazy === true ? -1 : 0;
  // The server searches the triggers after every token: the first text that matches decides.
  for (let end = 1; start === -1 && end <= text.length; end++)
    start = triggerStart(text.slice(0, end), body.grammar_triggers ?? []);
  if (start === -1) return [];
  return parse(text.slice(start), {
    dialect,
    toolNames: TOOLS.map((t) => t.name),
    prefilledThinking: 'never',
  })
    .calls.filter((c) => SCHEMAS.has(c.toolName))
    .map((c) => ({
      name: c.toolName,
      arguments: coerceArguments(c.arguments, SCHEMAS.get(c.toolName) as JsonSchema),
    }));
}

/**
 * The sampler tests' vocabulary, but for the pieces that join a newline to a trigger word
 * (`\n<tool_call>`): llama-server turns a one-token trigger word into a token trigger, which
 * fires on that token only, and a real vocabulary has no token that holds a special token and
 * more.
 */
function serverVocabulary(dialect: Dialect): TinyVocabulary {
  const vocabulary = replyVocabulary(dialect, LISTED);
  if (dialect === 'tagcall') return vocabulary;
  const words = new Set(
    llamaCppGrammarFields(LISTED, { dialect })
      .grammar_triggers.filter((t) => t.type === 1)
      .map((t) => `\n${t.value}`),
  );
  return {
    ...vocabulary,
    pieces: vocabulary.pieces.filter((p) => !words.has(p)),
  };
}

/**
 * A known defect, kept failing so that a fix turns it red: under `required`, the tiny random
 * model's Kimi K3 replies run to max_tokens inside a value (the value's close is three tokens,
 * `<|close|>`, `argument`, `<|sep|>`, which random sampling seldom writes in a row), so the
 * reply ends `length`, not `tool_calls`. The grammar itself is proven by
 * test/dialect-grammar-sampler.test.ts (node-llama-cpp, calls only and lazy).
 */
const KNOWN_LENGTH_UNDER_REQUIRED: ReadonlySet<string> = new Set(['kimi-k3']);

describe.skipIf('missing' in binary)('tagcall serve in front of a real llama-server', () => {
  for (const dialect of DIALECTS)
    (KNOWN_LENGTH_UNDER_REQUIRED.has(dialect) ? it.fails : it)(
      `${dialect}: text and calls under auto, calls under required and a named tool`,
      async () => {
        const model = await writeTinyGguf(serverVocabulary(dialect), MODEL_SEED);
        const server = await startLlamaServer((binary as { path: string }).path, model);
        const record = await recorder(server.origin);
        const proxy = await startProxy({
          upstream: `${record.origin}/v1`,
          grammar: 'llama.cpp',
          parser: { dialect },
        });
        const client = new OpenAI({ baseURL: proxy.url, apiKey: 'none', maxRetries: 0 });
        const kinds: string[] = [];
        let cut = 0;
        try {
          const ask = async (
            seed: number,
            toolChoice: OpenAI.Chat.ChatCompletionToolChoiceOption,
            endBias = 0,
          ): Promise<{ calls: Call[]; finish: string }> => {
            const completion = await client.chat.completions.create({
              model: 'tiny',
              messages: [{ role: 'user', content: `Task ${seed}: edit the notes.` }],
              tools: TOOLS.map((t) => ({
                type: 'function' as const,
                function: { name: t.name, parameters: t.inputSchema as Record<string, unknown> },
              })),
              tool_choice: toolChoice,
              max_tokens: toolChoice === 'auto' ? MAX_TOKENS : MAX_TOKENS_REQUIRED,
              seed,
              temperature: 1,
              // The tiny model's end-of-reply token (tiny-gguf.ts): favoured in some requests, so
              // that replies end before a trigger (text answers) as well as reach one (calls).
              logit_bias: { [END_TOKEN]: endBias },
            });
            const choice = completion.choices[0];
            const calls = (choice.message.tool_calls ?? []).flatMap((t) =>
              t.type === 'function'
                ? [{ name: t.function.name, arguments: JSON.parse(t.function.arguments) }]
                : [],
            );
            const recorded = record.completions.at(-1) as Recorded;
            const where = `${dialect}, seed ${seed}, ${recorded.finish}: ${JSON.stringify(recorded.text)}`;
            // A reply cut at max_tokens may end inside the grammar's last call, which the parser
            // reads recovered (`unclosed-call-at-end`): validity is asked of replies that ended.
            if (recorded.finish === 'length') cut++;
            else
              for (const call of calls)
                expect(
                  validateArguments(call.arguments, SCHEMAS.get(call.name) as JsonSchema),
                  where,
                ).toEqual([]);
            // JSON both ways: -0 is written 0.
            if (choice.finish_reason === 'tool_calls')
              expect(JSON.stringify(calls), where).toBe(
                JSON.stringify(expectedCalls(dialect, recorded)),
              );
            else expect(calls, where).toEqual([]);
            return { calls, finish: choice.finish_reason };
          };

          for (let seed = 0; seed < AUTO; seed++) {
            const { calls, finish } = await ask(seed, 'auto', END_BIASES[seed % END_BIASES.length]);
            kinds.push(calls.length > 0 ? 'call' : finish === 'stop' ? 'text' : finish);
          }
          for (let seed = 0; seed < REQUIRED; seed++) {
            const { calls, finish } = await ask(100 + seed, 'required');
            expect(finish).toBe('tool_calls');
            expect(calls.length).toBeGreaterThan(0);
          }
          const named = await ask(200, { type: 'function', function: { name: 'note' } });
          expect(named.finish).toBe('tool_calls');
          expect(named.calls.map((c) => c.name)).toEqual(named.calls.map(() => 'note'));
          expect(named.calls.length).toBeGreaterThan(0);
          // The lazy grammar left the model free: some `auto` replies are text, some calls.
          console.log(dialect, 'auto replies:', kinds.join(' '), '| cut at max_tokens:', cut);
          expect(
            kinds,
            JSON.stringify(record.completions.slice(0, AUTO).map((c) => c.text.slice(0, 300))),
          ).toEqual(expect.arrayContaining(['call', 'text']));
        } catch (error) {
          (error as Error).message += `\nllama-server's log:\n${server.log().slice(-3000)}`;
          throw error;
        } finally {
          await proxy.close();
          await record.close();
          await server.close();
        }
      },
      300_000,
    );
});
