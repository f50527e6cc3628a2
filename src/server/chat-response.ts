import type { NativeEvent } from '../adapters/index.js';

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
  #roleSent = false;

  constructor(private readonly onDelta: (delta: Delta) => void = () => {}) {}

  get hasCalls(): boolean {
    return this.#indexById.size > 0;
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
    if (call !== undefined) call.function.arguments += json;
    if (json !== '') this.#send({ tool_calls: [{ index, function: { arguments: json } }] });
  }

  text(text: string): void {
    this.message.content = (this.message.content ?? '') + text;
    this.#send({ content: text });
  }

  reasoning(text: string): void {
    this.message.reasoning_content = (this.message.reasoning_content ?? '') + text;
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
      case 'call-end':
      case 'call-failed':
        this.#arguments(event.id, event.json);
        break;
      default:
        break;
    }
  }
}
