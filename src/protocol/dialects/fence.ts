import type { FenceForm } from '../body/form.js';

const OPENING_LINE = /```[a-z]*[ \t]*\r?\n/y;

/**
 * A Markdown fence, ```` ```lang ```` on a line of its own and ```` ``` ```` after what it
 * holds; `label` is how warnings name it.
 */
export const markdownFence = (label: string): FenceForm => ({
  open: OPENING_LINE,
  close: '```',
  label,
});
