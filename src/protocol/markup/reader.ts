import type { BlockLimits, BlockSink } from '../block.js';
import { MarkupCore } from './core.js';
import type { MarkupForm } from './form.js';
import { LiteralTags } from './literal-tags.js';
import { XmlElements } from './xml-elements.js';

/**
 * Reads one block of a markup dialect: the shared reader (markup/core.ts) with the shape its
 * form's tags are written in, XML elements or the form's own literals.
 */
export class MarkupReader extends MarkupCore {
  constructor(form: MarkupForm, sink: BlockSink, limits: BlockLimits) {
    super(form, sink, limits, form.tags === 'xml' ? XmlElements : LiteralTags);
  }
}
