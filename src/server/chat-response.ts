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

export interface ChatAnswerOptions {
  /** Gets each delta as a chunk would carry it (streaming). */
  onDelta?: (delta: Delta) => void;
  /** Keep the whole message (default true); false (streaming) keeps none: a long answer costs no memory. */
  keep?: boolean;
  /**
   * Send a call's entry and argument fragments as the model writes them, before it is known
   * to end as a call. Unsafe for clients that run the calls open at the end of a stream (AI
   * SDK 6): a call that breaks off cannot be taken back. Default false: each call is held
   * (bounded by the parser's `maxCallBytes`) until it has ended, then sent whole.
   */
  callsEarly?: boolean;
}

/**
 * Builds the answer from native events: each event as a `chat.completion.chunk` delta (for
 * streaming), and the whole message (for `stream: false`). Tool calls are numbered by `index`
 * in the order they are sent; their `arguments` fragments concatenate to the call's JSON.
 */
export class ChatAnswer {
  readonly message: ChatCompletionMessage = { role: 'assistant', content: null };
  #indexById = new Map<string, number>();
  /** Calls not yet known to end as calls (unless `callsEarly`): name and arguments so far. */
  #held = new Map<string, { name: string; json: string }>();
  #failed = new Set<string>();
  #ended = 0;
  #size = 0;
  /** Trailing blanks of the content so far, not sent yet. */
  #blank = '';
  /** Whether thinking or a call was cut out of the content. */
  #cutOut = false;
  #hasContent = false;
  #roleSent = false;
  readonly #onDelta: (delta: Delta) => void;
  readonly #keep: boolean;
  readonly #callsEarly: boolean;

  constructor(options: ChatAnswerOptions = {}) {
    this.#onDelta = options.onDelta ?? (() => {});
    this.#keep = options.keep ?? true;
    this.#callsEarly = options.callsEarly ?? false;
  }

  /** Whether some call ended well (only those are offered for execution). */
  get hasCalls(): boolean {
    return this.#ended > 0;
  }

  /**
   * Whether a call that was sent broke off (a reply ending inside it, or one over
   * maxCallBytes): only with `callsEarly`, as a held call that breaks off is never sent.
   */
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
    if (delta.content !== undefined && this.#keep) {
      this.message.content = (this.message.content ?? '') + delta.content;
      this.#size += delta.content.length;
    }
    this.#onDelta(delta);
  }

  #arguments(id: string, json: string): void {
    const index = this.#indexById.get(id) ?? 0;
    const call = this.message.tool_calls?.[index];
    if (call !== undefined && this.#keep) {
      call.function.arguments += json;
      this.#size += json.length;
    }
    if (json !== '') this.#send({ tool_calls: [{ index, function: { arguments: json } }] });
  }

  /** Sends a call's entry (id, name, empty arguments), numbered in the order calls are sent. */
  #open(id: string, name: string): void {
    const index = this.#indexById.size;
    this.#indexById.set(id, index);
    if (this.#keep) {
      this.message.tool_calls ??= [];
      this.message.tool_calls.push({ id, type: 'function', function: { name, arguments: '' } });
    }
    this.#send({
      tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }],
    });
  }

  /**
   * Blank lines around what was cut out of the content (thinking, calls) are layout, not
   * content: leading ones before the first text are dropped, and trailing ones are held until
   * text follows (then sent with it) or thinking or a call does (then dropped). The answer's
   * content is null when it holds nothing but blanks around its calls, streamed or not.
   */
  text(text: string): void {
    if (this.#cutOut && !this.#hasContent) text = text.trimStart();
    const body = text.trimEnd();
    if (body === '') {
      this.#blank += text;
      return;
    }
    this.#hasContent = true;
    this.#send({ content: this.#blank + body });
    this.#blank = text.slice(body.length);
  }

  /** Thinking or a call was cut out here: the blanks before it were layout around it. */
  #cut(): void {
    this.#cutOut = true;
    this.#blank = '';
  }

  /** The answer is over: blanks held after the last text go out unless something was cut out. */
  end(): void {
    if (this.#blank !== '' && !this.#cutOut) this.#send({ content: this.#blank });
    this.#blank = '';
  }

  reasoning(text: string): void {
    this.#cut();
    if (this.#keep) {
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
      case 'reasoning-start':
        this.#cut();
        break;
      case 'call-start':
        if (this.#callsEarly) {
          this.#cut();
          this.#open(event.id, event.name);
        } else this.#held.set(event.id, { name: event.name, json: '' });
        break;
      case 'call-delta': {
        const held = this.#held.get(event.id);
        if (held === undefined) this.#arguments(event.id, event.json);
        else held.json += event.json;
        break;
      }
      case 'call-end': {
        this.#ended++;
        const held = this.#held.get(event.id);
        if (held === undefined) this.#arguments(event.id, event.json);
        else {
          // Certain now: the call goes out whole, its arguments in one fragment.
          this.#held.delete(event.id);
          this.#cut();
          this.#open(event.id, held.name);
          this.#arguments(event.id, held.json + event.json);
        }
        break;
      }
      case 'call-failed':
        // A held call that broke off was never sent: nothing to take back.
        if (this.#held.delete(event.id)) break;
        this.#failed.add(event.id);
        this.#arguments(event.id, event.json);
        break;
      default:
        break;
    }
  }
}
