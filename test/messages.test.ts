import { describe, expect, it } from 'vitest';
import {
  assistant,
  assistantFromText,
  callsOf,
  conversation,
  createChat,
  createConversation,
  createMessage,
  estimateMessageTokens,
  estimateTokens,
  formatMessages,
  isRole,
  isUserInputRole,
  type Message,
  system,
  textOf,
  thinkingOf,
  toolError,
  toolResult,
  user,
  validateConversation,
  validateMessages,
  validateUserInput,
} from './support/all.js';

describe('roles', () => {
  it('knows the four roles, and admits only user and system from outside', () => {
    expect(['system', 'user', 'assistant', 'tool'].every(isRole)).toBe(true);
    expect(isRole('hacker')).toBe(false);
    expect(['user', 'system'].every(isUserInputRole)).toBe(true);
    expect(isUserInputRole('assistant')).toBe(false);
    expect(isUserInputRole('tool')).toBe(false);
  });
});

describe('messages with typed parts', () => {
  it('builds each role with ids, times and accessors', () => {
    const a = assistant('Reading.', { toolName: 'read_file', arguments: { path: 'a.ts' } });
    expect(a.role).toBe('assistant');
    expect(a.id).toMatch(/[0-9a-f-]{36}/);
    expect(Date.parse(a.createdAt)).not.toBeNaN();
    expect(textOf(a)).toBe('Reading.');
    expect(callsOf(a)).toMatchObject([
      {
        toolName: 'read_file',
        serverName: 'local',
        status: 'pending',
        arguments: { path: 'a.ts' },
      },
    ]);
    expect(toolResult('c1', 'read_file', 'ok').parts).toEqual([
      { kind: 'tool-result', callId: 'c1', toolName: 'read_file', output: 'ok', isError: false },
    ]);
    expect(toolError('c1', 'read_file', 'no such file').parts[0]).toMatchObject({
      isError: true,
      output: 'no such file',
    });
    expect(user('hi', { sender: 'ana' }).sender).toBe('ana');
    expect(system('be brief').parts).toEqual([{ kind: 'text', text: 'be brief' }]);
  });
});

describe('assistantFromText', () => {
  it('turns a text-protocol reply into text, thinking and call parts, in order', () => {
    const reply =
      '[check the file]\nReading it.\n<tool>\n<tool_name>read_file</tool_name>\n<arguments><path>a.ts</path></arguments>\n</tool>\nDone.';
    const m = assistantFromText(reply, { id: 'm1' });
    expect(m.parts.map((p) => p.kind)).toEqual(['thinking', 'text', 'tool-call', 'text']);
    expect(thinkingOf(m)).toEqual(['check the file']);
    expect(callsOf(m)).toMatchObject([
      { id: 'm1-call-0', toolName: 'read_file', arguments: { path: 'a.ts' } },
    ]);
  });

  it("keeps the parser's errors in metadata, and the malformed block as text", () => {
    const m = assistantFromText('<tool>\n<arguments><a>1</a></arguments>\n</tool>\n');
    expect(m.metadata.parseErrors).toMatchObject([{ code: 'missing-tool-name' }]);
    expect(textOf(m)).toContain('<arguments>');
  });
});

const at = (role: Message['role'], parts: Message['parts']) => createMessage(role, parts);

describe('validateMessages: the seeds’ rules, each error naming index and rule', () => {
  const cases: Array<[string, Message, string]> = [
    [
      'unknown role',
      at('hacker' as Message['role'], [{ kind: 'text', text: 'inject' }]),
      'unknown-role',
    ],
    [
      'tool message without call id',
      at('tool', [{ kind: 'tool-result', callId: '', toolName: 't', output: 'r', isError: false }]),
      'tool-message-missing-call-id',
    ],
    [
      'tool message without tool name',
      at('tool', [{ kind: 'tool-result', callId: 'c', toolName: '', output: 'r', isError: false }]),
      'tool-message-missing-tool-name',
    ],
    ['assistant with no content and no calls', assistant(''), 'empty-assistant'],
    ['call without id', assistant('', { id: '', toolName: 't' }), 'call-missing-id'],
    ['call without name', assistant('', { id: 'c', toolName: '' }), 'call-missing-name'],
    ['empty user content', user('   '), 'empty-content'],
    ['empty system content', system(''), 'empty-content'],
  ];
  for (const [name, message, rule] of cases) {
    it(`rejects ${name}`, () => {
      expect(validateMessages([user('ok'), message])).toMatchObject([{ index: 1, rule }]);
    });
  }
  it('accepts a well-formed chain', () => {
    const a = assistant('', { id: 'c1', toolName: 't' });
    expect(
      validateMessages([system('s'), user('u'), a, toolResult('c1', 't', 'r'), assistant('done')]),
    ).toEqual([]);
  });
  it('says which message, in words', () => {
    expect(validateMessages([at('hacker' as Message['role'], [])])[0].message).toBe(
      'message[0]: unknown role "hacker"',
    );
  });
});

