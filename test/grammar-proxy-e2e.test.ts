/**
 * Grammars end to end (#27 item 4, #47): an upstream on 127.0.0.1 that does what llama-server
 * does with a grammar, sampling the tiny random model: `/apply-template` renders the messages,
 * `/v1/completions` honours `grammar`, `grammar_lazy`, `grammar_triggers` and refuses a trigger
 * word that is one token unless `preserved_tokens` lists it, and `/v1/chat/completions` drops
 * the lazy fields (the grammar applies from the first token). Behind `tagcall serve --grammar
 * llama.cpp`, and the `openai` client holds a conversation with tools through the proxy: every
 * reply is a valid call (arguments that pass the tool's schema) or a plain answer, never an
 * error, and the loop ends by its turn limit or a `task_completion` call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy } from '../src/server/index.js';
import { validateArguments } from '../src/tools/validate-arguments.js';
import type { JsonSchema, ToolLike } from './support/all.js';
import { replyVocabulary } from './support/dialect-vocabulary.js';
import {
  createGrammarSampler,
  type GrammarSampler,
  samplerInstalled,
  type Trigger,
} from './support/grammar-sampler.js';
import { listenLocal } from './support/local-server.js';
import { SCHEMA_SETS } from './support/sampler-schemas.js';

const TURNS = 6;
const CONVERSATIONS = 4;

interface UpstreamBody {
  messages?: Array<{ role: string; content: string | null }>;
  prompt?: string;
  preserved_tokens?: string[];
  stream?: boolean;
  grammar?: string;
  grammar_lazy?: boolean;
  grammar_triggers?: Trigger[];
}

const TOOLS = [
  ...SCHEMA_SETS.scalars,
  {
    name: 'task_completion',
    inputSchema: {
      type: 'object',
      properties: { result: { type: 'string' } },
      required: ['result'],
    } as JsonSchema,
  },
];
const LISTED: ToolLike[] = TOOLS.map((t) => ({ serverName: 'local', ...t }));

// The `<tool>` protocol, and families in their own formats (`serve --dialect D --grammar llama.cpp`).
describe.skipIf(!samplerInstalled).each(['tagcall', 'qwen3-coder', 'hermes'] as const)(
  'grammars through the proxy, sampled by llama.cpp: %s',
  (dialect) => {
    let sampler: GrammarSampler;
    let seed = 0;
    const grammars: string[] = [];
    let upstream: { origin: string; close: () => Promise<void> };
    let proxy: Awaited<ReturnType<typeof startProxy>>;

    const paths: string[] = [];

    async function answer(request: IncomingMessage, response: ServerResponse) {
      let raw = '';
      for await (const part of request) raw += part;
      const body = JSON.parse(raw) as UpstreamBody;
      const path = request.url ?? '';
      paths.push(path);
      const rendered = (body.messages ?? [])
        .map((m) => `${m.role}: ${m.content ?? ''}`)
        .join('\n')
        .slice(-2000);
      if (path === '/apply-template') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ prompt: `${rendered}\nassistant:` }));
        return;
      }
      const completion = path === '/v1/completions';
      if (body.grammar !== undefined) grammars.push(body.grammar);
      // llama-server's `server-schema.cpp`: a trigger word that is one token must be preserved.
      for (const trigger of completion ? (body.grammar_triggers ?? []) : [])
        if (
          trigger.type === 1 &&
          sampler.model.tokenize(trigger.value, true).length === 1 &&
          !(body.preserved_tokens ?? []).includes(trigger.value)
        ) {
          response.writeHead(400, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              error: {
                message: `Grammar trigger word should be marked as preserved token: ${trigger.value}`,
              },
            }),
          );
          return;
        }
      const sample = await sampler.sample({
        grammar: body.grammar ?? 'root ::= [^\\x00]*',
        // The chat endpoint sets the lazy fields from its template's own tools: none here.
        triggers: completion && body.grammar_lazy === true ? body.grammar_triggers : undefined,
        prompt: completion ? (body.prompt ?? '') : `${rendered}\nassistant:`,
        seed: seed++,
        maxTokens: 600,
      });
      const finish = sample.ended ? 'stop' : 'length';
      const piece = (text: string) =>
        completion ? { index: 0, text } : { index: 0, delta: { content: text } };
      if (body.stream === true) {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < sample.text.length; i += 7)
          response.write(
            `data: ${JSON.stringify({ choices: [piece(sample.text.slice(i, i + 7))] })}\n\n`,
          );
        response.write(
          `data: ${JSON.stringify({ choices: [{ ...piece(''), finish_reason: finish }] })}\n\n`,
        );
        response.end('data: [DONE]\n\n');
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: sample.text },
                finish_reason: finish,
              },
            ],
          }),
        );
      }
    }

    beforeAll(async () => {
      sampler = await createGrammarSampler(replyVocabulary(dialect, LISTED), 27);
      upstream = await listenLocal((req, res) => {
        answer(req, res).catch((error: Error) => {
          res.writeHead(500).end(error.message);
        });
      });
      proxy = await startProxy({
        upstream: `${upstream.origin}/v1`,
        grammar: 'llama.cpp',
        parser: { dialect },
      });
    }, 60_000);
    afterAll(async () => {
      await proxy?.close();
      await upstream?.close();
      await sampler?.dispose();
    });

    it('every reply is a schema-valid call or a plain answer; the loop ends by turns or task_completion', async () => {
      const tools = TOOLS;
      const schemas = new Map(tools.map((t) => [t.name, t.inputSchema]));
      const client = new OpenAI({ baseURL: proxy.url, apiKey: 'none', maxRetries: 0 });
      let calls = 0;
      let answers = 0;
      const endings: string[] = [];
      for (let c = 0; c < CONVERSATIONS; c++) {
        const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
          { role: 'user', content: `Task ${c}: edit the notes, then finish.` },
        ];
        let ending = 'turns';
        for (let turn = 0; turn < TURNS && ending === 'turns'; turn++) {
          const stream = turn % 2 === 0;
          const request = {
            model: 'tiny',
            messages,
            tools: tools.map((t) => ({
              type: 'function' as const,
              function: { name: t.name, parameters: t.inputSchema as Record<string, unknown> },
            })),
          };
          let message: {
            content: string | null;
            tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
          };
          let finish: string | null;
          if (stream) {
            const chunks = await client.chat.completions.create({ ...request, stream: true });
            let content = '';
            const byIndex = new Map<
              number,
              { id: string; function: { name: string; arguments: string } }
            >();
            finish = null;
            for await (const chunk of chunks) {
              const choice = chunk.choices[0];
              if (choice === undefined) continue;
              content += choice.delta.content ?? '';
              for (const d of choice.delta.tool_calls ?? []) {
                const call = byIndex.get(d.index) ?? {
                  id: '',
                  function: { name: '', arguments: '' },
                };
                call.id ||= d.id ?? '';
                call.function.name += d.function?.name ?? '';
                call.function.arguments += d.function?.arguments ?? '';
                byIndex.set(d.index, call);
              }
              finish = choice.finish_reason ?? finish;
            }
            message = { content, tool_calls: byIndex.size > 0 ? [...byIndex.values()] : undefined };
          } else {
            const completion = await client.chat.completions.create(request);
            const choice = completion.choices[0];
            finish = choice.finish_reason;
            message = {
              content: choice.message.content,
              tool_calls: choice.message.tool_calls?.flatMap((t) =>
                t.type === 'function' ? [t] : [],
              ),
            };
          }
          expect(['stop', 'tool_calls', 'length']).toContain(finish);
          // Only a `tool_calls` finish offers calls for execution. A lazy grammar leaves the
          // text before its trigger free, and a call the model broke there (a bare JSON line
          // Hermes reads) streams its start, then fails: the proxy then finishes `stop`.
          if (finish !== 'tool_calls') {
            answers++;
            ending = finish === 'length' ? 'cut' : 'answer';
            break;
          }
          const toolCalls = message.tool_calls ?? [];
          expect(toolCalls.length).toBeGreaterThan(0);
          messages.push({
            role: 'assistant',
            content: message.content,
            tool_calls: toolCalls.map((t) => ({ ...t, type: 'function' as const })),
          });
          for (const call of toolCalls) {
            calls++;
            const schema = schemas.get(call.function.name);
            expect(schema, call.function.name).toBeDefined();
            const args = JSON.parse(call.function.arguments);
            expect(validateArguments(args, schema as JsonSchema), JSON.stringify(args)).toEqual([]);
            if (call.function.name === 'task_completion') ending = 'task_completion';
            messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok' });
          }
        }
        endings.push(ending);
      }
      console.log('calls', calls, 'answers', answers, 'endings', endings.join(' '));
      expect(grammars.length).toBeGreaterThan(0);
      expect(calls).toBeGreaterThan(0);
      // The grammar goes where llama-server honours its lazy fields: a completion.
      expect(paths).toContain('/v1/completions');
      expect(paths).not.toContain('/v1/chat/completions');
    }, 240_000);
  },
);
