import { PendingOutput, type ReplyWriter, writeOut } from './reply-writer.js';
import { Spool } from './spool.js';

/**
 * The inside of a JSON string, escaped piece by piece: the same text as escaping the pieces
 * joined, because a high surrogate at a piece's end waits for the low one in the next piece.
 */
function createStringEscaper() {
  let held = '';
  return {
    escape(text: string): string {
      let whole = held === '' ? text : held + text;
      held = '';
      const last = whole.charCodeAt(whole.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        held = whole.slice(-1);
        whole = whole.slice(0, -1);
      }
      return whole === '' ? '' : JSON.stringify(whole).slice(1, -1);
    },
    flush(): string {
      const rest = held;
      held = '';
      return rest === '' ? '' : JSON.stringify(rest).slice(1, -1);
    },
  };
}

/** A JSON array under a key of the top object, its items written as they come. */
class SpooledArray {
  readonly spool = new Spool();
  count = 0;

  /** Starts the next item and returns the spool to write its text to. */
  next(): Spool {
    this.spool.write(this.count === 0 ? '[\n    ' : ',\n    ');
    this.count++;
    return this.spool;
  }

  item(value: object): void {
    this.next().write(JSON.stringify(value, null, 2).replaceAll('\n', '\n    '));
  }

  async drainTo(out: NodeJS.WritableStream): Promise<void> {
    if (this.count === 0) return writeOut(out, '[]');
    this.spool.write('\n  ]');
    await this.spool.drainTo(out);
  }
}

/**
 * One reply as the JSON object `tagcall parse --format json` prints (keys `text`, `thinking`,
 * `calls`, `warnings`, `errors`, and `markers` when it has some, two-space indent), byte for byte what `JSON.stringify` of the
 * folded result gives, written as the reply streams: `text` goes out as it is read, and what
 * follows it in the object waits in spools (memory up to a few MiB, then a temporary file), so a
 * reply of any size costs bounded memory.
 */
export function createJsonReplyWriter(out: NodeJS.WritableStream): ReplyWriter {
  const pending = new PendingOutput(out);
  pending.write('{\n  "text": "');
  const text = createStringEscaper();
  const thinkingText = createStringEscaper();
  const thinking = new SpooledArray();
  const calls = new SpooledArray();
  const warnings = new SpooledArray();
  const errors = new SpooledArray();
  const markers = new SpooledArray();
  let thought: Spool | null = null;
  const startThought = (): Spool => {
    const spool = thinking.next();
    spool.write('"');
    return spool;
  };

  return {
    add(event) {
      switch (event.type) {
        case 'text':
          pending.write(text.escape(event.text));
          break;
        case 'thinking-start':
          thought = startThought();
          break;
        case 'thinking-delta':
          thought?.write(thinkingText.escape(event.text));
          break;
        case 'thinking-end':
          // As in the fold, an end without a start is an empty block.
          (thought ?? startThought()).write(`${thinkingText.flush()}"`);
          thought = null;
          break;
        case 'tool-end': {
          const { call } = event;
          calls.item({
            server_name: call.serverName,
            tool_name: call.toolName,
            arguments: call.arguments,
            format: call.format,
          });
          break;
        }
        case 'warning':
          warnings.item({ code: event.code, message: event.message, offset: event.offset });
          break;
        case 'error':
          errors.item({ code: event.code, message: event.message, offset: event.offset });
          break;
        case 'marker':
          markers.item({ text: event.text, offset: event.offset });
          break;
      }
    },
    flush: () => pending.flush(),
    async end() {
      try {
        pending.write(`${text.flush()}",\n  "thinking": `);
        await pending.flush();
        for (const [array, key] of [
          [thinking, 'calls'],
          [calls, 'warnings'],
          [warnings, 'errors'],
          // `markers` only when the reply had one, as in the folded result.
          [errors, markers.count > 0 ? 'markers' : null],
          ...(markers.count > 0 ? ([[markers, null]] as const) : []),
        ] as const) {
          await array.drainTo(out);
          pending.write(key === null ? '\n}\n' : `,\n  "${key}": `);
          await pending.flush();
        }
      } finally {
        for (const array of [thinking, calls, warnings, errors, markers]) array.spool.discard();
      }
    },
  };
}
