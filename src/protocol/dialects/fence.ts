import type { FenceForm } from '../body/form.js';
import { mayBecomeMatch } from '../regex-prefix.js';

const OPENING_LINE = /```[a-z]*[ \t]*\r?\n/y;
const OPENING_LINE_BEGUN = mayBecomeMatch(OPENING_LINE);

/**
 * A Markdown fence, ```` ```lang ```` on a line of its own and ```` ``` ```` after what it
 * holds; `label` is how warnings name it.
 */
export const markdownFence = (label: string): FenceForm => ({
  open: OPENING_LINE,
  begun: OPENING_LINE_BEGUN,
  close: '```',
  label,
});
