/**
 * The benchmark corpus with its calls written in another model's format: each `<tool>` block
 * that parses is replaced by the same call as that family's chat template writes it
 * (`renderCallIn`), the prose around it left as it is. For comparing a dialect's cost with
 * `<tool>`'s.
 */
import { type Dialect, parse, renderCallIn } from 'tagcall/protocol';

export function inDialect(messages: readonly string[], dialect: Dialect): string[] {
  return messages.map((message) => {
    let out = '';
    let at = 0;
    for (const call of parse(message).calls) {
      out += message.slice(at, call.start) + renderCallIn(dialect, call);
      at = call.end;
    }
    return out + message.slice(at);
  });
}
