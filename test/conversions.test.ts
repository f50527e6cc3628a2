import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnthropicRequest,
  assistant,
  auditLogFromJSON,
  auditLogFromJSONL,
  callsOf,
  createAuditLog,
  createMessage,
  fromAnthropic,
  fromAnthropicResponse,
  fromOpenAI,
  fromOpenAIResponse,
  fromTextProtocol,
  type Message,
  type OpenAIMessage,
  type Part,
  system,
  thinkingOf,
  toAnthropic,
  toOpenAI,
  toolError,
  toolResult,
  toTextProtocol,
  user,
} from './support/all.js';
import { treeArbitrary } from './support/trees.js';

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/providers/${name}`, import.meta.url), 'utf8')) as T;

/** Both provider fixtures hold the same conversation, so they read to the same roles. */
const FIXTURE_ROLES = ['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'user'];

describe('OpenAI Chat Completions', () => {
  const body = fixture<{ messages: OpenAIMessage[] }>('openai-chat.json');
  const messages = fromOpenAI(body);

  it('reads a request body: reasoning, tool calls with JSON arguments, tool results, images, names', () => {
    expect(messages.map((m) => m.role)).toEqual(FIXTURE_ROLES);
    expect(messages[1].sender).toBe('ana');
    expect(messages[1].parts[1]).toMatchObject({ kind: 'image', mediaType: 'image/png' });
    expect(thinkingOf(messages[2])).toEqual([
      'The test compares a < b; I should read the file first.',
    ]);
    expect(callsOf(messages[2])).toMatchObject([
      {
        id: 'call_abc123',
        serverName: 'local',
        toolName: 'read_file',
        arguments: { path: 'src/cmp.ts' },
      },
      {
        id: 'call_def456',
        serverName: 'github',
        toolName: 'search_issues',
        arguments: { labels: ['bug', 'parser'] },
      },
    ]);
    expect(messages[3].parts[0]).toMatchObject({
      callId: 'call_abc123',
      toolName: 'read_file',
      isError: false,
    });
    expect(messages[4].parts[0]).toMatchObject({
      toolName: 'search_issues',
      isError: true,
      output: 'rate limited, retry in 30 s',
    });
  });

  it('writes it back exactly', () => {
    expect(toOpenAI(messages)).toEqual(body.messages);
  });

  it('keeps broken argument JSON for the tool error instead of dropping the call', () => {
    const [m] = fromOpenAI([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
      },
    ]);
    expect(callsOf(m)[0].arguments).toEqual({ _raw: '{"a":' });
  });
});

describe('Anthropic Messages', () => {
  const body = fixture<AnthropicRequest & { model: string; max_tokens: number }>(
    'anthropic-messages.json',
  );
  const messages = fromAnthropic(body);

  it('reads system, thinking with its signature, tool_use, tool_result blocks and images', () => {
    expect(messages.map((m) => m.role)).toEqual(FIXTURE_ROLES);
    expect(messages[2].parts[0]).toEqual({
      kind: 'thinking',
      text: 'The test compares a < b; I should read the file first.',
      signature: 'EqQBCkYIBxgCKkA',
    });
    expect(callsOf(messages[2])[1]).toMatchObject({
      serverName: 'github',
      toolName: 'search_issues',
    });
    expect(messages[4].parts[0]).toMatchObject({
      callId: 'toolu_01B',
      toolName: 'search_issues',
      isError: true,
    });
  });

  it('writes it back exactly: results merged into one user turn, system apart', () => {
    const { model: _, max_tokens: __, ...request } = body;
    expect(toAnthropic(messages)).toEqual(request);
  });
});

describe('the text protocol, for models without native tools', () => {
  it('renders calls as canonical XML, thinking in brackets, results as Tool: name', () => {
    const call = {
      id: 'c1',
      toolName: 'write_to_file',
      arguments: { path: 'a.ts', content: 'x = "]]>";\n' },
    };
    const a = createMessage('assistant', [
      { kind: 'thinking', text: 'write it' },
      { kind: 'text', text: 'Writing.' },
    ]);
    a.parts.push(...assistant('', call).parts);
    const out = toTextProtocol([
      system('s'),
      user('u'),
      a,
      toolResult('c1', 'write_to_file', 'ok'),
      toolError('c1', 'write_to_file', 'disk full'),
    ]);
    expect(out[2].content).toBe(
      '[write it]\n\nWriting.\n\n<tool>\n<server_name>local</server_name>\n<tool_name>write_to_file</tool_name>\n<arguments>\n' +
        '  <path>a.ts</path>\n  <content><![CDATA[x = "]]]]><![CDATA[>";\n]]></content>\n</arguments>\n</tool>',
    );
    expect(out.slice(3)).toEqual([
      { role: 'user', content: 'Tool: write_to_file\nok' },
      { role: 'user', content: 'Tool: write_to_file\nError: disk full' },
    ]);
  });

  const safeText = fc.string({
    unit: fc.constantFrom(...'abc xyz.,!?\n'.split('')),
    minLength: 1,
    maxLength: 30,
  });
  const thinkingText = fc.string({
    unit: fc.constantFrom(...'thinking about it\n'.split('')),
    minLength: 1,
    maxLength: 30,
  });
  const part: fc.Arbitrary<Part> = fc.oneof(
    safeText.map((text): Part => ({ kind: 'text', text })),
    thinkingText.filter((t) => t.trim() === t).map((text): Part => ({ kind: 'thinking', text })),
    fc
      .tuple(
        fc.constantFrom('local', 'github'),
        fc.constantFrom('read_file', 'write_to_file'),
        treeArbitrary(fc.string({ maxLength: 20 })),
      )
      .map(
        ([serverName, toolName, args]): Part => ({
          kind: 'tool-call',
          id: 'x',
          serverName,
          toolName,
          arguments: args,
          status: 'pending',
        }),
      ),
  );

  it('property: rendering then parsing gives back the same calls and thinking', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(part, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
        (turns) => {
          const conversation: Message[] = [system('tools below')];
          for (const parts of turns) {
            conversation.push(user('next'));
            const reply = createMessage('assistant', parts);
            conversation.push(reply);
            for (const call of callsOf(reply))
              conversation.push(toolResult(call.id, call.toolName, 'done'));
          }
          const back = fromTextProtocol(toTextProtocol(conversation));
          const replies = (list: Message[]) => list.filter((m) => m.role === 'assistant');
          const shape = (m: Message) => ({
            thinking: thinkingOf(m),
            calls: callsOf(m).map(({ serverName, toolName, arguments: a }) => ({
              serverName,
              toolName,
              arguments: a,
            })),
          });
          expect(replies(back).map(shape)).toEqual(replies(conversation).map(shape));
          const results = back.filter((m) => m.role === 'tool');
          expect(
            results.every((m) => m.parts[0].kind === 'tool-result' && m.parts[0].callId !== ''),
          ).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: rendering is a fixed point (what was read back renders to the same text)', () => {
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), (parts) => {
        const first = toTextProtocol([createMessage('assistant', parts)]);
        const again = toTextProtocol(fromTextProtocol(first));
        expect(again).toEqual(first);
        expect(toTextProtocol(fromTextProtocol(again))).toEqual(first);
      }),
      { numRuns: 1000 },
    );
  });

  it('says an image a text-only model cannot see, so an image-only message is not empty', () => {
    const out = toTextProtocol([
      user([{ kind: 'image', url: 'https://example.com/a.png' }]),
      user([{ kind: 'image', mediaType: 'image/png', data: new Uint8Array([1]) }]),
      user([
        { kind: 'text', text: 'What is this?' },
        { kind: 'image', url: 'data:image/png;base64,AQ==' },
      ]),
    ]);
    expect(out.map((m) => m.content)).toEqual([
      '[image: https://example.com/a.png]',
      '[image]',
      'What is this?\n\n[image]',
    ]);
  });
});

describe('finish reasons and empty turns', () => {
  it('toOpenAI leaves out an assistant message with nothing to send', () => {
    expect(toOpenAI([user('hi'), assistant(''), user('again')])).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'again' },
    ]);
  });
  it("reads a Chat Completions response's finish_reason into finishReason", () => {
    const replies = fromOpenAIResponse({
      choices: [
        { message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' },
        { message: { role: 'assistant', content: 'cut' }, finish_reason: 'length' },
        {
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'ls', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
        { message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' },
        { message: { role: 'assistant', content: '?' }, finish_reason: 'something_new' },
      ],
    });
    expect(replies.map((m) => m.finishReason)).toEqual([
      'stop',
      'length',
      'tool-calls',
      'content-filter',
      'other',
    ]);
  });
  it("reads an Anthropic response's stop_reason into finishReason", () => {
    const reasons = [
      'end_turn',
      'max_tokens',
      'tool_use',
      'stop_sequence',
      'refusal',
      'pause_turn',
    ];
    expect(
      reasons.map(
        (stop_reason) =>
          fromAnthropicResponse({
            role: 'assistant',
            content: [{ type: 'text', text: 'x' }],
            stop_reason,
          }).finishReason,
      ),
    ).toEqual(['stop', 'length', 'tool-calls', 'stop', 'content-filter', 'other']);
  });
});

describe('audit log', () => {
  it('exports and imports JSON and JSONL losslessly, bytes and decisions included', () => {
    const log = createAuditLog();
    const image = createMessage('user', [
      { kind: 'image', mediaType: 'image/png', data: new Uint8Array([0, 1, 2, 255]) },
    ]);
    log.record(image, undefined, '2026-11-22T10:00:00.000Z');
    log.record(assistant('', { id: 'c1', toolName: 'rm', arguments: { path: '/' } }), {
      type: 'permission_denied',
      callId: 'c1',
      reason: 'outside the workspace',
    });
    log.record(toolResult('c1', 'rm', 'ok'), {
      type: 'tool_call_approved',
      callId: 'c1',
      durationMs: 12,
    });
    expect(auditLogFromJSON(log.toJSON()).entries()).toEqual(log.entries());
    expect(auditLogFromJSONL(log.toJSONL()).entries()).toEqual(log.entries());
    const bytes = auditLogFromJSONL(log.toJSONL()).entries()[0].message?.parts[0];
    expect(bytes?.kind === 'image' && bytes.data instanceof Uint8Array).toBe(true);
  });
  it("exports seed 001's shape {entries: […]} and reads the bare array too", () => {
    const log = createAuditLog();
    log.record(user('read the README'), { type: 'task' }, '2026-11-22T10:00:00.000Z');
    log.record(undefined, { type: 'run_ended', reason: 'done' }, '2026-11-22T10:00:01.000Z');
    const exported = JSON.parse(log.toJSON());
    expect(Object.keys(exported)).toEqual(['entries']);
    expect(exported.entries).toHaveLength(2);
    expect(exported.entries[1]).not.toHaveProperty('message');
    const bare = JSON.stringify(exported.entries);
    expect(auditLogFromJSON(bare).entries()).toEqual(log.entries());
  });
  it('returns copies: neither entries() nor a later change to a message rewrites the record', () => {
    const log = createAuditLog();
    const reply = assistant('', { id: 'c1', toolName: 'ls' });
    log.record(reply, { type: 'model_reply' });
    callsOf(reply)[0].status = 'failed';
    const entries = log.entries();
    entries.pop();
    expect(log.entries()).toHaveLength(1);
    expect(log.entries()[0].message?.parts[0]).toMatchObject({ status: 'pending' });
  });
  it('hands each entry to onRecord as it is recorded', () => {
    const seen: string[] = [];
    const log = createAuditLog([], { onRecord: (e) => seen.push(e.decision?.type ?? '') });
    log.record(user('x'), { type: 'task' });
    expect(seen).toEqual(['task']);
  });
});
