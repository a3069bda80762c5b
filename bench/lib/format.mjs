// Number and table formatting shared by the console lines and the report.

export const fmt = (value, digits = 2) => Number.isFinite(value) ? value.toFixed(digits) : 'n/a'
export const int = (value) => Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a'

export function sizeLabel (size) {
  if (size >= 1_000_000 && size % 1_000_000 === 0) return `${size / 1_000_000}M`
  if (size >= 1000 && size % 1000 === 0) return `${size / 1000}k`
  return String(size)
}

/** align: one letter per column, l or r. */
export function markdownTable (header, rows, align) {
  const widths = header.map((title, c) => Math.max(title.length, ...rows.map(row => String(row[c]).length)))
  const left = (c) => align[c] === 'l'
  const line = (cells) => `| ${cells.map((cell, c) => left(c) ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c])).join(' | ')} |`
  return [line(header), `|${widths.map((w, c) => left(c) ? `-${'-'.repeat(w)}-` : `-${'-'.repeat(w)}:`).join('|')}|`, ...rows.map(line)].join('\n')
}

/** "name calls/n, ..." by calls, most first. */
export function perRequest (counts, n) {
  return Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([name, calls]) => `${name} ${fmt(calls / n)}`).join(', ')
}

/** "submit 1k", or just the name of a scenario that runs on no board. */
export const rowLabel = (name, size) => size === undefined ? name : `${name} ${sizeLabel(size)}`
