/** `1 file`, `2 files`, `1,024 calls`: a count with its noun (a regular plural). */
export function counted(n: number, noun: string): string {
  return `${n.toLocaleString('en')} ${noun}${n === 1 ? '' : 's'}`;
}

/** Bytes in the unit that shows them: `512 bytes`, `3.4 KB`, `12.5 MB` (decimal units). */
export function byteSize(bytes: number): string {
  if (bytes < 1e3) return counted(bytes, 'byte');
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
