import { createParser, type ParseOptions, type ParserEvent } from '../protocol/index.js';
import { createMessage, type Message, type MessageOptions, type Part } from './message.js';

type Diagnostic = { code: string; message: string; offset: number };

export interface FromTextOptions extends MessageOptions {
  /** Parser options; call ids default to `<message id>-call-<n>` so they are unique per message. */
  parse?: ParseOptions;
}

/**
 * Builds an assistant message from parser events as they come: text, thinking and calls
 * become parts, in the order written; the parser's errors and warnings go to
 * `metadata.parseErrors` / `metadata.parseWarnings` (a malformed call's raw text stays text).
 * The agent loop feeds it the events it streams, so a reply is parsed once.
 */
export function createReplyBuilder(options: MessageOptions = {}) {
  const message = createMessage('assistant', [], options);
  const parts: Part[] = message.parts;
  const errors: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  let thinking: string[] | null = null;
  const addText = (t: string) => {
    const last = parts[parts.length - 1];
    if (last?.kind === 'text') last.text += t;
    else parts.push({ kind: 'text', text: t });
  };
  return {
    /** Call ids for the parser: `<message id>-call-<n>`, unique per message. */
    generateId: (i: number) => `${message.id}-call-${i}`,
    add(event: ParserEvent): void {
      switch (event.type) {
        case 'text':
          addText(event.text);
          break;
        case 'thinking-start':
          thinking = [];
          break;
        case 'thinking-delta':
          thinking?.push(event.text);
          break;
        case 'thinking-end':
          parts.push({ kind: 'thinking', text: (thinking ?? []).join('') });
          thinking = null;
          break;
        case 'tool-end': {
          const { id, serverName, toolName, arguments: args } = event.call;
          parts.push({
            kind: 'tool-call',
            id,
            serverName,
            toolName,
            arguments: args,
            status: 'pending',
          });
          break;
        }
        case 'warning':
          warnings.push({ code: event.code, message: event.message, offset: event.offset });
          break;
        case 'error':
          errors.push({ code: event.code, message: event.message, offset: event.offset });
          break;
      }
    },
    /** The message, once the parser has ended. */
    finish(): Message {
      if (errors.length > 0) message.metadata.parseErrors = errors;
      if (warnings.length > 0) message.metadata.parseWarnings = warnings;
      return message;
    },
  };
}

/** An assistant message from a text-protocol model's whole reply (see `createReplyBuilder`). */
export function assistantFromText(text: string, options: FromTextOptions = {}): Message {
  const builder = createReplyBuilder(options);
  const parser = createParser({
    generateId: builder.generateId,
    ...options.parse,
    onEvent: builder.add,
  });
  parser.feed(text);
  parser.end();
  return builder.finish();
}