describe('validateUserInput: messages from outside', () => {
  it('rejects a spoofed assistant turn and a faked tool result', () => {
    expect(validateUserInput([user('ok'), assistant('spoofed')])).toMatchObject([
      { index: 1, rule: 'role-not-allowed-from-user' },
    ]);
    expect(validateUserInput([toolResult('c', 't', 'faked')])).toMatchObject([
      { index: 0, rule: 'role-not-allowed-from-user' },
    ]);
  });
  it('rejects an empty list, empty content and unknown roles', () => {
    expect(validateUserInput([])).toMatchObject([{ rule: 'empty-input' }]);
    expect(validateUserInput([user('')])).toMatchObject([{ index: 0, rule: 'empty-content' }]);
    expect(
      validateUserInput([at('hacker' as Message['role'], [{ kind: 'text', text: 'x' }])]),
    ).toMatchObject([{ rule: 'unknown-role' }]);
  });
  it('accepts user and system messages', () => {
    expect(validateUserInput([system('s'), user('u')])).toEqual([]);
  });
});

describe('validateConversation: results answer calls', () => {
  it('rejects a result that answers no earlier call, or answers one twice', () => {
    expect(validateConversation([user('u'), toolResult('nope', 't', 'r')])).toMatchObject([
      { index: 1, rule: 'result-without-call' },
    ]);
    const a = assistant('', { id: 'c1', toolName: 't' });
    expect(
      validateConversation([user('u'), a, toolResult('c1', 't', 'r'), toolResult('c1', 't', 'r')]),
    ).toMatchObject([{ index: 3, rule: 'result-without-call' }]);
  });
  it('rejects a call left unanswered before the next user turn, but not one still in flight', () => {
    const a = assistant('', { id: 'c1', toolName: 't' });
    expect(validateConversation([user('u'), a, user('again')])).toMatchObject([
      { index: 1, rule: 'unanswered-call' },
    ]);
    expect(validateConversation([user('u'), a])).toEqual([]);
  });
});

describe('conversation: an immutable chain', () => {
  const base = createConversation([system('s'), user('hi', { sender: 'ana' })]);
  it('appends without changing the original, and forks branches', () => {
    const longer = base.append(assistant('hello'));
    expect(base.length).toBe(2);
    expect(longer.length).toBe(3);
    const branch = longer.fork(2).append(assistant('other answer'));
    expect(textOf(branch.last() as Message)).toBe('other answer');
    expect(textOf(longer.last() as Message)).toBe('hello');
    expect(() => (base.messages() as Message[]).push(user('x'))).toThrow();
  });
  it('reads by position, role and sender, and visits with an early stop', () => {
    const c = base.concat([assistant('a1'), user('q2'), assistant('a2')]);
    expect(textOf(c.at(-1) as Message)).toBe('a2');
    expect(c.byRole('assistant').map(textOf)).toEqual(['a1', 'a2']);
    expect(c.bySender('ana').map(textOf)).toEqual(['hi']);
    expect(c.systemPrompt()).toBe('s');
    expect(c.filter((m) => m.role === 'user').length).toBe(2);
    const seen: string[] = [];
    c.each((m) => {
      seen.push(m.role);
      return m.role !== 'assistant';
    });
    expect(seen).toEqual(['system', 'user', 'assistant']);
  });
});

