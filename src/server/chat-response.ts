import type { NativeEvent } from '../adapters/native-calls.js';

/** One `delta.tool_calls` entry of a Chat Completions chunk. */
interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

interface Delta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
}

export interface ChatCompletionMessage {
  role: 'assistant';
  content: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{
    id: string;
    type: 'function';
    function: { name: string; arguments: string };
  }>;
}

/**
 * Builds the answer from native events: each event as a `chat.completion.chunk` delta (for
 * streaming), and the whole message (for `stream: false`). Tool calls are numbered by `index`
 * in the order they start; their `arguments` fragments concatenate to the call's JSON.
 */
export class ChatAnswer {
  readonly message: ChatCompletionMessage = { role: 'assistant', content: null };
  #indexById = new Map<string, number>();
  #failed = new Set<string>();
  #ended = 0;
  #size = 0;
  #blank = '';
  #roleSent = false;

  /**
   * `onDelta` gets each delta as a chunk would carry it; `keep: false` (streaming) keeps no
   * message, so a long answer costs no memory.
   */
  constructor(
    private readonly onDelta: (delta: Delta) => void = () => {},
    private readonly keep = true,
  ) {}

  /** Whether some call ended well (only those are offered for execution). */
  get hasCalls(): boolean {
    return this.#ended > 0;
  }

  /** Whether a call broke off (a reply ending inside it, or one over maxCallBytes). */
  get hasFailedCalls(): boolean {
    return this.#failed.size > 0;
  }

  /** Characters kept in the message so far. */
  get size(): number {
    return this.#size;
  }

  /**
   * The message to answer with: calls that broke off are left out (their text came back as
   * content), so a broken call is never offered for execution.
   */
  finalMessage(): ChatCompletionMessage {
    const calls = this.message.tool_calls?.filter((c) => !this.#failed.has(c.id));
    if (calls === undefined || calls.length === 0) delete this.message.tool_calls;
    else this.message.tool_calls = calls;
    // Only blank lines around the calls: no content, as native tool calling answers.
    if (calls?.length && this.message.content?.trim() === '') this.message.content = null;
    return this.message;
  }

  #send(delta: Delta): void {
    if (!this.#roleSent) {
      this.#roleSent = true;
      delta = { role: 'assistant', ...delta };
    }
    this.onDelta(delta);
  }

  #arguments(id: string, json: string): void {
    const index = this.#indexById.get(id) ?? 0;
    const call = this.message.tool_calls?.[index];
    if (call !== undefined && this.keep) {
      call.function.arguments += json;
      this.#size += json.length;
    }
    if (json !== '') this.#send({ tool_calls: [{ index, function: { arguments: json } }] });
  }

  text(text: string): void {
    if (this.keep) {
      this.message.content = (this.message.content ?? '') + text;
      this.#size += text.length;
    }
    // Whitespace between text and a call is layout, not content: held until text follows
    // (then sent with it) or a call does (then dropped), as the whole answer's content is
    // null when it holds nothing but blanks around its calls.
    if (text.trim() === '') {
      this.#blank += text;
      return;
    }
    this.#send({ content: this.#blank + text });
    this.#blank = '';
  }

  /** The answer is over: blanks held after the last text go out unless a call followed them. */
  end(): void {
    if (this.#blank !== '' && this.#indexById.size === 0) this.#send({ content: this.#blank });
    this.#blank = '';
  }

  reasoning(text: string): void {
    if (this.keep) {
      this.message.reasoning_content = (this.message.reasoning_content ?? '') + text;
      this.#size += text.length;
    }
    this.#send({ reasoning_content: text });
  }

  native(event: NativeEvent): void {
    switch (event.type) {
      case 'text':
        this.text(event.text);
        break;
      case 'reasoning':
        this.reasoning(event.text);
        break;
      case 'call-start': {
        this.#blank = '';
        const index = this.#indexById.size;
        this.#indexById.set(event.id, index);
        this.message.tool_calls ??= [];
        this.message.tool_calls.push({
          id: event.id,
          type: 'function',
          function: { name: event.name, arguments: '' },
        });
        this.#send({
          tool_calls: [
            {
              index,
              id: event.id,
              type: 'function',
              function: { name: event.name, arguments: '' },
            },
          ],
        });
        break;
      }
      case 'call-delta':
        this.#arguments(event.id, event.json);
        break;
      case 'call-end':
        this.#ended++;
        this.#arguments(event.id, event.json);
        break;
      case 'call-failed':
        this.#failed.add(event.id);
        this.#arguments(event.id, event.json);
        break;
      default:
        break;
    }
  }
}