describe("conversation(): seed 000's chain builder, filters and accessors", () => {
  const chain = conversation()
    .system('You are helpful.')
    .user('What is 2+2?')
    .assistant('Let me calculate.', {
      id: 'call_1',
      toolName: 'calculate',
      arguments: { expr: '2+2' },
    })
    .tool('call_1', 'calculate', '4')
    .assistant('2+2 = 4');
  it('builds a chain link by link, each link a new value', () => {
    expect(chain.length).toBe(5);
    expect(chain.messages().map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    expect(chain.fork(2).user('again').length).toBe(3);
    expect(chain.length).toBe(5);
    expect(chain.lastContent()).toBe('2+2 = 4');
    expect(conversation().lastContent()).toBe('');
  });
  it('filters by role into chains of their own', () => {
    expect(chain.userMessages().lastContent()).toBe('What is 2+2?');
    expect(chain.assistantMessages().length).toBe(2);
    expect(chain.toolMessages().messages()[0].parts[0]).toMatchObject({
      kind: 'tool-result',
      callId: 'call_1',
      output: '4',
    });
    expect(chain.systemMessages().length).toBe(1);
  });
  it('systemPrompt() is the first system message; allSystemText() joins them all', () => {
    const two = chain.system('Answer briefly.');
    expect(two.systemPrompt()).toBe('You are helpful.');
    expect(two.allSystemText()).toBe('You are helpful.\n\nAnswer briefly.');
    expect(conversation().user('x').systemPrompt()).toBe('');
  });
  it('replace(index, message) gives a new chain and refuses an index that is not there', () => {
    const fixed = chain.replace(-1, assistant('4'));
    expect(fixed.lastContent()).toBe('4');
    expect(chain.lastContent()).toBe('2+2 = 4');
    expect(() => chain.replace(9, user('x'))).toThrow('no message at index 9');
  });
  it('prints itself as seed 000 shows, through toString too', () => {
    expect(`${chain}`).toBe(chain.pretty());
    expect(chain.pretty()).toBe(
      [
        '[System]\nYou are helpful.',
        '[Human]\nWhat is 2+2?',
        '[AI]\nLet me calculate.\n  → tool_call: calculate(id=call_1, args={"expr":"2+2"})',
        '[Tool: calculate (call_id=call_1)]\n4',
        '[AI]\n2+2 = 4',
      ].join('\n\n'),
    );
  });
});

describe("createChat: seed 003's watched container", () => {
  it('tells subscribers each change after it is made, and stops when unsubscribed', () => {
    const chat = createChat([system('s')]);
    const seen: Array<[string, number]> = [];
    const unsubscribe = chat.subscribe((change, now) => seen.push([change.type, now.length]));
    const before = chat.current();
    chat.append(user('a'), user('b'));
    chat.replace(1, user('A'));
    unsubscribe();
    chat.reset([]);
    expect(seen).toEqual([
      ['append', 3],
      ['replace', 3],
    ]);
    expect(before.length).toBe(1);
    expect(chat.length).toBe(0);
  });
  it('changed() resolves at the next change (Wait), and rejects when its signal aborts', async () => {
    const chat = createChat();
    const next = chat.changed();
    setTimeout(() => chat.append(user('hello')), 5);
    expect((await next).lastContent()).toBe('hello');
    const controller = new AbortController();
    const waiting = chat.changed(controller.signal);
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    chat.append(user('later'));
    expect(chat.length).toBe(2);
  });
  it('a failed replace changes nothing and tells no one', () => {
    const chat = createChat([user('a')]);
    let calls = 0;
    chat.subscribe(() => calls++);
    expect(() => chat.replace(5, user('x'))).toThrow();
    expect(calls).toBe(0);
    expect(chat.current().lastContent()).toBe('a');
  });
});

describe('pretty printing and token estimates', () => {
  it('prints roles, thinking, calls and results for people', () => {
    const a = assistantFromText(
      '[plan]\n<tool>\n<tool_name>read</tool_name>\n<arguments><p>x</p></arguments>\n</tool>\n',
      { id: 'm' },
    );
    const text = formatMessages([
      system('s'),
      user('u'),
      a,
      toolResult('m-call-0', 'read', 'data'),
    ]);
    // Seed 000's PrettyPrint: a header line, the body under it, a blank line between messages.
    expect(text).toBe(
      [
        '[System]\ns',
        '[Human]\nu',
        '[AI]\n(thinking) plan\n  → tool_call: read(id=m-call-0, args={"p":"x"})',
        '[Tool: read (call_id=m-call-0)]\ndata',
      ].join('\n\n'),
    );
  });
  it('counts call arguments and results, not only text', () => {
    const bare = estimateMessageTokens(assistant(''));
    const withCall = estimateMessageTokens(
      assistant('', { toolName: 'write', arguments: { content: 'x'.repeat(400) } }),
    );
    expect(withCall - bare).toBeGreaterThanOrEqual(100);
    expect(estimateTokens([user('abcd'), user('abcd')])).toBe(2 * (4 + 1));
    expect(estimateMessageTokens(user('abcd'), { count: (t) => t.length })).toBe(4 + 4);
  });
});
